"""What every ``memdesk`` command shares: the lazily built Memory, the one default scope rule, ``--json``.

**The scope rule.** Every command that names a scope takes ``--user``, ``--agent`` and ``--run``; ``--user``
defaults to ``default``. Writes go to exactly that scope (``memdesk ingest`` adds ``run=<conversation id>``
unless ``--run`` is given); reads look under it, with an unset ``--agent``/``--run`` matching any. So
``memdesk ingest chat.jsonl`` followed by ``memdesk search QUERY`` finds what was ingested, and a scope that
holds nothing reads as empty (no results, ``[]`` with ``--json``), not as an error.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Callable, Sequence, TypeVar

import click

from ..errors import InvalidInputError
from ..records import Scope

T = TypeVar("T")

DEFAULT_USER = "default"


class Ctx:
    """The command's settings and its Memory (built on first use, closed when the command ends)."""

    def __init__(self, db: str | None, config: str | None) -> None:
        self.db = db
        self.config = config
        self._memory = None
        self._settings = None

    def settings(self):
        """The command's settings, loaded (and checked: see :meth:`Settings.load`) once."""
        if self._settings is None:
            from ..settings import Settings

            self._settings = Settings.load(self.config, warn=lambda w: note(f"warning: {w}"), database_url=self.db)
        return self._settings

    def memory(self):
        if self._memory is None:
            from ..conversation.memory import build_memory

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
    """``--user`` (default ``default``), ``--agent``, ``--run``."""
    f = click.option("--run", "run_id", default=None, help="run_id of the scope (reads: any run when unset).")(f)
    f = click.option("--agent", "agent_id", default=None, help="agent_id of the scope (reads: any agent when unset).")(f)
    f = click.option("--user", "user_id", default=None, help=f"user_id of the scope (default: {DEFAULT_USER!r}).")(f)
    return f


def cli_scope(user_id: str | None, agent_id: str | None = None, run_id: str | None = None) -> Scope:
    """The one default scope rule of the command line (see the module docstring)."""
    return Scope(user_id=user_id or DEFAULT_USER, agent_id=agent_id, run_id=run_id)


def read_path_defaults() -> dict[str, int]:
    """k and K of each read path as the retriever really defaults them (for help texts)."""
    import inspect

    from ..retrieval.retrieve import Retriever

    fused = inspect.signature(Retriever.fused).parameters
    engram = inspect.signature(Retriever.__init__).parameters
    return {"fused_k": fused["k"].default, "fused_K": fused["K"].default,
            "engram_k": engram["k"].default, "engram_K": engram["K"].default}


def json_option(f: Callable) -> Callable:
    return click.option("--json", "as_json", is_flag=True, help="Machine-readable output (JSON on stdout).")(f)


def filter_options(fn: Callable) -> Callable:
    """``--as-of`` and ``--filter`` (a RecordFilter's fields as JSON) for the read commands."""
    fn = click.option("--filter", "filters", default=None, help='Conditions as JSON, e.g. \'{"metadata": {"app": "web"}}\'.')(fn)
    return click.option("--as-of", "as_of", default=None, help="Read memory as it stood at this ISO 8601 time.")(fn)


def read_filters(filters: str | None, as_of: str | None) -> dict:
    """Memory's ``filters`` / ``as_of`` arguments from the command line."""
    out: dict = {"as_of": parse_time(as_of) if as_of else None, "filters": None}
    if filters:
        try:
            out["filters"] = json.loads(filters)
        except ValueError as e:
            raise InvalidInputError(f"--filter is not JSON: {e}") from None
    return out


def asked_at_option(fn: Callable) -> Callable:
    """``--asked-at``: when the question is asked (default now), for its "yesterday" or "two weeks ago"."""
    return click.option(
        "--asked-at", "asked_at", default=None, callback=lambda _ctx, _param, v: parse_time(v) if v else None,
        help="When the question is asked, ISO 8601 (default now): dates its 'two weeks ago'.",
    )(fn)


def parse_time(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError as e:
        raise InvalidInputError(f"bad time {text!r}: use ISO 8601, e.g. 2024-05-01T10:00:00") from e


def csv_list(value: str | None, cast: Callable[[str], Any] = str) -> list[Any]:
    """A comma-separated option as a list (items stripped, empty ones dropped; [] for None or "")."""
    return [cast(v.strip()) for v in value.split(",") if v.strip()] if value else []


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, default=str, ensure_ascii=False))


def note(text: str) -> None:
    """A line for the person at the terminal (stderr), never mixed into results on stdout."""
    click.echo(text, err=True)


def emit_listing(
    items: Sequence[T], scope: Scope, as_json: bool, *, json_of: Callable[[T], Any], line_of: Callable[[T], str]
) -> None:
    """Memories found under ``scope`` on stdout: with ``--json`` a list of ``json_of`` each, else one
    ``line_of`` each (and a note on stderr when there are none)."""
    if as_json:
        emit_json([json_of(i) for i in items])
        return
    if not items:
        note(f"no memories under {scope}")
    for i in items:
        click.echo(line_of(i))


def hit_json(h) -> dict:
    """A search hit as the command line prints it with ``--json``: the JSON every face gives (:mod:`memdesk.hits`)."""
    return h.model_dump(mode="json")


def item_json(record) -> dict:
    """A memory as ``list --json`` prints it: the item every face lists (:class:`~memdesk.hits.MemoryItem`)."""
    from ..hits import MemoryItem

    return MemoryItem.of(record).model_dump(mode="json")


def answer_json(ans) -> dict:
    return {
        "question": ans.question,
        "answer": ans.answer,
        "extractive": ans.extractive,
        "model": ans.model,
        "evidence_tokens": ans.evidence.tokens,
        "evidence": [hit_json(h) for h in ans.evidence.hits],
    }
