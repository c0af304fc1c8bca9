"""``report.md`` (tables) and PNG plots from a run's :class:`~memdesk.eval.summary.EvalSummary` and rows.

Plots (matplotlib, Agg backend, no display needed):

- ``recall_vs_tokens.png``: headline recall against median evidence tokens, one point per system,
  the typed k/K sweep as a line, log-scaled token axis;
- ``recall_by_category.png``: grouped bars of recall per category and system;
- ``latency.png``: the distribution of search latency per system (box plot).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path

from .mdtable import fmt, table
from .results_file import ResultsFile
from .rows import QuestionResult
from .summary import DEFAULT_TARGETS, EvalSummary, Latency, MetricBlock

logger = logging.getLogger(__name__)

MAIN_ORDER = [
    "memdesk-default", "memdesk-typed", "memdesk-untyped", "memdesk-hybrid", "memdesk-hybrid-K40", "flat-rag",
    "flat-rag-K50", "full-context",
]
ABSTENTION_NOTE = (
    "How abstentions are scored (`memdesk/eval/metrics.py`): an answer that says the conversation does not tell "
    "(it contains `not mentioned` or `no information available`) scores F1 1 on an abstention item (LoCoMo "
    "adversarial, LongMemEval `_abs`) and F1 0, BLEU-1 0 on a question that has an answer, whatever words it "
    "shares with the gold answer; `abst.` counts the abstaining answers (on answerable questions in brackets). "
    "The judge is called once per distinct (question, answer): a system giving the same answer as another to a "
    "question reuses that verdict (`judge_shared` in its row), and judge latency counts only the calls made. "
    "`exact -> WRONG` checks the judge: of the judged answers with F1 1 (the gold answer's words exactly, or an "
    "abstention on an abstention item), how many it called WRONG; a judge that rejects those is not to be trusted "
    "on the others."
)


def _main_systems(summary: EvalSummary) -> list[str]:
    names = [n for n, e in summary.systems.items() if not e.spec.sweep]
    return sorted(names, key=lambda n: (MAIN_ORDER.index(n) if n in MAIN_ORDER else len(MAIN_ORDER), n))


def _sample_line(summary: EvalSummary) -> str:
    cfg = summary.config
    line = f"- data: `{Path(summary.data).name}`, {summary.n_questions} of {summary.dataset.get('questions', '?')} questions"
    if cfg.get("limit") and cfg.get("seed") is not None:
        line += f" (a seeded sample stratified over categories and conversations, seed {cfg['seed']})"
    elif cfg.get("limit"):
        line += f" (the first {cfg['limit']})"
    return line


def _default_line(summary: EvalSummary) -> list[str]:
    d = summary.config.get("default")
    if not d:
        return []
    s = d.get("settings", {})
    return [
        f"- `memdesk-default` is what `Memory.open()` builds from the settings: processor `{s.get('processor')}`, "
        f"k={d['k']}, K={d['K']}, hybrid {'on' if d['hybrid'] else 'off'} (store `{d['store']}`)",
    ]


def markdown(summary: EvalSummary) -> str:
    """The report as Markdown."""
    cfg = summary.config
    lme = summary.benchmark == "longmemeval"
    cut = summary.cutoffs
    lines = [
        f"# {'LongMemEval' if lme else 'LoCoMo'}: conversational memory evaluation",
        "",
        _sample_line(summary),
        f"- embedder `{cfg['embedder']}`, typed processor `{cfg['processor']}`, k={cfg['k']}, K={cfg['K']}",
        *_default_line(summary),
        f"- answer model: `{cfg.get('answer_model') or 'none (offline run: retrieval metrics only)'}`"
        + (f", judge `{cfg['judge_model']}`" if cfg.get("judge_model") else ""),
        f"- headline categories: {', '.join(summary.headline_categories)}",
        "",
        "Recall is the mean fraction of gold evidence turns covered by the provenance of the retrieved records "
        "(at the system's K; @N = first N hits). P@1: the first hit's provenance holds a gold turn; MRR@10: mean "
        "reciprocal rank of the first hit holding a gold turn (0 beyond 10). Tokens are cl100k_base tokens of the "
        "serialized evidence block."
        + (" Session recall (any / all / fraction of answer sessions hit) leaves the abstention items out." if lme else ""),
        "",
        "## Overall",
        "",
    ]
    names = _main_systems(summary)
    answered = any(summary.systems[n].overall.n_answered for n in names)
    head = ["system", "k", "K", "recall"] + [f"R@{c}" for c in cut] + ["P@1", "MRR@10"]
    if lme:
        head += ["sess@10 any", "sess@10 frac", "sess@10 all"]
    head += ["contain", "median tok", "mean tok", "search p50 ms", "search p95 ms"]
    if answered:
        head += ["F1", "BLEU-1", "judge", "abst.", "exact -> WRONG", "answer p50/p95 ms", "judge p50/p95 ms"]
    rows = []
    for name in names:
        e = summary.systems[name]
        o, sp = e.overall, e.spec
        full = sp.kind == "full"
        row = [f"**{name}**", fmt(None if full else sp.k), fmt(None if full else sp.K), fmt(o.recall)]
        row += [fmt(o.recall_cut(c)) for c in cut] + [fmt(o.precision_at_1), fmt(o.mrr_at_10)]
        if lme:
            row += [fmt(o.session_cut(10, m)) for m in ("any", "fraction", "all")]
        row += [
            fmt(o.containment), fmt(o.median_evidence_tokens, 0), fmt(o.mean_evidence_tokens, 0),
            fmt(o.search_latency_ms.p50, 1), fmt(o.search_latency_ms.p95, 1),
        ]  # fmt: skip
        if answered:
            row += [fmt(o.f1), fmt(o.bleu1), fmt(o.judge), _abstentions(o), _exact_wrong(o)]
            row += [_lat(o.answer_latency_ms), _lat(o.judge_latency_ms)]
        rows.append(row)
    lines += table(head, rows)
    if any(summary.systems[n].spec.kind == "full" for n in names):
        lines += ["Full context holds every turn, so its recall is 1 by construction; it is the token reference.", ""]
    lines += _targets(summary)

    cats = _categories(summary)
    lines += ["## Recall by category", ""]
    lines += table(["system", *cats], [[n, *(fmt(_cat(summary, n, c).recall) for c in cats)] for n in names])
    ranked = [n for n in names if summary.systems[n].spec.kind != "full"]
    lines += ["## Precision@1 / MRR@10 of the first gold turn by category", ""]
    lines += table(["system", *cats], [
        [n, *(f"{fmt(_cat(summary, n, c).precision_at_1)} / {fmt(_cat(summary, n, c).mrr_at_10)}" for c in cats)]
        for n in ranked
    ])  # fmt: skip
    if lme:
        lines += ["## Session recall@10 (fraction) by question type", ""]
        lines += table(["system", *cats], [
            [n, *(fmt(_cat(summary, n, c).session_cut(10)) for c in cats)]
            for n in names if summary.systems[n].spec.kind != "full"
        ])  # fmt: skip
    lines += ["## Median evidence tokens by category", ""]
    lines += table(["system", *cats], [[n, *(fmt(_cat(summary, n, c).median_evidence_tokens, 0) for c in cats)] for n in names])
    if answered:
        lines += ["## Answer scores by category: F1 and judge side by side", ""]
        head = ["system"] + [f"{c} {m}" for c in cats for m in ("F1", "judge")]
        rows = []
        for n in names:
            if summary.systems[n].overall.n_answered or any(b.n_answered for b in summary.systems[n].by_category.values()):
                rows.append([n, *(v for c in cats for v in (fmt(_cat(summary, n, c).f1), fmt(_cat(summary, n, c).judge)))])
        lines += table(head, rows)
        lines += ["Answered questions and abstentions per category (answered / abstaining / of those on answerable questions):", ""]
        lines += table(["system", *cats], [
            [n, *(f"{fmt(_cat(summary, n, c).n_answered)} / {_abstentions(_cat(summary, n, c))}" for c in cats)]
            for n in names if summary.systems[n].overall.n_answered
        ])  # fmt: skip
        lines += [ABSTENTION_NOTE, ""]

    if summary.sweep:
        lines += ["## k/K sweep (memdesk-typed)", ""]
        head = ["k", "K", "recall"] + [f"R@{c}" for c in cut] + (["sess@10 frac"] if lme else []) + ["median tok", "mean tok"]
        rows = []
        for s in summary.sweep:
            b = s.block
            row = [str(s.k), str(s.K), fmt(b.recall)] + [fmt(b.recall_cut(c)) for c in cut]
            if lme:
                row.append(fmt(b.session_cut(10)))
            rows.append(row + [fmt(b.median_evidence_tokens, 0), fmt(b.mean_evidence_tokens, 0)])
        lines += table(head, rows)

    lines += ["## Dataset", "", "```json", json.dumps(summary.dataset, indent=1), "```", ""]
    lines += ["## Stage account (cumulative over resumed runs)", "", "```json", json.dumps(summary.stages, indent=1), "```", ""]
    lines += ["Plots: `recall_vs_tokens.png`, `recall_by_category.png`, `latency.png`.", ""]
    return "\n".join(lines)


def _lat(lat: Latency | None) -> str:
    return "–" if lat is None else f"{fmt(lat.p50, 0)} / {fmt(lat.p95, 0)}"


def _abstentions(b: MetricBlock) -> str:
    return "–" if b.abstentions is None else f"{b.abstentions} ({b.abstentions_on_answerable})"


def _exact_wrong(b: MetricBlock) -> str:
    return "–" if b.exact_answers is None else f"{b.exact_judged_wrong} of {b.exact_answers}"


def _cat(summary: EvalSummary, name: str, category: str) -> MetricBlock:
    return summary.systems[name].by_category.get(category) or MetricBlock(n=0)


def _targets(summary: EvalSummary) -> list[str]:
    if not summary.targets:
        return []
    lines = ["## Targets", ""]
    for name, t in summary.targets.items():
        if summary.benchmark == "locomo":
            r, k = t["recall"], t["median_evidence_tokens"]
            r_ok = r["measured"] is not None and r["measured"] >= r["target"]
            k_ok = k["measured"] is not None and k["measured"] <= k["target"]
            r_note = "met" if r_ok else "short by " + fmt(r["gap"])
            k_note = "met" if k_ok else "over by " + fmt(k["gap"], 0)
            lines.append(f"- {name}: recall (categories 1-4) ≥ {r['target']}: measured {fmt(r['measured'])} ({r_note}); "
                         f"median evidence tokens ≤ {k['target']}: measured {fmt(k['measured'], 0)} ({k_note})")  # fmt: skip
        else:
            s = t["session_recall@10"]
            note = "met" if t["met"] else "fraction short by " + fmt(s["gap_fraction"])
            lines.append(
                f"- {name}: session recall@10 ≥ {s['target']}: fraction {fmt(s['measured_fraction'])}, "
                f"any {fmt(s['measured_any'])}, all {fmt(s['measured_all'])} ({note})"
            )
    return lines + [""]


def _categories(summary: EvalSummary) -> list[str]:
    seen: list[str] = []
    for e in summary.systems.values():
        for c in e.by_category:
            if c not in seen:
                seen.append(c)
    return seen


def plot_recall_vs_tokens(summary: EvalSummary, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in _main_systems(summary):
        o = summary.systems[name].overall
        x, y = o.median_evidence_tokens, o.recall
        if x is None or y is None:
            continue
        ax.scatter([max(x, 1)], [y], s=60, label=name, zorder=3)
        ax.annotate(name, (max(x, 1), y), textcoords="offset points", xytext=(5, -12), fontsize=8)
    pts = [(s.block.median_evidence_tokens, s.block.recall, s) for s in summary.sweep
           if s.block.median_evidence_tokens and s.block.recall is not None]
    if pts:
        pts.sort(key=lambda p: p[0])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "--", color="grey", marker=".", label="typed k/K sweep", zorder=2)
        for x, y, s in pts:
            ax.annotate(f"{s.k}/{s.K}", (x, y), textcoords="offset points", xytext=(3, 3), fontsize=6, color="grey")
    if summary.benchmark == "locomo":
        ax.axhline(DEFAULT_TARGETS["locomo_recall"], color="green", lw=0.8, ls=":")  # the default's targets
        ax.axvline(DEFAULT_TARGETS["locomo_tokens"], color="green", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_xlabel("median evidence tokens (cl100k_base, log)")
    ax.set_ylabel("gold-evidence recall (headline categories)")
    ax.set_ylim(0, 1.05)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(f"{summary.benchmark}: recall vs evidence tokens")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_recall_by_category(summary: EvalSummary, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    names = [n for n in _main_systems(summary) if summary.systems[n].spec.kind != "full"]
    cats = _categories(summary)
    fig, ax = plt.subplots(figsize=(max(7, 1.4 * len(cats)), 4.5))
    width = 0.8 / max(1, len(names))
    xs = np.arange(len(cats))
    for i, name in enumerate(names):
        vals = [_cat(summary, name, c).recall or 0.0 for c in cats]
        ax.bar(xs + i * width - 0.4 + width / 2, vals, width, label=name)
    ax.set_xticks(xs)
    ax.set_xticklabels(cats, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("gold-evidence recall at K")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7)
    ax.set_title(f"{summary.benchmark}: recall by category")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_latency(rows: Sequence[QuestionResult], summary: EvalSummary, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in _main_systems(summary) if summary.systems[n].spec.kind != "full"]
    data = [[r.search_ms for r in rows if r.system == n and r.search_ms is not None] for n in names]
    keep = [(n, d) for n, d in zip(names, data) if d]
    fig, ax = plt.subplots(figsize=(7, 4))
    if keep:
        ax.boxplot([d for _, d in keep], showfliers=True, whis=(5, 95))
        ax.set_xticks(range(1, len(keep) + 1))
        ax.set_xticklabels([n for n, _ in keep], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("search latency per question (ms, log)")
    ax.set_title(f"{summary.benchmark}: search latency (whiskers p5-p95)")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_report(summary: EvalSummary, out_dir: str | Path, rows: Sequence[QuestionResult] | None = None) -> list[Path]:
    """Write ``report.md`` and the three PNG plots into ``out_dir`` (rows default to its
    ``results.jsonl``); returns the paths written. Without matplotlib (the ``eval`` extra) the plots
    are skipped with a note, and the run's results stand."""
    from ..runtime.extras import PLOTS_SKIPPED, can_plot

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if rows is None:
        rows = ResultsFile(out / "results.jsonl", QuestionResult).read()
    paths = [out / "report.md", out / "recall_vs_tokens.png", out / "recall_by_category.png", out / "latency.png"]
    if not can_plot():
        paths[0].write_text(markdown(summary) + f"\n{PLOTS_SKIPPED}.\n", encoding="utf-8")
        logger.warning(PLOTS_SKIPPED)
        return paths[:1]
    paths[0].write_text(markdown(summary), encoding="utf-8")
    plot_recall_vs_tokens(summary, paths[1])
    plot_recall_by_category(summary, paths[2])
    plot_latency(rows, summary, paths[3])
    return paths
