"""``memdesk eval locomo|longmemeval``: the conversational benchmarks from the command line.

The offline run (no ``--llm``) reports retrieval metrics, tokens and latency; ``--llm`` answers
with the configured OpenAI-compatible chat model (``MEMDESK_LLM_BASE_URL``, ``MEMDESK_LLM_MODEL``)
and judges with the benchmark's judge prompts through the same model (or ``--judge-model``).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import click

from ..embed.base import Embedder
from ..errors import ConfigError
from ..llm.base import ChatModel


def _settings(ctx: click.Context):
    obj = ctx.find_root().obj
    if obj is not None and hasattr(obj, "settings"):
        return obj.settings()
    from ..settings import Settings

    return Settings.load()


def _common(f):
    options = [
        click.option("--data", "data_path", default=None, type=click.Path(dir_okay=False),
                     help="Benchmark file (default: the one under the shared data folder)."),
        click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
                     help="Run directory: results.jsonl, summary.json, report.md, plots; reused to resume."),
        click.option("--limit", default=None, type=click.IntRange(min=1),
                     help="A seeded sample of N questions, stratified over categories and conversations."),
        click.option("--seed", default=0, show_default=True, type=int, help="The seed of the --limit sample."),
        click.option("--systems", default=None,
                     help="Comma-separated systems (memdesk-typed, memdesk-untyped, memdesk-hybrid, flat-rag, flat-rag-K50, "
                          "full-context, sweep); default all."),
        click.option("--k", "k", default=20, show_default=True, help="Records per memory type (typed top-k)."),
        click.option("--K", "K", default=25, show_default=True, help="Records kept after merge (K)."),
        click.option("--no-sweep", is_flag=True, help="Skip the k/K sweep of the typed system."),
        click.option("--embedder", type=click.Choice(["minilm", "hashing", "settings"]), default="minilm",
                     show_default=True, help="'settings' uses MEMDESK_EMBEDDER."),
        click.option("--processor", type=click.Choice(["rules", "llm"]), default="rules", show_default=True,
                     help="Processor of the typed store ('llm' needs --llm settings)."),
        click.option("--llm", "use_llm", is_flag=True, help="Answer and judge with the configured chat model."),
        click.option("--judge-model", default=None, help="Judge with this model id on the same endpoint."),
        click.option("--no-json-schema", is_flag=True,
                     help="The endpoint lacks response_format json_schema (e.g. llama-cpp-python): send the "
                          "schema as instructions instead."),
        click.option("--full-context-max-tokens", default=None, type=int,
                     help="Skip answering with full context above this many tokens (small local models)."),
        click.option("--quiet", is_flag=True, help="No progress bars."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _run(ctx: click.Context, benchmark: str, **kw: Any) -> None:
    from ..extras import PLOTS_SKIPPED, can_plot
    from .runner import run_eval

    if not can_plot():  # said before the run starts; the run then writes report.md without plots
        click.echo(PLOTS_SKIPPED, err=True)

    settings = _settings(ctx)
    embedder: Embedder
    if kw["embedder"] == "hashing":
        from ..embed import HashingEmbedder

        embedder = HashingEmbedder()
    elif kw["embedder"] == "settings":
        from ..embed import make_embedder

        embedder = make_embedder(settings)
    else:
        from ..embed import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    chat: ChatModel | None = None
    judge = None
    processor_factory = None
    if kw["use_llm"] or kw["processor"] == "llm":
        from ..llm import make_chat_model

        schema_flag = False if kw["no_json_schema"] else None
        built = make_chat_model(settings, supports_json_schema=schema_flag)
        if built is None:
            raise ConfigError("--llm and --processor llm need MEMDESK_LLM_BASE_URL and MEMDESK_LLM_MODEL")
        chat = built
        if kw["processor"] == "llm":
            from ..conversation.llm_processor import LLMProcessor

            processor_factory = lambda: LLMProcessor(built)
        if kw["use_llm"]:
            from .judging import BenchmarkJudge

            judge_chat: ChatModel = built
            if kw["judge_model"]:
                other = make_chat_model(
                    settings.model_copy(update={"llm_model": kw["judge_model"]}), supports_json_schema=schema_flag
                )
                if other is None:
                    raise ConfigError("--judge-model needs MEMDESK_LLM_BASE_URL")
                judge_chat = other
            judge = BenchmarkJudge(judge_chat, benchmark)
    if not kw["quiet"]:
        logging.basicConfig(level=logging.WARNING)
    summary = run_eval(
        benchmark,  # type: ignore[arg-type]
        kw["data_path"],
        kw["out_dir"],
        systems=kw["systems"].split(",") if kw["systems"] else None,
        limit=kw["limit"],
        seed=kw["seed"],
        llm=chat if kw["use_llm"] else None,
        judge=judge,
        embedder=embedder,
        processor_factory=processor_factory,
        processor_name=kw["processor"],
        k=kw["k"],
        K=kw["K"],
        sweep=not kw["no_sweep"],
        progress=not kw["quiet"],
        full_context_max_tokens=kw["full_context_max_tokens"],
    )
    click.echo(headline(summary))


def headline(summary: dict[str, Any]) -> str:
    """A few lines with the main numbers of a summary."""
    lines = [f"{summary['benchmark']}: {summary['n_questions']} questions"]
    for name, e in summary["systems"].items():
        if e["spec"]["sweep"]:
            continue
        o = e["overall"]
        parts = [f"recall {o['recall']}", f"median tokens {o['median_evidence_tokens']}"]
        sr = o.get("session_recall@10")
        if summary["benchmark"] == "longmemeval" and sr:
            parts.append(f"session recall@10 {sr['fraction']} (any {sr['any']})")
        if o.get("f1") is not None:
            parts.append(f"F1 {o['f1']}")
        if o.get("judge") is not None:
            parts.append(f"judge {o['judge']}")
        lines.append(f"  {name:16s} " + ", ".join(parts))
    lines.append("targets: " + json.dumps(summary.get("targets", {})))
    return "\n".join(lines)


@click.group("eval")
def eval_group() -> None:
    """Conversational benchmarks (LoCoMo, LongMemEval): recall, tokens, latency; answers with --llm."""


@eval_group.command("locomo")
@_common
@click.pass_context
def locomo_cmd(ctx: click.Context, **kw: Any) -> None:
    """Evaluate on LoCoMo (one scope per conversation)."""
    _run(ctx, "locomo", **kw)


@eval_group.command("longmemeval")
@_common
@click.pass_context
def longmemeval_cmd(ctx: click.Context, **kw: Any) -> None:
    """Evaluate on LongMemEval (one scope per question haystack)."""
    _run(ctx, "longmemeval", **kw)


@eval_group.command("report")
@click.argument("out_dir", type=click.Path(exists=True, file_okay=False))
def report_cmd(out_dir: str) -> None:
    """Re-draw report.md and the plots of a run from its summary.json and results.jsonl."""
    from pathlib import Path

    from .report import write_report

    summary = json.loads((Path(out_dir) / "summary.json").read_text(encoding="utf-8"))
    for p in write_report(summary, out_dir):
        click.echo(str(p))
