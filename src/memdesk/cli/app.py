"""The ``memdesk`` command line.

Read commands take ``--json``. Errors print one line to stderr and exit non-zero (2 for a caller
mistake, 1 for a runtime failure). Where the database lives is ``--db`` or ``MEMDESK_DATABASE_URL``.
"""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any

import click

from .context import (
    Ctx, answer_json, asked_at_option, cli_scope, emit_json, emit_listing, filter_options, hit_json, item_json, json_option,
    note, parse_time, read_filters, read_path_defaults, scope_options,
)
from .errors import ErrorReportingGroup
from .messages import messages_command
from .models import models_group
from .server import mcp_command, serve_command
from .trust import (
    forget_command,
    keys_group,
    report_forgotten,
    reprocess_command,
    vacuum_command,
    wildcard_option,
    worker_command,
)
from ..errors import InvalidInputError
from ..records import MemoryType
from ..settings import EMBEDDER_NAMES

TYPES = click.Choice([t.value for t in MemoryType])


class MemdeskGroup(ErrorReportingGroup):
    """Reports memdesk errors in one line and closes the memory when the command ends."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        finally:
            obj = ctx.obj
            if isinstance(obj, Ctx):
                obj.close()


@click.group(cls=MemdeskGroup)
@click.option("--db", envvar=None, default=None, help="Database URL (overrides MEMDESK_DATABASE_URL).")
@click.option("--config", "config_file", default=None, type=click.Path(dir_okay=False), help="Config file (TOML).")
@click.version_option(package_name="memdesk")
@click.pass_context
def main(ctx: click.Context, db: str | None, config_file: str | None) -> None:
    """memdesk: typed memory for LLM agents (ENGRAM conversational memory, MAC reasoning memory)."""
    ctx.obj = Ctx(db, config_file)


@main.command()
@json_option
@click.pass_obj
def config(obj: Ctx, as_json: bool) -> None:
    """Show the effective settings (environment, config file, defaults)."""
    eff = obj.settings().effective()
    if as_json:
        emit_json(eff)
        return
    for k, v in eff.items():
        click.echo(f"{k:20s} {v}")


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@scope_options
@click.option("--conversation", "conversation_ids", multiple=True, help="Only these conversation ids (repeatable).")
@click.option("--batch", default=64, show_default=True, type=click.IntRange(min=1), help="Messages per write transaction.")
@json_option
@click.pass_obj
def ingest(obj: Ctx, file: str, user_id, agent_id, run_id, conversation_ids, batch: int, as_json: bool) -> None:
    """Ingest a conversation file (LoCoMo .json or chat .jsonl) into user=<--user>, run=<conversation id>
    (or --run). Prints the scope(s) written; re-running skips messages already stored."""
    from tqdm import tqdm

    from ..conversation.files import read_conversations

    convs = read_conversations(file)
    if conversation_ids:
        missing = set(conversation_ids) - {c.id for c in convs}
        if missing:
            raise InvalidInputError(f"no conversation {sorted(missing)} in {file}")
        convs = [c for c in convs if c.id in conversation_ids]
    mem = obj.memory()
    total = sum(len(c.messages) for c in convs)
    written = []
    with tqdm(total=total, unit="msg", desc="ingest", file=sys.stderr, disable=None) as bar:
        for conv in convs:
            scope = cli_scope(user_id, agent_id, run_id or conv.id)
            counts = {t.value: 0 for t in MemoryType}
            for i in range(0, len(conv.messages), batch):
                chunk = conv.messages[i : i + batch]
                result = mem.add(chunk, scope=scope)
                for t, n in result.counts.items():
                    counts[t] += n
                for warning in result.warnings:
                    bar.write(f"warning: {warning}", file=sys.stderr)
                bar.update(len(chunk))
            written.append({"conversation": conv.id, "scope": scope.model_dump(exclude_none=True),
                            "messages": len(conv.messages), "records": counts})
    if usage := obj.usage_line():
        note(usage)
    if as_json:
        emit_json(written)
        return
    for w in written:
        scope_text = ",".join(f"{k.removesuffix('_id')}={v}" for k, v in w["scope"].items())
        click.echo(
            f"ingested {w['messages']} messages into {scope_text}: "
            + ", ".join(f"{n} {t}" for t, n in w["records"].items())
            + " new records"
        )


@main.command()
@click.argument("text")
@scope_options
@click.option("--speaker", default=None)
@click.option("--timestamp", default=None, help="ISO 8601 time of the message (default: now).")
@json_option
@click.pass_obj
def add(obj: Ctx, text: str, user_id, agent_id, run_id, speaker, timestamp, as_json: bool) -> None:
    """Add one message to memory."""
    ts = parse_time(timestamp) if timestamp else datetime.now().astimezone()
    scope = cli_scope(user_id, agent_id, run_id)
    result = obj.memory().add({"content": text, "speaker": speaker, "timestamp": ts}, scope=scope)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    if as_json:
        emit_json(result.model_dump(mode="json"))
        return
    for mid, mask in result.routes.items():
        click.echo(f"message {mid} -> {scope}, routed {mask} (episodic/semantic/procedural)")
    for r in result.records:
        click.echo(f"  + {r.type:10s} {r.id}  {r.text()}")


_DEFAULTS = read_path_defaults()


@main.command()
@click.argument("query")
@scope_options
@click.option("-k", "k", type=click.IntRange(min=1), default=None,
              help=f"Records retrieved per memory type (default: MEMDESK_TOP_K, else {_DEFAULTS['fused_k']} on the fused "
                   f"read path, {_DEFAULTS['engram_k']} on engram).")
@click.option("-K", "K", type=click.IntRange(min=1), default=None,
              help=f"Records kept after merging (default: MEMDESK_MAX_RECORDS, else {_DEFAULTS['fused_K']} on the fused "
                   f"read path, cut to the token budget; {_DEFAULTS['engram_K']} on engram).")
@click.option("--type", "types", type=TYPES, multiple=True, help="Only these memory types.")
@click.option("--speaker", default=None, help="Search only this speaker's bank.")
@filter_options
@asked_at_option
@json_option
@click.pass_obj
def search(obj: Ctx, query, user_id, agent_id, run_id, k, K, types, speaker, filters, as_of, asked_at, as_json) -> None:
    """Search current memory: top-k per type, merged, de-duplicated, truncated to K."""
    scope = cli_scope(user_id, agent_id, run_id)
    reads = read_filters(filters, as_of)
    hits = obj.memory().search(
        query, scope=scope, k=k, K=K, types=list(types) or None, speaker=speaker, asked_at=asked_at, **reads
    )
    emit_listing(
        hits, scope, as_json, json_of=hit_json,
        line_of=lambda h: f"{h.score:.3f}  {h.type.value:10s} [{h.temporal_anchor}] {h.text}  ({', '.join(h.provenance)})",
    )  # fmt: skip


@main.command()
@click.argument("question")
@scope_options
@click.option("--speaker", default=None, help="Search only this speaker's bank.")
@filter_options
@asked_at_option
@json_option
@click.pass_obj
def ask(obj: Ctx, question, user_id, agent_id, run_id, speaker, filters, as_of, asked_at, as_json) -> None:
    """Answer a question from memory, showing the evidence it stands on."""
    scope = cli_scope(user_id, agent_id, run_id)
    ans = obj.memory().answer(question, scope=scope, speaker=speaker, asked_at=asked_at, **read_filters(filters, as_of))
    if usage := obj.usage_line():
        note(usage)
    if as_json:
        emit_json(answer_json(ans))
        return
    _print_answer(ans)


def _print_answer(ans) -> None:
    label = "best evidence (extractive, no chat model configured)" if ans.extractive else f"answer ({ans.model})"
    click.echo(f"Q: {ans.question}")
    click.echo(f"{label}: {ans.answer}")
    click.echo(f"evidence ({len(ans.evidence.hits)} records, {ans.evidence.tokens} tokens):")
    for line in ans.evidence.text.splitlines()[:8]:
        click.echo(f"  {line}")
    if len(ans.evidence.hits) > 8:
        click.echo(f"  ... {len(ans.evidence.hits) - 8} more")


@main.command("list")
@scope_options
@click.option("--type", "types", type=TYPES, multiple=True)
@click.option("--speaker", default=None)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most this many (default: all).")
@filter_options
@json_option
@click.pass_obj
def list_(obj: Ctx, user_id, agent_id, run_id, types, speaker, limit, filters, as_of, as_json) -> None:
    """List current memories under a scope."""
    scope, wanted, reads = cli_scope(user_id, agent_id, run_id), list(types) or None, read_filters(filters, as_of)
    if limit:
        records = obj.memory().page(scope=scope, types=wanted, speaker=speaker, limit=limit, **reads).items
    else:
        records = obj.memory().get_all(scope=scope, types=wanted, speaker=speaker, **reads)
    emit_listing(
        records, scope, as_json, json_of=item_json,
        line_of=lambda r: f"{r.id}  {r.type:10s} [{r.temporal_anchor}] {r.text()}",
    )  # fmt: skip


@main.command()
@click.argument("record_id", required=False)
@scope_options
@click.option("--all", "all_", is_flag=True, help="Forget everything in the exact scope (see `memdesk forget`).")
@wildcard_option
@json_option
@click.pass_obj
def delete(obj: Ctx, record_id, user_id, agent_id, run_id, all_, wildcard, as_json) -> None:
    """Delete one memory by id under a scope (history keeps it), or --all: forget the exact scope."""
    mem = obj.memory()
    scope = cli_scope(user_id, agent_id, run_id)
    if all_:
        if record_id:
            raise InvalidInputError("give a record id or --all, not both")
        report_forgotten(mem.forget(scope, wildcard=wildcard), scope, wildcard, as_json)
        return
    if wildcard:
        raise InvalidInputError("--wildcard goes with --all")
    if not record_id:
        raise InvalidInputError("give a record id or --all")
    mem.delete(record_id, scope=scope)
    if as_json:
        emit_json({"deleted": 1, "id": record_id})
    else:
        click.echo(f"deleted {record_id}")


@main.command()
@click.argument("record_id")
@scope_options
@json_option
@click.pass_obj
def history(obj: Ctx, record_id, user_id, agent_id, run_id, as_json) -> None:
    """Show every version of a memory under a scope."""
    entries = obj.memory().history(record_id, scope=cli_scope(user_id, agent_id, run_id))
    if as_json:
        emit_json([e.model_dump(mode="json") for e in entries])
        return
    for e in entries:
        text = e.record.text() if e.record is not None else f"(deleted from {e.scope}; its content is not kept)"
        click.echo(f"v{e.version} {e.event.value:6s} {e.changed_at.isoformat()}  {text}")


@main.command()
@click.option(
    "--embedder", type=click.Choice(EMBEDDER_NAMES), required=True,
    help="The new embedder (nomic / gguf: MEMDESK_EMBEDDER_MODEL and friends apply).",
)
@click.option("--embedding-model", default=None, help="Model name for the openai embedder.")
@json_option
@click.pass_obj
def reembed(obj: Ctx, embedder: str, embedding_model: str | None, as_json: bool) -> None:
    """Re-embed every stored vector (memories and collections) with another embedding model.

    Everything is checked before anything is written; an interrupted run resumes when run again."""
    from ..embed import make_embedder
    from ..store.reembed import reembed_store
    from ..store import open_store

    settings = obj.settings().model_copy(update={"embedder": embedder, "embedding_model": embedding_model})
    store = open_store(settings.database_url, busy_timeout_ms=settings.busy_timeout_ms, cache_max_rows=settings.cache_max_rows)
    try:
        n = reembed_store(store, make_embedder(settings))
    finally:
        store.close()
    if as_json:
        emit_json({"reembedded": n, "embedder": embedder, "embedding_model": embedding_model})
    else:
        click.echo(f"re-embedded {n} vectors with {embedder}")


@main.command()
@click.option("--data", "data_path", default=None, type=click.Path(),
              help="A LoCoMo file, or a data folder holding locomo/locomo_dev5.json (default: the packaged sample).")
@click.option("--conversation", default=None, help="LoCoMo conversation id (default: the file's first).")
@click.option("--questions", default=7, show_default=True, type=click.IntRange(min=1), help="How many questions to ask.")
@click.option("--user", "user_id", default="demo", show_default=True, help="user_id of the demo's scope.")
@json_option
@click.pass_obj
def demo(obj: Ctx, data_path: str | None, conversation: str | None, questions: int, user_id: str, as_json: bool) -> None:
    """Ingest a conversation (the packaged sample, or LoCoMo with --data), show what was stored and answer
    questions from memory with their evidence."""
    from .demo import locomo_data, report_lines, run_demo, sample_data

    if data_path is None and conversation is not None:
        raise InvalidInputError("--conversation picks a LoCoMo conversation: give --data too")
    data = sample_data() if data_path is None else locomo_data(data_path, conversation)
    mem = obj.memory()
    say = note if as_json else click.echo
    say(f"database: {obj.settings().database_url}")
    say(f"embedder: {mem.embedder.model_id}; processor: {type(mem.processor).__name__}")
    report = run_demo(mem, data, user_id=user_id, n_questions=questions, progress=say)
    if as_json:
        emit_json(
            {
                **report.model_dump(mode="json", exclude={"answers"}),
                "answers": [
                    {
                        **answer_json(a.answer),
                        "expected": a.question.answer,
                        "gold_ids": a.question.evidence_ids,
                        "gold_retrieved": a.gold_retrieved,
                        "latency_ms": round(a.latency_ms, 2),
                    }
                    for a in report.answers
                ],
            }
        )
        return
    for line in report_lines(report):
        click.echo(line)
    run = "" if report.scope.run_id is None else f" --run {report.scope.run_id}"
    click.echo(f"\nnext: memdesk search --user {report.scope.user_id}{run} \"your question\" (--json for scores and ids)")


def _register_groups() -> None:
    """Attach the evaluation and reasoning-bank command groups, which live beside the code they drive."""
    from ..eval.eval_commands import eval_group
    from ..reasoning.eval_command import reasoning_command
    from ..reasoning.mac_commands import bank_group

    if "reasoning" not in eval_group.commands:
        eval_group.add_command(reasoning_command, "reasoning")
    from .portability import COMMANDS as PORTABILITY  # export, import, copy, backup

    commands = {
        "eval": eval_group, "bank": bank_group, "forget": forget_command, "keys": keys_group,
        "reprocess": reprocess_command, "worker": worker_command, "vacuum": vacuum_command, "serve": serve_command,
        "mcp": mcp_command, "models": models_group, "messages": messages_command, **PORTABILITY,
    }  # fmt: skip
    for name, command in commands.items():
        main.add_command(command, name)


_register_groups()
