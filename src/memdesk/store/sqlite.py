"""The SQLite :class:`~memdesk.store.base.Store`: one file, WAL, named migrations, cached numpy search.

Layout: one table per memory type (``episodic_memory``, ``semantic_memory``,
``procedural_memory``), the raw message log (``messages``), ``history``, ``scopes``, ``meta``
(embedding model and dimension), ``migrations`` and ``collection_items`` (generic vector tables,
e.g. MAC's bank). A record row holds its id, a global insertion ``seq``, the scope columns, the
query columns (speaker, event/ingest time, provenance, embedding model), the record's JSON, its
vector as a float32 blob and its version.

Concurrency: one connection per store guarded by a lock (safe to share between threads); every
write is one ``BEGIN IMMEDIATE`` transaction, so it is all-or-nothing and other processes
writing the same file wait up to ``busy_timeout_ms`` before :class:`StoreLockedError`.

Search: vectors live in memory per (memory type, exact scope) (:mod:`.vector_index`), loaded on
first use and updated by this store's own writes. ``PRAGMA data_version`` is read before each
search; when another connection has committed since, the cache is dropped and reloaded lazily.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator, Sequence

from ..errors import StoreError, StoreLockedError
from .base import EmbeddingInfo
from .codec import encode_vector, parse_time, utc_now_iso
from .migrations import Migration, apply_migrations
from .sqlbase import CHUNK, DEFAULT_CACHE_MAX_ROWS, TABLES, SQLStoreBase, record_table_ddl

log = logging.getLogger(__name__)


# --- schema migrations ---------------------------------------------------------------------------
def _m0001_initial_schema(conn: sqlite3.Connection) -> None:
    statements = [
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """CREATE TABLE scopes (
            scope_key TEXT PRIMARY KEY, user_id TEXT, agent_id TEXT, run_id TEXT, created_at TEXT NOT NULL)""",
        """CREATE TABLE messages (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            scope_key TEXT NOT NULL, user_id TEXT, agent_id TEXT, run_id TEXT,
            id TEXT NOT NULL, speaker TEXT, role TEXT NOT NULL, content TEXT NOT NULL,
            timestamp TEXT, ingest_time TEXT NOT NULL, route_mask INTEGER, metadata TEXT NOT NULL,
            UNIQUE (scope_key, id))""",
        "CREATE INDEX ix_messages_user ON messages (user_id, agent_id, run_id)",
        "CREATE INDEX ix_messages_agent ON messages (agent_id)",
        "CREATE INDEX ix_messages_run ON messages (run_id)",
        "CREATE INDEX ix_messages_id ON messages (id)",
        """CREATE TABLE history (
            hid INTEGER PRIMARY KEY AUTOINCREMENT,
            record_id TEXT NOT NULL, memory_type TEXT NOT NULL, version INTEGER NOT NULL,
            event TEXT NOT NULL, scope_key TEXT NOT NULL, record TEXT NOT NULL, changed_at TEXT NOT NULL)""",
        "CREATE INDEX ix_history_record ON history (record_id, version)",
        """CREATE TABLE collection_items (
            collection TEXT NOT NULL, id TEXT NOT NULL, payload TEXT NOT NULL,
            vector BLOB NOT NULL, embedding_model TEXT NOT NULL,
            PRIMARY KEY (collection, id))""",
    ]
    for table in TABLES.values():
        statements += record_table_ddl(table, text="TEXT", seq="INTEGER", time="TEXT", vector="BLOB", version="INTEGER")
    for sql in statements:
        conn.execute(sql)


SQLITE_MIGRATIONS: tuple[Migration[sqlite3.Connection], ...] = (
    Migration("0001_initial_schema", _m0001_initial_schema),
)
"""The SQLite schema, oldest first. Append new migrations; never edit or reorder applied ones."""


# --- helpers -------------------------------------------------------------------------------------
def _is_locked(e: sqlite3.Error) -> bool:
    code = getattr(e, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(e).lower()
    return "locked" in text or "busy" in text


def _store_error(e: sqlite3.Error, what: str) -> StoreError:
    if _is_locked(e):
        return StoreLockedError(f"{what}: the database stayed locked past the busy timeout ({e})")
    return StoreError(f"{what}: {e}")


class _MigrationTarget:
    """Adapts a store's connection to :class:`~memdesk.store.migrations.MigrationTarget`."""

    def __init__(self, store: "SQLiteStore") -> None:
        self._store = store

    def recorded_migrations(self) -> list[str] | None:
        with self._store._read("read migrations") as conn:
            exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").fetchone()
            return self.applied_migrations(conn) if exists else None

    def ensure_migrations_table(self) -> None:
        with self._store._tx("create migrations table") as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")

    def migration_transaction(self) -> Any:
        return self._store._tx("migration")

    def applied_migrations(self, conn: sqlite3.Connection) -> list[str]:
        return [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY rowid")]

    def record_migration(self, conn: sqlite3.Connection, name: str, applied_at: datetime) -> None:
        conn.execute("INSERT INTO migrations (name, applied_at) VALUES (?, ?)", (name, applied_at.isoformat()))


# --- the store -----------------------------------------------------------------------------------
class SQLiteStore(SQLStoreBase):
    """A :class:`~memdesk.store.base.Store` in one SQLite file (or ``":memory:"``).

    Beyond the protocol it offers what maintenance commands need:

    - :meth:`iter_all_records`, :meth:`rewrite_vectors` and :meth:`collection_rewrite_vectors`
      for ``memdesk reembed``: read every record, embed it with the new model, then write the
      new vectors of each memory type (and collection) in one atomic call each. The recorded
      :class:`EmbeddingInfo` switches once no vector by the old model remains.
    - :meth:`collections` and :meth:`collection_delete` to list, empty or prune collections.
    - :meth:`migrations_applied` lists the applied schema migrations.

    Collections are upserts: ``collection_put`` of an existing id replaces its payload and vector.
    Vectors are expected to be unit-norm (the Embedder contract); scores are dot products.
    Everything but the connection, the transaction and the hooks below is
    :class:`~memdesk.store.sqlbase.SQLStoreBase`'s.
    """

    _P = "?"
    _VEC = "?"
    _TIME = "?"
    _POS = "rowid"
    _LOAD_PAGE = None
    _DB_ERROR = sqlite3.Error

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_ms: int = 5000,
        migrations: Sequence[Migration[sqlite3.Connection]] = SQLITE_MIGRATIONS,
        cache_max_rows: int | None = DEFAULT_CACHE_MAX_ROWS,
    ) -> None:
        super().__init__(busy_timeout_ms, cache_max_rows)
        self.path = str(path)
        self._conn: sqlite3.Connection | None = self._connect()
        try:
            apply_migrations(_MigrationTarget(self), migrations)
            self._version = self._read_version(self._conn)
        except BaseException:
            self.close()
            raise

    def _connect(self) -> sqlite3.Connection:
        memory = self.path == ":memory:"
        if not memory:
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(
                self.path if memory else str(Path(self.path).expanduser()),
                timeout=self.busy_timeout_ms / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as e:
            raise _store_error(e, f"cannot open {self.path}") from e
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
            if not memory:
                mode = self._enable_wal(conn)
                if str(mode).lower() != "wal":
                    log.warning("could not switch %s to WAL (journal_mode=%s)", self.path, mode)
                conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.Error as e:
            conn.close()
            raise _store_error(e, f"cannot open {self.path}") from e
        return conn

    def _enable_wal(self, conn: sqlite3.Connection) -> str:
        """Switch to WAL. Several processes opening a brand-new file race for the lock this needs, and
        SQLite answers "locked" at once rather than waiting: retry with backoff up to the busy timeout."""
        deadline = time.monotonic() + self.busy_timeout_ms / 1000
        delay = 0.005
        while True:
            try:
                return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            except sqlite3.OperationalError as e:
                if "locked" not in str(e).lower() or time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.1)

    # -- plumbing ----------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"

    @contextmanager
    def _tx(self, what: str) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` write transaction: committed on success, rolled back on any error."""
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise _store_error(e, what) from e
            try:
                yield conn
            except BaseException as e:
                self._rollback(conn)
                if isinstance(e, sqlite3.Error):
                    raise _store_error(e, what) from e
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as e:
                self._rollback(conn)
                raise _store_error(e, what) from e

    @staticmethod
    def _rollback(conn: sqlite3.Connection) -> None:
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:  # pragma: no cover - nothing more to do
                log.exception("rollback failed")

    # -- dialect hooks (see SQLStoreBase) ------------------------------------------------------
    _store_error = staticmethod(_store_error)
    _now = staticmethod(utc_now_iso)
    _time_from_db = staticmethod(parse_time)
    _vector_param = staticmethod(encode_vector)

    @staticmethod
    def _read_version(conn: sqlite3.Connection) -> int:
        return int(conn.execute("PRAGMA data_version").fetchone()[0])

    @staticmethod
    def _vector_cursor(conn: sqlite3.Connection) -> sqlite3.Connection:
        return conn

    @staticmethod
    def _executemany(conn: sqlite3.Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        conn.executemany(sql, rows)

    @staticmethod
    def _id_chunks(column: str, ids: Sequence[str], size: int = CHUNK) -> Iterator[tuple[str, list[Any]]]:
        for start in range(0, len(ids), size):
            chunk = list(ids[start : start + size])
            yield f"{column} IN ({','.join('?' * len(chunk))})", chunk

    @staticmethod
    def _next_seqs(conn: sqlite3.Connection, n: int) -> list[int]:
        sql = "SELECT MAX(s) FROM (" + " UNION ALL ".join(f"SELECT MAX(seq) AS s FROM {t}" for t in TABLES.values()) + ")"
        value = conn.execute(sql).fetchone()[0]
        first = 1 if value is None else int(value) + 1
        return list(range(first, first + n))

    @staticmethod
    def _delete_returning(conn: sqlite3.Connection, table: str, where: str, params: list[Any], columns: str) -> list[Any]:
        rows = conn.execute(f"SELECT {columns} FROM {table} WHERE {where}", params).fetchall()
        if rows:
            conn.execute(f"DELETE FROM {table} WHERE {where}", params)
        return rows

    @staticmethod
    def _vector_size(info: EmbeddingInfo) -> tuple[str, int]:
        return "length(vector)", info.dim * 4
