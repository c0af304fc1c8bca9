"""``memdesk messages``: the raw message log of a scope, a page at a time.

Every message ever added is in the log, routed or not (``memdesk list`` shows the memories made from them):
its time, role, speaker, status (``pending``: logged, not processed yet, e.g. added with ``wait=False`` or kept
when processing failed; ``processed``: its route mask says where it went; ``logged``: raw log only) and content.
The scope rule is every command's (:mod:`memdesk.cli.context`): ``--user`` defaults to ``default``, an unset
``--agent`` / ``--run`` reads every agent / run under it.
"""

from __future__ import annotations

from typing import Any

import click

from .context import Ctx, cli_scope, emit_json, json_option, note, scope_options
from ..errors import InvalidInputError
from ..records import RawMessage, Scope
from ..store.base import Page

__all__ = ["messages_command"]


@click.command("messages")
@scope_options
@click.option("--pending", is_flag=True, help="Only the messages not processed yet (see `memdesk reprocess`).")
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True, help="Messages per page.")
@click.option("--cursor", default=None, help="Read on after the page that printed this cursor.")
@json_option
@click.pass_obj
def messages_command(obj: Ctx, user_id, agent_id, run_id, pending: bool, limit: int, cursor: str | None, as_json: bool) -> None:
    """List the raw message log under a scope, oldest first: time, status, role, speaker and content.

    With --json: {"messages": [...], "next_cursor": ...}; pass next_cursor as --cursor for the next page."""
    scope = cli_scope(user_id, agent_id, run_id)
    store = obj.memory().store
    page = pending_page(store.pending_messages(scope), limit, cursor) if pending else store.message_page(
        scope, limit=limit, cursor=cursor
    )
    if as_json:
        emit_json({"messages": [message_json(m) for m in page.items], "next_cursor": page.next_cursor})
        return
    if not page.items:
        note(f"no {'pending ' if pending else ''}messages under {scope}")
    for m in page.items:
        click.echo(message_line(m))
    if page.next_cursor is not None:
        note(f"more: memdesk messages {_scope_args(scope)}{' --pending' if pending else ''} --cursor {page.next_cursor}")


def pending_page(messages: list[RawMessage], limit: int, cursor: str | None) -> Page[RawMessage]:
    """A page of the pending messages (few: those not processed yet); the cursor is the last id shown."""
    start = 0
    if cursor is not None:
        ids = [m.id for m in messages]
        if cursor not in ids:
            raise InvalidInputError(f"--cursor {cursor!r} is not a message of this listing (it may have been processed since)")
        start = ids.index(cursor) + 1
    items = messages[start : start + limit]
    more = start + limit < len(messages)
    return Page(items=items, next_cursor=items[-1].id if more and items else None)


def message_json(m: RawMessage) -> dict[str, Any]:
    """A message as ``--json`` prints it: as ``GET /v1/messages`` gives it (with its ``status``)."""
    return m.model_dump(mode="json")


def message_line(m: RawMessage) -> str:
    when = (m.timestamp or m.ingest_time).isoformat(timespec="seconds")
    who = f"{m.role}" + (f" {m.speaker}" if m.speaker else "")
    source = f" via {m.source}" if m.source not in (None, "chat") else ""
    content = " ".join(m.content.split())
    return f"{when}  {m.status:9s} {who}{source}: {content}  [{m.id}]"


def _scope_args(scope: Scope) -> str:
    flags = {"user_id": "--user", "agent_id": "--agent", "run_id": "--run"}
    return " ".join(f"{flags[k]} {v}" for k, v in scope.model_dump(exclude_none=True).items())
