"""The trust commands of ``memdesk``: ``forget`` (erasing a scope) and what ``delete --all`` shares with it."""

from __future__ import annotations

from typing import Callable

import click

from .clicontext import Ctx, cli_scope, emit_json, json_option, note, scope_options
from .records import Scope
from .store.base import Forgotten


def wildcard_option(f: Callable) -> Callable:
    return click.option(
        "--wildcard", is_flag=True,
        help="Also every scope under a partial one (--user ana: every agent and run of ana). Default: the exact scope.",
    )(f)  # fmt: skip


def report_forgotten(got: Forgotten, scope: Scope, wildcard: bool, as_json: bool) -> None:
    where = f"{'every scope under' if wildcard else 'the exact scope'} {scope}"
    if as_json:
        emit_json({"deleted": got.records, **got.model_dump(), "scope": scope.model_dump(exclude_none=True),
                   "wildcard": wildcard})  # fmt: skip
        return
    click.echo(f"forgot {got.records} memories, {got.messages} messages and {got.history} history entries in {where}")


@click.command()
@scope_options
@wildcard_option
@json_option
@click.pass_obj
def forget_command(obj: Ctx, user_id, agent_id, run_id, wildcard, as_json) -> None:
    """Erase a scope: its memories, every version of them in history, its raw messages and caches.

    Nothing of it stays in the database files (SQLite; on PostgreSQL run VACUUM afterwards). The exact
    scope only, unless --wildcard."""
    mem = obj.memory()
    scope = cli_scope(user_id, agent_id, run_id)
    got = mem.forget(scope, wildcard=wildcard)
    report_forgotten(got, scope, wildcard, as_json)
    if not wildcard and not as_json and mem.store.has_scope(scope):
        note(f"other scopes under {scope} remain (another agent or run); --wildcard forgets them too")
