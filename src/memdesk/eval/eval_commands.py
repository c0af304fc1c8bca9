"""``memdesk eval locomo|longmemeval|chats``: the conversational benchmarks, and your own chats, from the command line.

The offline run (no ``--llm``) reports retrieval metrics, tokens and latency; ``--llm`` answers
with the configured OpenAI-compatible chat model (``MEMDESK_LLM_BASE_URL``, ``MEMDESK_LLM_MODEL``)
and judges with the benchmark's judge prompts through the same model (or ``--judge-model``).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError

from ..cli.context import Ctx, csv_list
from ..cli.errors import ErrorReportingGroup
from ..errors import ConfigError, MalformedFileError
from ..llm.base import ChatModel
from ..settings import EMBEDDER_NAMES, Settings
from .judging import BenchmarkJudge
from .run import Benchmark
from .summary import EvalSummary, targets


def _settings(ctx: click.Context) -> Settings:
    """The main CLI's settings (its --config and overrides), or ``Settings.load()`` under
    ``python -m memdesk.eval``."""
    obj = ctx.find_root().obj
    return obj.settings() if isinstance(obj, Ctx) else Settings.load()


def _common(f):
    options = [
        click.option("--data", "data_path", default=None, type=click.Path(dir_okay=False),
                     help="Benchmark file (default: the one under the shared data folder)."),
        click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
                     help="Run directory: results.jsonl, summary.json, report.md, plots; reused to resume."),
        click.option("--limit", default=None, type=click.IntRange(min=1),
                     help="A seeded sample of N questions, stratified over categories and conversations."),
        click.option("--categories", default=None,
                     help="Comma-separated categories (question types) to evaluate, or 'headline' for the "
                          "benchmark's headline ones (LoCoMo: 1-4, no adversarial); default all. Applied before "
                          "--limit draws its sample."),
        click.option("--seed", default=0, show_default=True, type=int, help="The seed of the --limit sample."),
        click.option("--systems", default=None,
                     help="Comma-separated systems (memdesk-typed, memdesk-untyped, memdesk-hybrid, memdesk-hybrid-K40, "
                          "flat-rag, flat-rag-K50, full-context, sweep); default all. memdesk-default (what a user "
                          "gets without flags) is always measured."),
        click.option("--k", "k", default=20, show_default=True, help="Records per memory type (typed top-k)."),
        click.option("--K", "K", default=25, show_default=True, help="Records kept after merge (K)."),
        click.option("--no-sweep", is_flag=True, help="Skip the k/K sweep of the typed system."),
        click.option("--embedder", type=click.Choice((*EMBEDDER_NAMES, "settings")), default="minilm",
                     show_default=True, help="'settings' uses MEMDESK_EMBEDDER; 'nomic' is nomic-embed-text-v1.5 "
                                             "(memdesk models install nomic); 'embeddinggemma' is EmbeddingGemma-300M; "
                                             "the others as MEMDESK_EMBEDDER takes them."),
        click.option("--processor", type=click.Choice(["rules", "llm"]), default=None,
                     help="Processor of the typed store (default: MEMDESK_PROCESSOR, i.e. what memdesk-default uses; "
                          "'llm' needs the LLM settings)."),
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


def _run(ctx: click.Context, benchmark: Benchmark, **kw: Any) -> None:
    from ..embed import named_embedder
    from ..runtime.extras import PLOTS_SKIPPED, can_plot
    from ..llm import UsageLedger
    from .run import run_eval

    if not can_plot():  # said before the run starts; the run then writes report.md without plots
        click.echo(PLOTS_SKIPPED, err=True)

    settings = _settings(ctx)
    chat: ChatModel | None = None
    judge: BenchmarkJudge | None = None
    ledger = UsageLedger()
    if kw["use_llm"] or kw["processor"] == "llm":
        from ..llm import make_chat_model

        schema_flag = False if kw["no_json_schema"] else None
        chat = make_chat_model(settings, supports_json_schema=schema_flag, ledger=ledger)
        if chat is None:
            raise ConfigError("--llm and --processor llm need MEMDESK_LLM_BASE_URL and MEMDESK_LLM_MODEL")
        if kw["use_llm"]:
            judge_chat: ChatModel = chat
            if kw["judge_model"]:
                other = make_chat_model(
                    settings.model_copy(update={"llm_model": kw["judge_model"]}), supports_json_schema=schema_flag,
                    ledger=ledger,
                )  # fmt: skip
                if other is None:
                    raise ConfigError("--judge-model needs MEMDESK_LLM_BASE_URL")
                judge_chat = other
            judge = BenchmarkJudge(judge_chat, benchmark)
    if not kw["quiet"]:
        logging.basicConfig(level=logging.WARNING)
    summary = run_eval(
        benchmark,
        kw["data_path"],
        kw["out_dir"],
        settings=settings,
        systems=kw["systems"].split(",") if kw["systems"] else None,
        limit=kw["limit"],
        seed=kw["seed"],
        chat_model=chat if kw["use_llm"] else None,
        judge=judge,
        ledger=ledger,
        embedder=named_embedder(kw["embedder"], settings),
        processor=kw["processor"],
        k=kw["k"],
        K=kw["K"],
        sweep=not kw["no_sweep"],
        progress=not kw["quiet"],
        full_context_max_tokens=kw["full_context_max_tokens"],
        categories=csv_list(kw["categories"]) if kw["categories"] else None,
    )
    click.echo(headline(summary))


def headline(summary: EvalSummary) -> str:
    """A few lines with the main numbers of a summary."""
    lines = [f"{summary.benchmark}: {summary.n_questions} questions"]
    for name, e in summary.systems.items():
        if e.spec.sweep:
            continue
        o = e.overall
        parts = [f"recall {o.recall}", f"P@1 {o.precision_at_1}", f"MRR@10 {o.mrr_at_10}", f"median tokens {o.median_evidence_tokens}"]
        sr = o.session_recall_at.get(10)
        if summary.benchmark == "longmemeval" and sr:
            parts.append(f"session recall@10 {sr.fraction} (any {sr.any})")
        if o.f1 is not None:
            parts.append(f"F1 {o.f1}")
        if o.judge is not None:
            parts.append(f"judge {o.judge}")
        lines.append(f"  {name:16s} " + ", ".join(parts))
    lines.append("targets: " + json.dumps(summary.targets))
    return "\n".join(lines)


@click.group("eval", cls=ErrorReportingGroup)
def eval_group() -> None:
    """Conversational benchmarks (LoCoMo, LongMemEval): recall, tokens, latency; answers with --llm. Your own
    chats: ``eval chats``."""


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
    from .markdown_report import write_report

    path = Path(out_dir) / "summary.json"
    try:
        summary = EvalSummary.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as e:
        raise MalformedFileError(str(path), f"not a run summary ({e})") from e
    summary.targets = targets(summary)  # derived from the systems: a summary written before a target changed is read anew
    for p in write_report(summary, out_dir):
        click.echo(str(p))


@eval_group.command("chats")
@click.option("--data", "data_path", required=True, type=click.Path(dir_okay=False),
              help="A chats JSONL file (format: docs/eval-chats.md).")
@click.option("--out", "out_dir", default=None, type=click.Path(file_okay=False),
              help="Write summary.json, report.md, results.jsonl and scopes.jsonl here.")
@click.option("--db", "db_url", default=None,
              help="Database URL to ingest into (each chat in scope user_id=<chat id>; the scopes must be empty); "
                   "default a temporary SQLite database, deleted afterwards.")
@click.option("--chats", "chat_ids", default=None, help="Comma-separated chat ids: evaluate only these chats of the file.")
@click.option("--json", "as_json", is_flag=True, help="Print summary.json on stdout instead of the headline.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.pass_context
def chats_cmd(
    ctx: click.Context, data_path: str, out_dir: str | None, db_url: str | None, chat_ids: str | None, as_json: bool,
    quiet: bool,
) -> None:
    """Evaluate the configured Memory on your own chats: precision@1, MRR@10, recall in the evidence budget,
    extractive answers, records per message, small-talk records, wrong dates, supersession; by scope size."""
    import tempfile

    from ..conversation.memory import build_memory
    from .chat_run import run_chats
    from .chat_summary import chat_headline, summarize_chats, write_chat_run
    from .datasets.chats import load_chats

    chats = load_chats(data_path).only(csv_list(chat_ids)) if chat_ids else load_chats(data_path)  # before any model loads
    settings = _settings(ctx)
    root = ctx.find_root().obj
    db_url = db_url or (root.db if isinstance(root, Ctx) else None)
    with tempfile.TemporaryDirectory(prefix="memdesk-chats-") as tmp:
        url = db_url or f"sqlite:///{Path(tmp) / 'chats.db'}"
        memory = build_memory(settings.model_copy(update={"database_url": url}))
        try:
            result = run_chats(memory, chats, progress=not quiet)
            config = {
                "database": db_url or "temporary sqlite", "embedder": memory.embedder.model_id,
                "processor": settings.processor, "retrieval": settings.retrieval, "token_budget": settings.token_budget,
            }  # fmt: skip
        finally:
            memory.close()
    summary = summarize_chats(result, data=str(data_path), config=config)
    if out_dir:
        for p in write_chat_run(summary, result, out_dir):
            click.echo(str(p), err=True)
    click.echo(summary.model_dump_json(indent=2) if as_json else chat_headline(summary))
