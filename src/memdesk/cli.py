"""The ``memdesk`` command line.

Read commands take ``--json``. Errors print one line to stderr and exit non-zero (2 for a caller
mistake, 1 for a runtime failure). Where the database lives is ``--db`` or ``MEMDESK_DATABASE_URL``.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Any, Callable

import click

from .clierrors import ErrorReportingGroup
from .errors import InvalidInputError
from .records import MemoryType, Scope

TYPES = click.Choice([t.value for t in MemoryType])


class Ctx:
    def __init__(self, db: str | None, config: str | None) -> None:
        self.db = db
        self.config = config
        self._memory = None

    def settings(self):
        from .settings import Settings

        return Settings.load(self.config, database_url=self.db)

    def memory(self):
        if self._memory is None:
            from .factory import build_memory

            self._memory = build_memory(self.settings())
        return self._memory

    def usage_line(self) -> str | None:
        """Tokens, latency and cost per operation of the chat model used by this command, if any."""
        if self._memory is None:
            return None
        for part in (self._memory.answerer, self._memory.processor):
            ledger = getattr(getattr(part, "chat_model", None), "ledger", None)
            if ledger is not None and ledger.total().calls:
                return "llm usage: " + "; ".join(
                    f"{op} {u.calls} calls, {u.prompt_tokens}+{u.completion_tokens} tokens, "
                    f"{u.latency_s:.1f}s, ${u.cost_usd:.4f}"
                    for op, u in ledger.by_operation().items()
                )
        return None

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()


def scope_options(f: Callable) -> Callable:
    f = click.option("--run", "run_id", default=None, help="run_id of the scope.")(f)
    f = click.option("--agent", "agent_id", default=None, help="agent_id of the scope.")(f)
    f = click.option("--user", "user_id", default=None, help="user_id of the scope (default: 'default' when no id is given).")(f)
    return f


def make_scope(user_id: str | None, agent_id: str | None, run_id: str | None) -> Scope:
    if user_id is None and agent_id is None and run_id is None:
        user_id = "default"
    return Scope(user_id=user_id, agent_id=agent_id, run_id=run_id)


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, default=str, ensure_ascii=False))


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
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
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
@click.argument("file", type=click.Path(dir_okay=False))
@scope_options
@click.option("--conversation", "conversation_ids", multiple=True, help="Only these conversation ids (repeatable).")
@click.option("--batch", default=64, show_default=True, help="Messages per write transaction.")
@click.pass_obj
def ingest(obj: Ctx, file: str, user_id, agent_id, run_id, conversation_ids, batch: int) -> None:
    """Ingest a conversation file (LoCoMo .json or chat .jsonl). Each conversation goes into
    run_id=<conversation id> unless --run is given. Re-running skips messages already stored."""
    from tqdm import tqdm

    from .conversation.files import read_conversations

    convs = read_conversations(file)
    if conversation_ids:
        missing = set(conversation_ids) - {c.id for c in convs}
        if missing:
            raise InvalidInputError(f"no conversation {sorted(missing)} in {file}")
        convs = [c for c in convs if c.id in conversation_ids]
    mem = obj.memory()
    total = sum(len(c.messages) for c in convs)
    counts = {t.value: 0 for t in MemoryType}
    with tqdm(total=total, unit="msg", desc="ingest", file=sys.stderr, disable=None) as bar:
        for conv in convs:
            scope = make_scope(user_id, agent_id, run_id or conv.id)
            for i in range(0, len(conv.messages), batch):
                chunk = conv.messages[i : i + batch]
                result = mem.add(chunk, scope=scope)
                for t, n in result.counts.items():
                    counts[t] += n
                bar.update(len(chunk))
    click.echo(
        f"ingested {total} messages from {len(convs)} conversation(s): "
        + ", ".join(f"{n} {t}" for t, n in counts.items())
        + " records"
    )
    if usage := obj.usage_line():
        click.echo(usage, err=True)


@main.command()
@click.argument("text")
@scope_options
@click.option("--speaker", default=None)
@click.option("--timestamp", default=None, help="ISO 8601 time of the message (default: now).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def add(obj: Ctx, text: str, user_id, agent_id, run_id, speaker, timestamp, as_json: bool) -> None:
    """Add one message to memory."""
    ts = _parse_time(timestamp) if timestamp else datetime.now().astimezone()
    result = obj.memory().add(
        {"content": text, "speaker": speaker, "timestamp": ts}, scope=make_scope(user_id, agent_id, run_id)
    )
    if as_json:
        emit_json(result.model_dump(mode="json"))
        return
    for mid, mask in result.routes.items():
        click.echo(f"message {mid} routed {mask} (episodic/semantic/procedural)")
    for r in result.records:
        click.echo(f"  + {r.type:10s} {r.id}  {r.embed_text()}")


def _parse_time(s: str) -> datetime:
    try:
        return datetime.fromisoformat(s)
    except ValueError as e:
        raise InvalidInputError(f"bad timestamp {s!r}: use ISO 8601, e.g. 2024-05-01T10:00:00") from e


def _hit_json(h) -> dict:
    return {
        "id": h.record.id,
        "type": h.memory_type.value,
        "score": round(h.score, 6),
        "why": h.why,
        "text": h.record.embed_text(),
        "speaker": h.record.speaker,
        "temporal_anchor": h.record.temporal_anchor,
        "provenance": h.record.provenance,
    }


@main.command()
@click.argument("query")
@scope_options
@click.option("-k", "k", type=int, default=None, help="Top-k per memory type (default 20).")
@click.option("-K", "K", type=int, default=None, help="Records kept after merging (default 25).")
@click.option("--type", "types", type=TYPES, multiple=True, help="Only these memory types.")
@click.option("--speaker", default=None, help="Search only this speaker's bank.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def search(obj: Ctx, query, user_id, agent_id, run_id, k, K, types, speaker, as_json) -> None:
    """Search memory: top-k per type, merged, de-duplicated, truncated to K."""
    hits = obj.memory().search(
        query, scope=make_scope(user_id, agent_id, run_id), k=k, K=K, types=list(types) or None, speaker=speaker
    )
    if as_json:
        emit_json([_hit_json(h) for h in hits])
        return
    for h in hits:
        click.echo(f"{h.score:.3f}  {h.memory_type.value:10s} [{h.record.temporal_anchor}] {h.record.embed_text()}  ({', '.join(h.record.provenance)})")


@main.command()
@click.argument("question")
@scope_options
@click.option("--speaker", default=None, help="Search only this speaker's bank.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def ask(obj: Ctx, question, user_id, agent_id, run_id, speaker, as_json) -> None:
    """Answer a question from memory, showing the evidence it stands on."""
    ans = obj.memory().answer(question, scope=make_scope(user_id, agent_id, run_id), speaker=speaker)
    if as_json:
        emit_json(
            {
                "question": ans.question,
                "answer": ans.answer,
                "extractive": ans.extractive,
                "model": ans.model,
                "evidence_tokens": ans.evidence.tokens,
                "evidence": [_hit_json(h) for h in ans.evidence.hits],
            }
        )
        return
    _print_answer(ans)
    if usage := obj.usage_line():
        click.echo(usage, err=True)


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
@click.option("--limit", type=int, default=None)
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def list_(obj: Ctx, user_id, agent_id, run_id, types, speaker, limit, as_json) -> None:
    """List stored memories under a scope."""
    records = obj.memory().get_all(scope=make_scope(user_id, agent_id, run_id), types=list(types) or None, speaker=speaker)
    records = records[:limit] if limit else records
    if as_json:
        emit_json([r.model_dump(mode="json") for r in records])
        return
    for r in records:
        click.echo(f"{r.id}  {r.type:10s} [{r.temporal_anchor}] {r.embed_text()}")


@main.command()
@click.argument("record_id", required=False)
@scope_options
@click.option("--all", "all_", is_flag=True, help="Delete everything under the scope.")
@click.pass_obj
def delete(obj: Ctx, record_id, user_id, agent_id, run_id, all_) -> None:
    """Delete one memory by id, or --all under a scope (history keeps what was deleted)."""
    mem = obj.memory()
    if all_:
        if record_id:
            raise InvalidInputError("give a record id or --all, not both")
        n = mem.delete_all(scope=make_scope(user_id, agent_id, run_id))
        click.echo(f"deleted {n} memories")
        return
    if not record_id:
        raise InvalidInputError("give a record id or --all")
    mem.delete(record_id)
    click.echo(f"deleted {record_id}")


@main.command()
@click.argument("record_id")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def history(obj: Ctx, record_id, as_json) -> None:
    """Show every version of a memory."""
    entries = obj.memory().history(record_id)
    if as_json:
        emit_json([e.model_dump(mode="json") for e in entries])
        return
    for e in entries:
        click.echo(f"v{e.version} {e.event.value:6s} {e.changed_at.isoformat()}  {e.record.embed_text()}")


@main.command()
@click.option("--embedder", type=click.Choice(["minilm", "hashing", "openai"]), required=True, help="The new embedder.")
@click.option("--embedding-model", default=None, help="Model name for the openai embedder.")
@click.pass_obj
def reembed(obj: Ctx, embedder: str, embedding_model: str | None) -> None:
    """Re-embed every stored record with another embedding model (atomic per memory type)."""
    from .embed import make_embedder
    from .reembed import reembed_store
    from .store import open_store

    settings = obj.settings().model_copy(update={"embedder": embedder, "embedding_model": embedding_model})
    store = open_store(settings.database_url, busy_timeout_ms=settings.busy_timeout_ms, cache_max_rows=settings.cache_max_rows)
    try:
        n = reembed_store(store, make_embedder(settings))
    finally:
        store.close()
    click.echo(f"re-embedded {n} records with {embedder}")


@main.command()
@click.option("--data", "data_dir", default=None, type=click.Path(file_okay=False), help="Benchmark data folder.")
@click.option("--conversation", default="conv-26", show_default=True)
@click.option("--questions", default=5, show_default=True, help="How many LoCoMo questions to ask.")
@click.pass_obj
def demo(obj: Ctx, data_dir: str | None, conversation: str, questions: int) -> None:
    """Ingest a real LoCoMo conversation and answer questions from memory, showing the evidence."""
    from .demo import run_demo

    run_demo(obj, data_dir=data_dir, conversation=conversation, n_questions=questions, echo=click.echo)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--mcp/--no-mcp", "with_mcp", default=True, show_default=True, help="Also serve MCP at /mcp.")
@click.option(
    "--no-auth", "no_auth", is_flag=True,
    help="Allow listening beyond loopback without API keys (MEMDESK_API_KEYS unset). Do not use on a network.",
)
@click.option("--log-level", default="info", show_default=True, type=click.Choice(["debug", "info", "warning", "error"]))
@click.pass_obj
def serve(obj: Ctx, host: str, port: int, with_mcp: bool, no_auth: bool, log_level: str) -> None:
    """Serve the HTTP API (OpenAPI at /docs) and the MCP endpoint, keyed by MEMDESK_API_KEYS."""
    from .errors import ConfigError

    try:
        import uvicorn

        from .server import ApiKeys, create_app
        from .server.auth import LOOPBACK_HOSTS
    except ImportError as e:
        raise ConfigError(f"`memdesk serve` needs the server extra: pip install 'memdesk[server]' ({e})") from e
    settings = obj.settings()
    keys = ApiKeys.parse(settings.api_keys.get_secret_value() if settings.api_keys else None)
    if not keys.required and host not in LOOPBACK_HOSTS and not no_auth:
        raise ConfigError(
            f"refusing to listen on {host} without API keys: set MEMDESK_API_KEYS, listen on 127.0.0.1, or pass --no-auth"
        )
    from .server.mcp_tools import MCPServer

    with_mcp = with_mcp and MCPServer is not None
    # without keys a loopback server answers only loopback Host names (DNS-rebinding protection);
    # --no-auth on another address is the user's explicit choice to answer anyone
    hosts = ["*"] if no_auth and host not in LOOPBACK_HOSTS else None
    app = create_app(obj.memory(), api_keys=keys, mcp=with_mcp, allowed_hosts=hosts)
    auth = "API keys required" if keys.required else "no authentication"
    click.echo(f"memdesk on http://{host}:{port} ({auth}; docs at /docs{', MCP at /mcp' if with_mcp else ''})", err=True)
    uvicorn.run(app, host=host, port=port, log_level=log_level)


@main.command("mcp")
@click.pass_obj
def mcp_stdio(obj: Ctx) -> None:
    """Serve the MCP tools over stdio (for agent hosts that launch memdesk as a subprocess)."""
    from .errors import ConfigError

    try:
        from .server.mcp_tools import create_mcp_server
    except ImportError as e:  # pragma: no cover - only without the extra
        raise ConfigError(f"`memdesk mcp` needs the server extra: pip install 'memdesk[server]' ({e})") from e
    create_mcp_server(obj.memory()).run("stdio")


def _register_groups() -> None:
    """Attach the evaluation and reasoning-bank command groups, which live beside the code they drive."""
    from .eval.cli import eval_group
    from .reasoning.cli import bank_group, reasoning_command

    if "reasoning" not in eval_group.commands:
        eval_group.add_command(reasoning_command, "reasoning")
    main.add_command(eval_group, "eval")
    main.add_command(bank_group, "bank")


_register_groups()
