"""``report.md`` (tables) and PNG plots from a run's summary and results.

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
from typing import Any

logger = logging.getLogger(__name__)

MAIN_ORDER = ["memdesk-typed", "memdesk-untyped", "memdesk-hybrid", "memdesk-hybrid-K40", "flat-rag", "flat-rag-K50", "full-context"]


def _fmt(x: Any, nd: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{nd}f}"
    return str(x)


def _main_systems(summary: dict[str, Any]) -> list[str]:
    names = [n for n, e in summary["systems"].items() if not e["spec"]["sweep"]]
    return sorted(names, key=lambda n: (MAIN_ORDER.index(n) if n in MAIN_ORDER else len(MAIN_ORDER), n))


def _sr(block: dict[str, Any], key: str, metric: str = "fraction") -> float | None:
    v = block.get(key)
    return None if not v else v.get(metric)


def markdown(summary: dict[str, Any]) -> str:
    """The report as Markdown."""
    cfg = summary["config"]
    bench = summary["benchmark"]
    lme = bench == "longmemeval"
    cut = cfg.get("cutoffs") or [5, 10, 25]
    lines = [
        f"# {'LoCoMo' if bench == 'locomo' else 'LongMemEval'}: conversational memory evaluation",
        "",
        f"- data: `{Path(summary['data']).name}`, {summary['n_questions']} of {summary['dataset'].get('questions', '?')} questions"
        + (
            f" (a seeded sample stratified over categories and conversations, seed {cfg.get('seed')})"
            if cfg.get("limit") and cfg.get("seed") is not None
            else f" (the first {cfg['limit']})"
            if cfg.get("limit")
            else ""
        ),
        f"- embedder `{cfg['embedder']}`, typed processor `{cfg['processor']}`, k={cfg['k']}, K={cfg['K']}",
        f"- answer model: `{cfg.get('answer_model') or 'none (offline run: retrieval metrics only)'}`"
        + (f", judge `{cfg['judge_model']}`" if cfg.get("judge_model") else ""),
        f"- headline categories: {', '.join(summary['headline_categories'])}",
        "",
        "Recall is the mean fraction of gold evidence turns covered by the provenance of the retrieved records "
        "(at the system's K; @N = first N hits). Tokens are cl100k_base tokens of the serialized evidence block."
        + (" Session recall (any / all / fraction of answer sessions hit) leaves the abstention items out." if lme else ""),
        "",
        "## Overall",
        "",
    ]
    head = ["system", "k", "K", "recall"] + [f"R@{c}" for c in cut]
    if lme:
        head += ["sess@10 any", "sess@10 frac", "sess@10 all"]
    head += ["contain", "median tok", "mean tok", "search p50 ms", "search p95 ms"]
    answered = any("f1" in summary["systems"][n]["overall"] for n in summary["systems"])
    if answered:
        head += ["F1", "BLEU-1", "judge", "total p50 ms", "total p95 ms"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in _main_systems(summary):
        e = summary["systems"][name]
        o, sp = e["overall"], e["spec"]
        full = sp["kind"] == "full"
        row = [f"**{name}**", _fmt(None if full else sp["k"]), _fmt(None if full else sp["K"]), _fmt(o["recall"])]
        row += [_fmt(o.get(f"recall@{c}")) for c in cut]
        if lme:
            row += [_fmt(_sr(o, "session_recall@10", m)) for m in ("any", "fraction", "all")]
        row += [
            _fmt(o["containment"]), _fmt(o["median_evidence_tokens"], 0), _fmt(o["mean_evidence_tokens"], 0),
            _fmt(o["search_latency_ms"]["p50"], 1), _fmt(o["search_latency_ms"]["p95"], 1),
        ]
        if answered:
            row += [_fmt(o.get("f1")), _fmt(o.get("bleu1")), _fmt(o.get("judge")),
                    _fmt(o["total_latency_ms"]["p50"], 1), _fmt(o["total_latency_ms"]["p95"], 1)]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    if any(summary["systems"][n]["spec"]["kind"] == "full" for n in summary["systems"]):
        lines += ["Full context holds every turn, so its recall is 1 by construction; it is the token reference.", ""]

    t = summary.get("targets") or {}
    if t:
        lines += ["## Targets (memdesk-typed)", ""]
        if bench == "locomo":
            r, k = t["recall"], t["median_evidence_tokens"]
            r_ok = r["measured"] is not None and r["measured"] >= r["target"]
            k_ok = k["measured"] is not None and k["measured"] <= k["target"]
            r_note = "met" if r_ok else "short by " + _fmt(r["gap"])
            k_note = "met" if k_ok else "over by " + _fmt(k["gap"], 0)
            lines.append(f"- recall (categories 1-4) ≥ {r['target']}: measured {_fmt(r['measured'])} ({r_note})")
            lines.append(f"- median evidence tokens ≤ {k['target']}: measured {_fmt(k['measured'], 0)} ({k_note})")
        else:
            s = t["session_recall@10"]
            note = "met" if t["met"] else "fraction short by " + _fmt(s["gap_fraction"])
            lines.append(
                f"- session recall@10 ≥ {s['target']}: fraction {_fmt(s['measured_fraction'])}, "
                f"any {_fmt(s['measured_any'])}, all {_fmt(s['measured_all'])} ({note})"
            )
        lines.append("")

    lines += ["## Recall by category", ""]
    cats = [c for c in _categories(summary)]
    head = ["system"] + cats
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in _main_systems(summary):
        bc = summary["systems"][name]["by_category"]
        lines.append("| " + " | ".join([name] + [_fmt(bc.get(c, {}).get("recall")) for c in cats]) + " |")
    lines.append("")
    if lme:
        lines += ["## Session recall@10 (fraction) by question type", ""]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for name in _main_systems(summary):
            if summary["systems"][name]["spec"]["kind"] == "full":
                continue
            bc = summary["systems"][name]["by_category"]
            lines.append("| " + " | ".join([name] + [_fmt(_sr(bc.get(c, {}), "session_recall@10")) for c in cats]) + " |")
        lines.append("")
    lines += ["## Median evidence tokens by category", ""]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in _main_systems(summary):
        bc = summary["systems"][name]["by_category"]
        lines.append("| " + " | ".join([name] + [_fmt(bc.get(c, {}).get("median_evidence_tokens"), 0) for c in cats]) + " |")
    lines.append("")
    if answered:
        lines += ["## Answer scores by category (F1 / judge)", ""]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for name in _main_systems(summary):
            bc = summary["systems"][name]["by_category"]
            cells = [_fmt(bc.get(c, {}).get("f1")) + " / " + _fmt(bc.get(c, {}).get("judge")) for c in cats]
            lines.append("| " + " | ".join([name] + cells) + " |")
        lines.append("")

    if summary.get("sweep"):
        lines += ["## k/K sweep (memdesk-typed)", ""]
        head = ["k", "K", "recall"] + [f"R@{c}" for c in cut] + (["sess@10 frac"] if lme else []) + ["median tok", "mean tok"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for s in summary["sweep"]:
            row = [str(s["k"]), str(s["K"]), _fmt(s["recall"])] + [_fmt(s.get(f"recall@{c}")) for c in cut]
            if lme:
                row.append(_fmt((s.get("session_recall@10") or {}).get("fraction")))
            row += [_fmt(s["median_evidence_tokens"], 0), _fmt(s["mean_evidence_tokens"], 0)]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")

    lines += ["## Dataset", "", "```json", json.dumps(summary.get("dataset", {}), indent=1), "```", ""]
    lines += ["## Stage account (cumulative over resumed runs)", "", "```json", json.dumps(summary.get("stages", {}), indent=1), "```", ""]
    lines += ["Plots: `recall_vs_tokens.png`, `recall_by_category.png`, `latency.png`.", ""]
    return "\n".join(lines)


def _categories(summary: dict[str, Any]) -> list[str]:
    seen: list[str] = []
    for e in summary["systems"].values():
        for c in e["by_category"]:
            if c not in seen:
                seen.append(c)
    return seen


def plot_recall_vs_tokens(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in _main_systems(summary):
        o = summary["systems"][name]["overall"]
        x, y = o["median_evidence_tokens"], o["recall"]
        if x is None or y is None:
            continue
        ax.scatter([max(x, 1)], [y], s=60, label=name, zorder=3)
        ax.annotate(name, (max(x, 1), y), textcoords="offset points", xytext=(5, -12), fontsize=8)
    sweep = summary.get("sweep") or []
    pts = [(s["median_evidence_tokens"], s["recall"], s) for s in sweep if s["median_evidence_tokens"] and s["recall"] is not None]
    if pts:
        pts.sort(key=lambda p: p[0])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "--", color="grey", marker=".", label="typed k/K sweep", zorder=2)
        for x, y, s in pts:
            ax.annotate(f"{s['k']}/{s['K']}", (x, y), textcoords="offset points", xytext=(3, 3), fontsize=6, color="grey")
    if summary["benchmark"] == "locomo":
        from .summary import LOCOMO_RECALL_TARGET, LOCOMO_TOKENS_TARGET

        ax.axhline(LOCOMO_RECALL_TARGET, color="green", lw=0.8, ls=":")
        ax.axvline(LOCOMO_TOKENS_TARGET, color="green", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_xlabel("median evidence tokens (cl100k_base, log)")
    ax.set_ylabel("gold-evidence recall (headline categories)")
    ax.set_ylim(0, 1.05)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(f"{summary['benchmark']}: recall vs evidence tokens")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_recall_by_category(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    names = [n for n in _main_systems(summary) if summary["systems"][n]["spec"]["kind"] != "full"]
    cats = _categories(summary)
    fig, ax = plt.subplots(figsize=(max(7, 1.4 * len(cats)), 4.5))
    width = 0.8 / max(1, len(names))
    xs = np.arange(len(cats))
    for i, name in enumerate(names):
        bc = summary["systems"][name]["by_category"]
        vals = [bc.get(c, {}).get("recall") or 0.0 for c in cats]
        ax.bar(xs + i * width - 0.4 + width / 2, vals, width, label=name)
    ax.set_xticks(xs)
    ax.set_xticklabels(cats, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("gold-evidence recall at K")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7)
    ax.set_title(f"{summary['benchmark']}: recall by category")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_latency(rows: Sequence[dict[str, Any]], summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in _main_systems(summary) if summary["systems"][n]["spec"]["kind"] != "full"]
    data = [[r["search_ms"] for r in rows if r["system"] == n and r.get("search_ms") is not None] for n in names]
    keep = [(n, d) for n, d in zip(names, data) if d]
    fig, ax = plt.subplots(figsize=(7, 4))
    if keep:
        ax.boxplot([d for _, d in keep], showfliers=True, whis=(5, 95))
        ax.set_xticks(range(1, len(keep) + 1))
        ax.set_xticklabels([n for n, _ in keep], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("search latency per question (ms, log)")
    ax.set_title(f"{summary['benchmark']}: search latency (whiskers p5-p95)")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_report(summary: dict[str, Any], out_dir: str | Path, rows: Sequence[dict[str, Any]] | None = None) -> list[Path]:
    """Write ``report.md`` and the three PNG plots into ``out_dir``; returns the paths written. Without
    matplotlib (the ``eval`` extra) the plots are skipped with a note, and the run's results stand."""
    from ..extras import PLOTS_SKIPPED, can_plot

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if rows is None:
        rows = _read_rows(out / "results.jsonl")
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


def _read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
    return out
