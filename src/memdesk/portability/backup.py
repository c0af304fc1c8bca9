"""A consistent copy of a live SQLite store: SQLite's online backup API.

``sqlite3.Connection.backup`` copies the database page by page; if another connection writes meanwhile, SQLite
restarts the copy, so the file written is one committed state of the database, never a torn one, and writers are
not blocked for longer than one step. The copy is written next to its destination and renamed into place when
complete (an interrupted backup leaves no half-written file under the name). The HNSW graph files beside a store
(``<database>-ann/``) are a cache rebuilt from the rows and are not copied.

PostgreSQL has its own tools for this (``pg_dump``, or ``memdesk copy`` onto another database).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from ..errors import ConfigError, DataNotFoundError, InvalidInputError
from ..store import sqlite_path

PAGES = 1024
"""Pages per backup step (4 MiB at SQLite's default page size)."""


def backup_sqlite(url: str, target: str | Path, *, progress: Callable[[int, int], None] | None = None) -> int:
    """Copy the SQLite database ``url`` names to the file ``target`` (refused if it exists); returns its size in
    bytes. ``progress(pages done, pages in all)`` after each step."""
    if not url.lower().startswith("sqlite:"):
        raise ConfigError("memdesk backup copies a SQLite database; for PostgreSQL use pg_dump or memdesk copy")
    source = sqlite_path(url)
    if source == ":memory:" or not Path(source).expanduser().is_file():
        raise DataNotFoundError(str(source), "no SQLite database file there")
    dest = Path(target).expanduser()
    if dest.exists():
        raise InvalidInputError(f"{dest} exists: give a new file name")
    partial = dest.with_name(dest.name + ".partial")
    partial.unlink(missing_ok=True)
    with closing(sqlite3.connect(Path(source).expanduser())) as src, closing(sqlite3.connect(partial)) as dst:
        src.backup(dst, pages=PAGES, progress=(lambda status, remaining, total: progress(total - remaining, total)) if progress else None)
        dst.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no -wal beside it
        check = dst.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise InvalidInputError(f"the backup failed its integrity check: {check}")
    os.replace(partial, dest)
    return dest.stat().st_size


__all__ = ["backup_sqlite"]
