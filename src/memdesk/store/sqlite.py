"""The SQLite :class:`~memdesk.store.base.Store`: one file, WAL, named migrations, cached numpy search.

The tables are :mod:`.schema`'s (migrations: :mod:`.sqlite_schema`); everything but the
connection and :class:`SQLiteDialect` is the shared :class:`~memdesk.store.sqlstore.SQLStore`.
Vectors are stored as float32 blobs.

Concurrency: one connection per store guarded by a lock (safe to share between threads); every
write is one ``BEGIN IMMEDIATE`` transaction, so it is all-or-nothing and other processes
writing the same file wait up to ``busy_timeout_ms`` before :class:`StoreLockedError`.

Search: vectors live in memory per (memory type, exact scope) (:mod:`.search_cache`), loaded on
first use and updated by this store's own writes. ``PRAGMA data_version`` is read before each
search; when another connection has committed since, the scopes it changed are reloaded lazily.
A scope of ``ann_min_rows`` records of a type (or a vector collection of that many items) or more
is searched through a faiss HNSW graph,
persisted in ``<path>-ann/`` (:mod:`.ann_scopes`); None keeps every search exact. The graph is
built in a background thread (the scope is searched exactly meanwhile); with
``ann_background=False`` the search that finds the scope large builds it before answering.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from pathlib import Path
from typing import Sequence


from ..errors import StoreError
from .private_files import tighten_database, tighten_folder
from .collection_tables import CollectionCache
from .database import Database
from .migrations import Migration, apply_migrations
from .ann import DEFAULT_EF_CONSTRUCTION, DEFAULT_EF_SEARCH
from .ann_scopes import DEFAULT_ANN_MIN_ROWS, LargeScopes, check_ann_options
from .search_cache import DEFAULT_CACHE_MAX_ROWS, RecordSearch
from .sqlite_dialect import SQLiteDialect
from .sqlite_schema import SQLITE_MIGRATIONS, SQLiteMigrationTarget
from .sqlstore import SQLStore, check_cache_rows

"""Metadata keys SQLite's JSON path can quote as a label; filters on other keys are checked in Python."""

log = logging.getLogger(__name__)


def create_private(path: Path) -> None:
    """Create the missing folders of ``path`` (0700) and, if it does not exist, the empty database file
    (0600: SQLite gives its ``-wal`` and ``-shm`` files the same mode). An existing database file (and its
    ``-wal`` / ``-shm``) is brought to 0600; existing folders are left as they are (they may be the user's own)."""
    missing: list[Path] = []
    parent = path.parent
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:  # another process made it first
            pass
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        tighten_database(path)  # an existing one with a looser mode is made private
        return
    os.close(fd)  # an empty file is an empty SQLite database


def connect(path: str, busy_timeout_ms: int, dialect: SQLiteDialect) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL on a file, deleted content
    overwritten with zeros (``secure_delete``, so a forgotten scope leaves no bytes in free pages)."""
    memory = path == ":memory:"
    if not memory:
        try:
            create_private(Path(path).expanduser())
        except OSError as e:
            raise StoreError(f"cannot create {path}: {e}") from e
    try:
        conn = sqlite3.connect(
            path if memory else str(Path(path).expanduser()),
            timeout=busy_timeout_ms / 1000,
            isolation_level=None,
            check_same_thread=False,
        )
    except sqlite3.Error as e:
        raise dialect.store_error(e, f"cannot open {path}") from e
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        conn.execute("PRAGMA secure_delete = ON")
        if not memory:
            mode = _enable_wal(conn, busy_timeout_ms)
            if str(mode).lower() != "wal":
                log.warning("could not switch %s to WAL (journal_mode=%s)", path, mode)
            conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.Error as e:
        conn.close()
        raise dialect.store_error(e, f"cannot open {path}") from e
    return conn


def _enable_wal(conn: sqlite3.Connection, busy_timeout_ms: int) -> str:
    """Switch to WAL. Several processes opening a brand-new file race for the lock this needs, and
    SQLite answers "locked" at once rather than waiting: retry with backoff up to the busy timeout."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    delay = 0.005
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as e:
            if "locked" not in str(e).lower() or time.monotonic() + delay > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


class SQLiteStore(SQLStore):
    """A :class:`~memdesk.store.base.Store` in one SQLite file (or ``":memory:"``)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_ms: int = 5000,
        migrations: Sequence[Migration[sqlite3.Connection]] = SQLITE_MIGRATIONS,
        cache_max_rows: int | None = DEFAULT_CACHE_MAX_ROWS,
        ann_min_rows: int | None = DEFAULT_ANN_MIN_ROWS,
        ann_ef_search: int = DEFAULT_EF_SEARCH,
        ann_ef_construction: int = DEFAULT_EF_CONSTRUCTION,
        ann_background: bool = True,
    ) -> None:
        dialect = SQLiteDialect()
        db = Database(dialect, busy_timeout_ms)
        self.path = str(path)
        min_rows, ef_search, ef_construction = check_ann_options(ann_min_rows, ann_ef_search, ann_ef_construction)
        folder = None if self.path == ":memory:" else Path(self.path + "-ann").expanduser()
        if folder is not None:
            tighten_folder(folder)  # an existing graph folder with a looser mode (and its files) is made private
        ann = None
        if min_rows is not None:
            ann = LargeScopes(
                folder, min_rows=min_rows, ef_search=ef_search, ef_construction=ef_construction, background=bool(ann_background)
            )
        files = ann if ann is not None or folder is None else LargeScopes(folder, min_rows=1)  # erasure only
        super().__init__(
            db,
            cache_max_rows,
            record_search=RecordSearch(db, check_cache_rows(cache_max_rows), ann=ann, files=files),
            collection_search=CollectionCache(db, ann=ann, files=files),
        )
        self.db.conn = connect(self.path, busy_timeout_ms, dialect)
        try:
            apply_migrations(SQLiteMigrationTarget(self.db), migrations)
            self.db.start_log(self.db.conn)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Write the graph files of large scopes with unsaved changes (see
        :meth:`.search_cache.RecordSearch.save_graphs`), then close (idempotent)."""
        if self.db.conn is not None and isinstance(self._search, RecordSearch):
            try:
                self._search.save_graphs()
            except (StoreError, OSError) as e:  # the next process reconciles the older file instead
                log.warning("graph files not saved at close: %s", e)
        super().close()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"


__all__ = ["SQLITE_MIGRATIONS", "SQLiteDialect", "SQLiteStore"]
