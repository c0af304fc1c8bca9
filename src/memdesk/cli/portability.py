"""The portability commands of ``memdesk``: ``export`` and ``import`` (a scope to a file and back, into any
backend), ``copy`` (a whole database onto another, SQLite ↔ PostgreSQL) and ``backup`` (a consistent copy of a
live SQLite store). See docs/portability.md."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path

import click

from .context import Ctx, cli_scope, emit_json, json_option, note, scope_options
from .trust import wildcard_option
from ..errors import InvalidInputError
from ..store.portable import ON_CONFLICT


@click.command("export")
@scope_options
@wildcard_option
@click.option("-o", "--output", "output", default=None, type=click.Path(dir_okay=False),
              help="The file to write (default: standard output).")  # fmt: skip
@click.option("--vectors", is_flag=True, help="Include the vectors and the embedder's identity (else import re-embeds).")
@click.pass_obj
def export_command(obj: Ctx, user_id, agent_id, run_id, wildcard, output, vectors) -> None:
    """Export a scope to a JSON Lines file: its memories with every version of their history, raw messages with
    their status, and the reasoning banks it owns. The exact scope only, unless --wildcard."""
    scope = cli_scope(user_id, agent_id, run_id)
    if output is not None and Path(output).exists():
        raise InvalidInputError(f"{output} exists: give a new file name")
    with (open(output, "x", encoding="utf-8") if output else nullcontext(sys.stdout)) as out:
        counts = obj.memory().export(scope, out, wildcard=wildcard, vectors=vectors)
    where = f"{'every scope under' if wildcard else 'the exact scope'} {scope}"
    note(f"exported {counts.records} memories ({counts.history} history entries, {counts.deleted} deleted), "
         f"{counts.messages} messages ({counts.pending} pending), {counts.banks} banks of {where}"
         + (f" to {output}" if output else ""))  # fmt: skip


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--on-conflict", type=click.Choice(ON_CONFLICT), default="fail", show_default=True,
              help="What to do with a record, message or bank the store already holds.")  # fmt: skip
@json_option
@click.pass_obj
def import_command(obj: Ctx, file, on_conflict, as_json) -> None:
    """Restore an export file into this database (any backend), keeping ids, times and history."""
    result = obj.memory().import_(file, on_conflict=on_conflict)
    if as_json:
        emit_json(result.model_dump())
        return
    how = "re-embedded" if result.reembedded else "with the file's vectors"
    click.echo(f"imported {result.records} memories ({result.history} history entries), {result.messages} messages, "
               f"{result.banks} banks ({result.bank_items} examples), {how}; "
               f"{result.skipped} skipped, {result.replaced} replaced")  # fmt: skip


@click.command("copy")
@click.argument("src_url")
@click.argument("dst_url")
@click.option("--no-verify", is_flag=True, help="Skip the final comparison of counts and checksums.")
@json_option
def copy_command(src_url, dst_url, no_verify, as_json) -> None:
    """Copy a whole database onto another (e.g. sqlite:///memdesk.db postgresql://...), in batches; run it again
    to resume an interrupted copy. Both are compared by counts and checksums at the end."""
    from tqdm import tqdm

    from ..portability.copy import copy_store, vector_indexes
    from ..store import open_store

    if src_url == dst_url:
        raise InvalidInputError("the source and the destination are the same database")
    src = open_store(src_url)
    try:
        dst = open_store(dst_url)
        try:
            total = src.count()
            with tqdm(total=total, unit="rec", desc="copy", file=sys.stderr, disable=None) as bar:
                def progress(kind: str, n: int) -> None:
                    if kind == "records":
                        bar.update(n)
                    else:
                        bar.set_postfix_str(kind)
                result = copy_store(src, dst, progress=progress, verify=not no_verify, index=vector_indexes(dst))
        finally:
            dst.close()
    finally:
        src.close()
    if as_json:
        emit_json(result.model_dump())
        return
    click.echo("copied " + ", ".join(f"{n} {k}" for k, n in result.written.items()) + f"; {result.skipped} already there"
               + (f"; built {len(result.indexes)} vector indexes" if result.indexes else ""))  # fmt: skip
    if not no_verify:
        click.echo("verified: " + ", ".join(f"{n} {k}" for k, n in sorted(result.destination.counts.items()))
                   + " (counts and checksums equal)")  # fmt: skip


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_obj
def backup_command(obj: Ctx, file) -> None:
    """Write a consistent copy of the (live) SQLite database to FILE, with SQLite's online backup."""
    from ..portability.backup import backup_sqlite

    size = backup_sqlite(obj.settings().database_url, file)
    click.echo(f"backed up to {file} ({size} bytes)")


COMMANDS = {"export": export_command, "import": import_command, "copy": copy_command, "backup": backup_command}


__all__ = ["COMMANDS"]
