"""The trust commands of ``memdesk``: ``forget`` (erasing a scope, and what ``delete --all`` shares with it),
``vacuum`` (rewriting the database so no free space keeps deleted text), ``keys`` (tenant API keys) and
``reprocess`` (the messages kept pending when processing them failed) and ``worker`` (a process that
processes every scope's pending messages, e.g. those added with ``wait=False``)."""

from __future__ import annotations

import contextlib
import json
import signal
import threading
from typing import Callable

import click

from .context import Ctx, cli_scope, emit_json, json_option, note, scope_options
from ..errors import InvalidInputError
from ..records import Scope
from ..store.base import Forgotten
from ..tenants import ApiKeyInfo, Tenant


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
    revoked = f"; revoked {got.keys} API keys bound to it" if got.keys else ""
    click.echo(f"forgot {got.records} memories, {got.messages} messages and {got.history} history entries in {where}{revoked}")


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


@click.command("reprocess")
@scope_options
@wildcard_option
@json_option
@click.pass_obj
def reprocess_command(obj: Ctx, user_id, agent_id, run_id, wildcard, as_json) -> None:
    """Process the messages kept pending in the raw log (their processing failed, e.g. the LLM timed out).

    The exact scope only, unless --wildcard; in log order, each message once. If processing fails
    again they stay pending and the command fails with the error."""
    scope = cli_scope(user_id, agent_id, run_id)
    done = obj.memory().reprocess(scope, wildcard=wildcard)
    if as_json:
        emit_json({**done.model_dump(), "scope": scope.model_dump(exclude_none=True), "wildcard": wildcard})
        return
    where = f"{'every scope under' if wildcard else 'the exact scope'} {scope}"
    click.echo(f"processed {done.messages} pending messages into {done.records} memories in {where}; {done.pending} still pending")


@click.command("worker")
@click.option("--interval", type=click.FloatRange(min=0.05), default=2.0, show_default=True,
              help="Seconds between two looks for pending messages.")  # fmt: skip
@click.option("--once", is_flag=True, help="One pass, then exit (1 if a scope failed).")
@json_option
@click.pass_obj
def worker_command(obj: Ctx, interval, once, as_json) -> None:
    """Process the pending messages of every scope in the database, until stopped (Ctrl-C or SIGTERM).

    Pending messages are those added with wait=False (HTTP `"wait": false`) or whose processing failed.
    Several workers and servers may share one database: each message is processed once (the store's claim).
    A scope whose processing fails keeps its messages pending and is tried again on the next pass."""
    from ..conversation.ingest import process_pending

    memory = obj.memory()
    stop = threading.Event()
    if not once:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        note(f"memdesk worker: processing pending messages every {interval:g} s (Ctrl-C stops)")
    while True:
        done = process_pending(memory)
        if as_json and once:
            emit_json(done.model_dump())
        elif as_json and done.scopes:
            click.echo(json.dumps(done.model_dump()))  # one line per pass that found something
        elif not as_json and (done.scopes or once):
            failed = f"; {len(done.failed)} scopes failed and stay pending: " + "; ".join(
                f"{scope}: {why}" for scope, why in done.failed.items()
            ) if done.failed else ""
            click.echo(f"processed {done.messages} pending messages into {done.records} memories in {done.scopes} scopes{failed}")
        if once:
            if done.failed:
                raise SystemExit(1)
            return
        if stop.wait(interval):
            return


@click.command("vacuum")
@json_option
@click.pass_obj
def vacuum_command(obj: Ctx, as_json) -> None:
    """Rewrite the database so that no free space keeps deleted text.

    For a database used before memdesk erased completely (SQLite without secure_delete, history that kept
    deleted records' content): their deleted bytes may remain in free pages until this runs. On PostgreSQL
    it is the VACUUM FULL to run after a forget. It rewrites every table and holds the write lock meanwhile."""
    from ..text.redaction import mask_secrets

    url = obj.settings().database_url
    with _store(obj) as store:
        store.vacuum()
    if as_json:
        emit_json({"vacuumed": mask_secrets(url)})
    else:
        click.echo(f"vacuumed {mask_secrets(url)}")


@click.group("keys")
def keys_group() -> None:
    """Tenant API keys for `memdesk serve`: each reaches one user's (or one agent's) scopes only.

    Keys are stored as SHA-256 digests in the database; a new key is printed once."""


def _store(obj: Ctx):  # the key and vacuum commands need the database only (no embedding model)
    from ..store import open_store

    s = obj.settings()
    return contextlib.closing(open_store(s.database_url, busy_timeout_ms=s.busy_timeout_ms))


def _key_json(info: ApiKeyInfo) -> dict:
    return {"key_id": info.key_id, "name": info.name, **info.tenant.model_dump(), "created_at": info.created_at,
            "last_used_at": info.last_used_at}  # fmt: skip


@keys_group.command("create")
@click.option("--user", "user_id", required=True, help="The user the key is bound to.")
@click.option("--agent", "agent_id", default=None, help="Bind the key to one agent of the user too.")
@click.option("--name", default=None, help="A name to recognise the key by in `memdesk keys list`.")
@json_option
@click.pass_obj
def create_key(obj: Ctx, user_id, agent_id, name, as_json) -> None:
    """Create a key for a tenant and print it (this once: only its digest is stored)."""
    tenant = Tenant(user_id=user_id, agent_id=agent_id)
    with _store(obj) as store:
        made = store.create_key(tenant, name)
    if as_json:
        emit_json({"key": made.key, **_key_json(made.info)})
        return
    click.echo(made.key)
    note(f"key {made.info.key_id} for {tenant.scope()}: shown once; keep it now")


@keys_group.command("list")
@click.option("--user", "user_id", default=None, help="Only this user's keys.")
@json_option
@click.pass_obj
def list_keys(obj: Ctx, user_id, as_json) -> None:
    """The tenant keys (ids, tenants, names, created and last-used times; never the keys)."""
    with _store(obj) as store:
        infos = store.keys(user_id)
    if as_json:
        emit_json([_key_json(i) for i in infos])
        return
    if not infos:
        note("no tenant keys")
    for i in infos:
        used = i.last_used_at.isoformat(timespec="seconds") if i.last_used_at else "never used"
        click.echo(f"{i.key_id}  {i.tenant.scope()}  {i.name or '-'}  created {i.created_at.isoformat(timespec='seconds')}  {used}")


@keys_group.command("revoke")
@click.argument("key_id")
@json_option
@click.pass_obj
def revoke_key(obj: Ctx, key_id, as_json) -> None:
    """Revoke a key by its id: requests carrying it get 401 from then on."""
    with _store(obj) as store:
        if not store.revoke_key(key_id):
            raise InvalidInputError(f"no tenant key with id {key_id!r} (see `memdesk keys list`)")
    if as_json:
        emit_json({"revoked": key_id})
    else:
        click.echo(f"revoked {key_id}")
