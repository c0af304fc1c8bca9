"""Reports of reasoning runs: ``summary.json``, ``report.md`` and PNG plots.

- ``accuracy_vs_decode_tokens.png``: one point per run, accuracy against mean decode tokens,
  colour per method, hollow markers without memory and filled with memory, a line joining each
  memory-off run to its memory-on partners;
- ``latency_breakdown.png``: stacked bars per run of T_tag, T_emb, T_search, T_serialize and
  T_prefill + T_decode (or total model time when the split is unknown).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from .harness import RetrievalQuality, RunSummary, write_json


def _fmt(v: float | None, digits: int = 1) -> str:
    return "n/a" if v is None else f"{v:.{digits}f}"


def markdown_report(
    runs: Sequence[RunSummary],
    retrieval: Sequence[RetrievalQuality] = (),
    *,
    title: str = "MAC reasoning evaluation",
    notes: Sequence[str] = (),
) -> str:
    """The report as Markdown: a results table, the latency table and retrieval quality."""
    lines = [f"# {title}", "", f"Generated {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}.", ""]
    lines += [f"- {n}" for n in notes]
    if notes:
        lines.append("")
    if runs:
        models = sorted({r.model or "?" for r in runs})
        lines += [f"Model: {', '.join(models)}", ""]
        lines += [
            "| run | n | accuracy | decode tok | prompt tok | memory tok | truncated | errors | same-group@k | cost $ |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in runs:
            lines.append(
                f"| {r.run_id} | {r.n} | {100 * r.accuracy:.1f}% | {r.mean_decode_tokens:.1f} | {r.mean_prompt_tokens:.1f} | "
                f"{r.mean_memory_tokens:.1f} | {r.truncated} | {r.n_errors} | "
                f"{_fmt(None if r.same_group_at_k is None else 100 * r.same_group_at_k)}{'%' if r.same_group_at_k is not None else ''} | "
                f"{r.cost_usd:.4f} |"
            )
        estimated = sum(r.tokens_estimated for r in runs)
        if estimated:
            lines += [
                "",
                (f"Token counts of {estimated} item(s) are estimates: the server reported no usage (decode tokens "
                "= streamed chunks, prompt tokens = characters / 4)."),
            ]
        lines += ["", "## Latency per query (ms, means)", ""]
        lines += [
            "| run | T_tag | T_emb | T_search | T_serialize | T_prefill | T_decode | model total | end-to-end | split from |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in runs:
            L = r.latency_ms
            split = ", ".join(f"{k}:{v}" for k, v in sorted(r.model_timing.items()))
            lines.append(
                f"| {r.run_id} | {_fmt(L['tag'], 2)} | {_fmt(L['emb'], 2)} | {_fmt(L['search'], 3)} | {_fmt(L['serialize'], 3)} | "
                f"{_fmt(L['prefill'])} | {_fmt(L['decode'])} | {_fmt(L['model'])} | {_fmt(L['end_to_end'])} | {split} |"
            )
        lines.append("")
    if retrieval:
        lines += ["## Retrieval quality (retrieval only)", ""]
        lines += [
            "| bench | retriever | k | queries | groups | same-group@k | top-1 same group | random (1/G) | random (bank prior) | T_emb ms | T_search ms |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for q in retrieval:
            lines.append(
                f"| {q.bench} | {q.retriever} | {q.k} | {q.n_queries} | {q.n_groups} | {100 * q.same_group_at_k:.1f}% | "
                f"{100 * q.top1_same_group:.1f}% | {100 * q.random_uniform:.1f}% | {100 * q.random_bank_prior:.1f}% | "
                f"{q.mean_t_emb_ms:.2f} | {q.mean_t_search_ms:.3f} |"
            )
        lines.append("")
    return "\n".join(lines)


def plot_accuracy_vs_tokens(runs: Sequence[RunSummary], path: Path) -> Path:
    """Accuracy vs mean decode tokens per method, hollow = no memory, filled = memory."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    methods = sorted({r.config.method.value for r in runs})
    colours = {m: plt.get_cmap("tab10")(i % 10) for i, m in enumerate(methods)}
    for r in runs:
        c = colours[r.config.method.value]
        ax.scatter(
            r.mean_decode_tokens, 100 * r.accuracy, s=60, color=c if r.config.memory else "white", edgecolors=[c], linewidths=1.5,
            marker="o" if r.config.memory else "s",
        )  # fmt: skip
        label = f"k={r.config.k},{r.config.format.value}" if r.config.memory else "no mem"
        if r.config.gamma is not None:
            label = f"γ={r.config.gamma:g} " + label
        ax.annotate(label, (r.mean_decode_tokens, 100 * r.accuracy), fontsize=7, xytext=(4, 3), textcoords="offset points")
    for off in (r for r in runs if not r.config.memory):
        for on in runs:
            same = on.config.memory and (on.config.method, on.config.gamma, on.config.temperature) == (
                off.config.method, off.config.gamma, off.config.temperature,
            )  # fmt: skip
            if same:
                ax.plot(
                    [off.mean_decode_tokens, on.mean_decode_tokens], [100 * off.accuracy, 100 * on.accuracy],
                    color=colours[on.config.method.value], alpha=0.4, linewidth=1,
                )  # fmt: skip
    for m in methods:
        ax.scatter([], [], color=colours[m], label=m)
    ax.scatter([], [], color="white", edgecolors="black", marker="s", label="without memory")
    ax.scatter([], [], color="black", marker="o", label="with memory")
    ax.set_xlabel("mean decode tokens per query")
    ax.set_ylabel("accuracy (%)")
    benches = sorted({r.config.bench for r in runs})
    ax.set_title(f"Accuracy vs decode tokens ({', '.join(benches)})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_latency_breakdown(runs: Sequence[RunSummary], path: Path) -> Path:
    """Stacked mean latency per stage for each run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stages = ["tag", "emb", "search", "serialize", "prefill", "decode"]
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(runs) + 2), 4.5))
    bottoms = [0.0] * len(runs)
    xs = list(range(len(runs)))
    for stage in stages + ["model (unsplit)"]:
        values = []
        for r in runs:
            L = r.latency_ms
            split_known = L["prefill"] is not None and L["decode"] is not None
            if stage == "model (unsplit)":
                values.append(0.0 if split_known else (L["model"] or 0.0))
            elif stage in ("prefill", "decode"):
                values.append((L[stage] or 0.0) if split_known else 0.0)
            else:
                values.append(L[stage] or 0.0)
        if any(values):
            ax.bar(xs, values, bottom=bottoms, label=stage)
            bottoms = [b + v for b, v in zip(bottoms, values)]
    ax.set_xticks(xs)
    ax.set_xticklabels([r.run_id for r in runs], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("ms per query (mean)")
    ax.set_title("Latency breakdown")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_outputs(
    out_dir: Path,
    runs: Sequence[RunSummary],
    retrieval: Sequence[RetrievalQuality] = (),
    *,
    extra: dict | None = None,
    notes: Sequence[str] = (),
) -> dict[str, Path]:
    """Write ``summary.json``, ``report.md`` and the plots (plots only when there are model runs, and
    matplotlib, of the ``eval`` extra, is installed: otherwise a note says they were skipped)."""
    from ..runtime.extras import PLOTS_SKIPPED, can_plot

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"summary": out_dir / "summary.json", "report": out_dir / "report.md"}
    write_json(paths["summary"], {"runs": list(runs), "retrieval": list(retrieval), **(extra or {})})
    plots = bool(runs) and can_plot()
    if runs and not plots:
        notes = [*notes, PLOTS_SKIPPED]
    paths["report"].write_text(markdown_report(runs, retrieval, notes=notes) + "\n", encoding="utf-8")
    if plots:
        paths["accuracy_plot"] = plot_accuracy_vs_tokens(runs, out_dir / "accuracy_vs_decode_tokens.png")
        paths["latency_plot"] = plot_latency_breakdown(runs, out_dir / "latency_breakdown.png")
    return paths
