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

import json
import logging
import os
import sqlite3
import time
import threading
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
from pydantic_core import PydanticSerializationError, to_json

from ..errors import (
    ConfigError,
    EmbeddingMismatchError,
    InvalidInputError,
    InvalidScopeError,
    RecordNotFoundError,
    StoreError,
    StoreLockedError,
)
from ..records import (
    ALL_TYPES,
    HistoryEntry,
    HistoryEvent,
    MemoryRecord,
    MemoryType,
    RawMessage,
    Scope,
)
from .base import EmbeddingInfo, ScoredRecord
from .codec import (
    ScopeTuple,
    check_json,
    check_matrix,
    check_messages,
    check_name,
    check_records,
    check_vector,
    decode_matrix,
    encode_vector,
    iso_utc,
    parse_time,
    provenance_json,
    record_from_json,
    record_json,
    scope_from_tuple,
    scope_key,
    scope_matches,
    scope_tuple,
    time_json,
    utc_now_iso,
)
from .migrations import Migration, apply_migrations
from .vector_index import IndexCache, IndexRow

log = logging.getLogger(__name__)

TABLES: dict[MemoryType, str] = {
    MemoryType.EPISODIC: "episodic_memory",
    MemoryType.SEMANTIC: "semantic_memory",
    MemoryType.PROCEDURAL: "procedural_memory",
}
_CHUNK = 900  # bound parameters per IN (...) list
_PAGE = 500  # rows per page when iterating
_UNSET: Any = object()
_COLLECTION_KEY = ""


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
        statements += [
            f"""CREATE TABLE {table} (
                id TEXT PRIMARY KEY,
                seq INTEGER NOT NULL,
                scope_key TEXT NOT NULL, user_id TEXT, agent_id TEXT, run_id TEXT,
                speaker TEXT, event_time TEXT, ingest_time TEXT NOT NULL,
                provenance TEXT NOT NULL, embedding_model TEXT NOT NULL,
                record TEXT NOT NULL, vector BLOB NOT NULL, version INTEGER NOT NULL)""",
            f"CREATE INDEX ix_{table}_scope ON {table} (scope_key, seq)",
            f"CREATE INDEX ix_{table}_user ON {table} (user_id, agent_id, run_id)",
            f"CREATE INDEX ix_{table}_agent ON {table} (agent_id)",
            f"CREATE INDEX ix_{table}_run ON {table} (run_id)",
            f"CREATE INDEX ix_{table}_seq ON {table} (seq)",
        ]
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


def _memory_type(value: Any) -> MemoryType:
    try:
        return MemoryType(value)
    except ValueError:
        raise InvalidInputError(f"unknown memory type {value!r}: use episodic, semantic or procedural") from None


def _check_scope(scope: Any) -> Scope:
    if not isinstance(scope, Scope):
        raise InvalidScopeError(f"expected a Scope, got {type(scope).__name__}")
    return scope


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise InvalidInputError(f"k must be a non-negative integer, got {k!r}")
    return int(k)


def _check_ids(ids: Any, what: str = "ids") -> list[str]:
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise InvalidInputError(f"{what} must be a sequence of strings")
    out = list(ids)
    for i in out:
        if not isinstance(i, str) or not i:
            raise InvalidInputError(f"every id must be a non-empty string, got {i!r}")
    return out


def _unique(ids: Sequence[str], what: str) -> None:
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        dups = sorted({i for i in ids if i in seen or seen.add(i)})  # type: ignore[func-returns-value]
        raise InvalidInputError(f"duplicate {what} in one call: {dups[:5]}")


def _where(scope: Scope | None) -> tuple[str, list[Any]]:
    """SQL condition (and parameters) for rows under a possibly-wildcard scope."""
    if scope is None:
        return "1 = 1", []
    if scope.user_id is not None and scope.agent_id is not None and scope.run_id is not None:
        return "scope_key = ?", [scope_key(scope)]
    conds, params = [], []
    for column, value in (("user_id", scope.user_id), ("agent_id", scope.agent_id), ("run_id", scope.run_id)):
        if value is not None:
            conds.append(f"{column} = ?")
            params.append(value)
    return " AND ".join(conds), params


def _chunks(items: Sequence[Any], size: int = _CHUNK) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _marks(n: int) -> str:
    return ",".join("?" * n)


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
class SQLiteStore:
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
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_ms: int = 5000,
        migrations: Sequence[Migration[sqlite3.Connection]] = SQLITE_MIGRATIONS,
    ) -> None:
        if isinstance(busy_timeout_ms, bool) or not isinstance(busy_timeout_ms, int) or busy_timeout_ms < 0:
            raise ConfigError(f"busy_timeout_ms must be a non-negative integer, got {busy_timeout_ms!r}")
        self.path = str(path)
        self.busy_timeout_ms = busy_timeout_ms
        self._lock = threading.RLock()
        self._info: EmbeddingInfo | None = _UNSET
        self._records: IndexCache[ScopeTuple] = IndexCache(self._record_keys, self._record_rows)
        self._collections: IndexCache[str] = IndexCache(self._collection_keys, self._collection_rows)
        self._conn: sqlite3.Connection | None = self._connect()
        try:
            apply_migrations(_MigrationTarget(self), migrations)
            self._data_version = self._read_data_version(self._conn)
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
    def __enter__(self) -> "SQLiteStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError("the store is closed")
        return self._conn

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

    @contextmanager
    def _read(self, what: str) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connection()
            try:
                yield conn
            except sqlite3.Error as e:
                raise _store_error(e, what) from e

    @staticmethod
    def _read_data_version(conn: sqlite3.Connection) -> int:
        return int(conn.execute("PRAGMA data_version").fetchone()[0])

    def _sync(self, conn: sqlite3.Connection) -> None:
        """Drop the caches if another connection committed since the last check."""
        version = self._read_data_version(conn)
        if version != self._data_version:
            log.debug("database changed by another connection: dropping the vector cache")
            self._data_version = version
            self._invalidate()

    def _invalidate(self) -> None:
        self._records.clear()
        self._collections.clear()
        self._info = _UNSET

    # -- lifecycle / metadata ----------------------------------------------------------------
    def close(self) -> None:
        """Close the connection (idempotent); later calls raise StoreError."""
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.close()
                finally:
                    self._conn = None
            self._invalidate()

    @staticmethod
    def _read_info(conn: sqlite3.Connection) -> EmbeddingInfo | None:
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')"))
        if "embedding_model" not in meta:
            return None
        return EmbeddingInfo(model_id=meta["embedding_model"], dim=int(meta["embedding_dim"]))

    @staticmethod
    def _write_info(conn: sqlite3.Connection, info: EmbeddingInfo) -> None:
        conn.executemany(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
            [("embedding_model", info.model_id), ("embedding_dim", str(info.dim))],
        )

    def _cached_info(self, conn: sqlite3.Connection) -> EmbeddingInfo | None:
        if self._info is _UNSET:
            self._info = self._read_info(conn)
        return self._info

    def embedding_info(self) -> EmbeddingInfo | None:
        """The model/dim that wrote the vectors, or None before :meth:`set_embedding_info`."""
        with self._read("embedding_info") as conn:
            return self._read_info(conn)

    @staticmethod
    def _has_vectors(conn: sqlite3.Connection) -> bool:
        tables = [*TABLES.values(), "collection_items"]
        sql = " UNION ALL ".join(f"SELECT 1 FROM (SELECT 1 FROM {t} LIMIT 1)" for t in tables)
        return conn.execute(sql).fetchone() is not None

    @staticmethod
    def _check_info(info: Any) -> EmbeddingInfo:
        if not isinstance(info, EmbeddingInfo):
            raise InvalidInputError(f"expected EmbeddingInfo, got {type(info).__name__}")
        if not info.model_id or info.dim <= 0:
            raise InvalidInputError(f"invalid embedding info {info!r}: needs a model id and a positive dim")
        return info

    def set_embedding_info(self, info: EmbeddingInfo) -> None:
        """Record the model/dim; EmbeddingMismatchError if another one is recorded and vectors exist."""
        info = self._check_info(info)
        with self._lock:
            with self._tx("set_embedding_info") as conn:
                current = self._read_info(conn)
                if current == info:
                    changed = False
                else:
                    if current is not None and self._has_vectors(conn):
                        raise EmbeddingMismatchError(current.model_id, current.dim, info.model_id, info.dim)
                    self._write_info(conn, info)
                    changed = True
            if changed:
                self._records.clear()
                self._collections.clear()
            self._info = info

    def _require_info(self, conn: sqlite3.Connection, dim: int, models: Sequence[str | None] = ()) -> EmbeddingInfo:
        info = self._read_info(conn)
        if info is None:
            raise InvalidInputError(
                "no embedding model is recorded for this store: call "
                "set_embedding_info(EmbeddingInfo(model_id=..., dim=...)) before writing vectors"
            )
        named = next((m for m in models if m is not None and m != info.model_id), None)
        if dim != info.dim or named is not None:
            raise EmbeddingMismatchError(info.model_id, info.dim, named or "(the given vectors)", dim)
        return info

    def scopes(self) -> list[Scope]:
        """Every exact scope that has records or raw messages, in the order first written."""
        with self._read("scopes") as conn:
            rows = conn.execute("SELECT user_id, agent_id, run_id FROM scopes ORDER BY rowid").fetchall()
        return [scope_from_tuple(tuple(r)) for r in rows]  # type: ignore[arg-type]

    def collections(self) -> list[str]:
        """Names of the collections that hold items."""
        with self._read("collections") as conn:
            return [r[0] for r in conn.execute("SELECT DISTINCT collection FROM collection_items ORDER BY collection")]

    def migrations_applied(self) -> list[tuple[str, datetime]]:
        """(name, applied_at) of every applied schema migration, in order."""
        with self._read("migrations_applied") as conn:
            rows = conn.execute("SELECT name, applied_at FROM migrations ORDER BY rowid").fetchall()
        return [(name, parse_time(at)) for name, at in rows]

    # -- records -----------------------------------------------------------------------------
    @staticmethod
    def _existing(conn: sqlite3.Connection, ids: Sequence[str]) -> list[str]:
        found: list[str] = []
        for chunk in _chunks(ids, _CHUNK // 3):
            sql = " UNION ALL ".join(f"SELECT id FROM {t} WHERE id IN ({_marks(len(chunk))})" for t in TABLES.values())
            found += [r[0] for r in conn.execute(sql, list(chunk) * len(TABLES))]
        return found

    @staticmethod
    def _last_versions(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for chunk in _chunks(ids):
            sql = f"SELECT record_id, MAX(version) FROM history WHERE record_id IN ({_marks(len(chunk))}) GROUP BY record_id"
            out.update(conn.execute(sql, list(chunk)).fetchall())
        return out

    @staticmethod
    def _next_seq(conn: sqlite3.Connection) -> int:
        sql = "SELECT MAX(s) FROM (" + " UNION ALL ".join(f"SELECT MAX(seq) AS s FROM {t}" for t in TABLES.values()) + ")"
        value = conn.execute(sql).fetchone()[0]
        return 1 if value is None else int(value) + 1

    @staticmethod
    def _scope_row(scope: Scope, now: str) -> tuple[Any, ...]:
        return (scope_key(scope), scope.user_id, scope.agent_id, scope.run_id, now)

    @staticmethod
    def _record_row(
        record: MemoryRecord, payload: str, vector: np.ndarray, seq: int, version: int, model: str
    ) -> tuple[Any, ...]:
        s = record.scope
        return (
            record.id, seq, scope_key(s), s.user_id, s.agent_id, s.run_id, record.speaker,
            iso_utc(record.event_time), iso_utc(record.ingest_time), provenance_json(record),
            record.embedding_model or model, payload, encode_vector(vector), version,
        )  # fmt: skip

    _RECORD_COLUMNS = (
        "id, seq, scope_key, user_id, agent_id, run_id, speaker, event_time, ingest_time, "
        "provenance, embedding_model, record, vector, version"
    )
    _INSERT_HISTORY = (
        "INSERT INTO history (record_id, memory_type, version, event, scope_key, record, changed_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)"
    )
    _INSERT_SCOPE = "INSERT OR IGNORE INTO scopes (scope_key, user_id, agent_id, run_id, created_at) VALUES (?, ?, ?, ?, ?)"

    def put(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        """Insert new records (one row of ``vectors`` each) atomically: all or nothing.

        InvalidInputError if an id already exists (use :meth:`replace`), repeats within the call,
        or a vector has the wrong shape or a non-finite value; EmbeddingMismatchError if the
        vectors' dimension (or a record's ``embedding_model``) differs from :meth:`embedding_info`.
        """
        self.write([], records, vectors)

    def write(self, messages: Sequence[RawMessage], records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        """Log messages and put records in ONE transaction: all or nothing (resumable ingest).

        Same rules as :meth:`log_messages` and :meth:`put`; everything is validated before writing.
        """
        message_rows = self._message_rows(check_messages(messages))
        batch = self._prepare_records(records, vectors)
        if not message_rows and batch is None:
            return
        with self._lock:
            with self._tx("write") as conn:
                if message_rows:
                    self._insert_messages(conn, message_rows)
                if batch is not None:
                    self._insert_records(conn, *batch)
            if batch is not None:
                recs, matrix, payloads = batch
                for i, (r, payload) in enumerate(zip(recs, payloads)):
                    self._records.upsert(r.type, scope_tuple(r.scope), r.id, matrix[i], payload, r.speaker)

    @staticmethod
    def _prepare_records(
        records: Sequence[MemoryRecord], vectors: Any
    ) -> tuple[list[MemoryRecord], np.ndarray, list[str]] | None:
        """Validated (records, float32 matrix, record JSON), or None for no records."""
        recs = check_records(records)
        if not recs:
            if vectors is not None and np.asarray(vectors).size:
                raise InvalidInputError("vectors given for zero records")
            return None
        matrix = check_matrix(vectors, len(recs))
        ids = [r.id for r in recs]
        _check_ids(ids, "record ids")
        _unique(ids, "record ids")
        return recs, matrix, [record_json(r) for r in recs]

    def _insert_records(
        self, conn: sqlite3.Connection, recs: list[MemoryRecord], matrix: np.ndarray, payloads: list[str]
    ) -> None:
        info = self._require_info(conn, matrix.shape[1], [r.embedding_model for r in recs])
        ids = [r.id for r in recs]
        existing = self._existing(conn, ids)
        if existing:
            raise InvalidInputError(f"record ids already exist (use replace): {sorted(existing)[:5]}")
        seq = self._next_seq(conn)
        versions = self._last_versions(conn, ids)
        now = utc_now_iso()
        by_table: dict[str, list[tuple[Any, ...]]] = {}
        history: list[tuple[Any, ...]] = []
        scopes: dict[str, tuple[Any, ...]] = {}
        for i, (r, payload) in enumerate(zip(recs, payloads)):
            version = versions.get(r.id, 0) + 1
            by_table.setdefault(TABLES[r.memory_type], []).append(
                self._record_row(r, payload, matrix[i], seq + i, version, info.model_id)
            )
            history.append((r.id, r.type, version, HistoryEvent.ADD.value, scope_key(r.scope), payload, now))
            scopes.setdefault(scope_key(r.scope), self._scope_row(r.scope, now))
        for table, rows in by_table.items():
            conn.executemany(f"INSERT INTO {table} ({self._RECORD_COLUMNS}) VALUES ({_marks(14)})", rows)
        conn.executemany(self._INSERT_HISTORY, history)
        conn.executemany(self._INSERT_SCOPE, list(scopes.values()))

    @staticmethod
    def _find(conn: sqlite3.Connection, record_id: str) -> tuple[MemoryType, ScopeTuple, int, int, str] | None:
        """(type, scope, seq, version, record JSON) of a current record, or None."""
        sql = " UNION ALL ".join(
            f"SELECT '{mt.value}', user_id, agent_id, run_id, seq, version, record FROM {t} WHERE id = ?"
            for mt, t in TABLES.items()
        )
        row = conn.execute(sql, [record_id] * len(TABLES)).fetchone()
        if row is None:
            return None
        return MemoryType(row[0]), (row[1], row[2], row[3]), int(row[4]), int(row[5]), row[6]

    def replace(self, record: MemoryRecord, vector: np.ndarray) -> None:
        """Supersede the current record with the same id (its type and scope may change).

        The new version (version + 1) is recorded in history as UPDATE; older versions stay there.
        RecordNotFoundError if no current record has that id.
        """
        (rec,) = check_records([record])
        _check_ids([rec.id], "record id")
        row_vector = check_vector(vector)
        payload = record_json(rec)
        with self._lock:
            with self._tx("replace") as conn:
                info = self._require_info(conn, row_vector.shape[0], [rec.embedding_model])
                found = self._find(conn, rec.id)
                if found is None:
                    raise RecordNotFoundError(f"no record with id {rec.id!r} to replace")
                old_type, old_scope, seq, version, _ = found
                row = self._record_row(rec, payload, row_vector, seq, version + 1, info.model_id)
                new_table = TABLES[rec.memory_type]
                if old_type != rec.memory_type:
                    conn.execute(f"DELETE FROM {TABLES[old_type]} WHERE id = ?", (rec.id,))
                    conn.execute(f"INSERT INTO {new_table} ({self._RECORD_COLUMNS}) VALUES ({_marks(14)})", row)
                else:
                    columns = self._RECORD_COLUMNS.split(", ")[1:]
                    sets = ", ".join(f"{c} = ?" for c in columns)
                    conn.execute(f"UPDATE {new_table} SET {sets} WHERE id = ?", (*row[1:], rec.id))
                now = utc_now_iso()
                conn.execute(
                    self._INSERT_HISTORY,
                    (rec.id, rec.type, version + 1, HistoryEvent.UPDATE.value, scope_key(rec.scope), payload, now),
                )
                conn.execute(self._INSERT_SCOPE, self._scope_row(rec.scope, now))
            self._records.remove(old_type.value, old_scope, rec.id)
            self._records.upsert(rec.type, scope_tuple(rec.scope), rec.id, row_vector, payload, rec.speaker)

    def get(self, record_id: str) -> MemoryRecord | None:
        """The current record with that id, or None."""
        if not isinstance(record_id, str):
            raise InvalidInputError(f"record id must be a string, got {type(record_id).__name__}")
        with self._read("get") as conn:
            found = self._find(conn, record_id)
        return None if found is None else record_from_json(found[0], found[4])

    def get_vectors(self, memory_type: MemoryType, ids: Sequence[str]) -> np.ndarray:
        """The stored float32 vectors of ``ids`` (in that order), bit-exact; RecordNotFoundError for a missing id."""
        mt = _memory_type(memory_type)
        wanted = _check_ids(ids)
        table = TABLES[mt]
        with self._read("get_vectors") as conn:
            info = self._read_info(conn)
            dim = info.dim if info is not None else 0
            if not wanted:
                return np.zeros((0, dim), dtype=np.float32)
            blobs: dict[str, bytes] = {}
            unique = list(dict.fromkeys(wanted))
            for chunk in _chunks(unique):
                sql = f"SELECT id, vector FROM {table} WHERE id IN ({_marks(len(chunk))})"
                blobs.update(conn.execute(sql, list(chunk)).fetchall())
        missing = [i for i in unique if i not in blobs]
        if missing:
            raise RecordNotFoundError(f"no {mt.value} record(s) with id {missing[:5]}")
        try:
            return decode_matrix([blobs[i] for i in wanted], dim)
        except ValueError as e:
            raise StoreError(f"stored vectors do not match the recorded dimension {dim}: {e}") from e

    def delete(self, record_id: str) -> bool:
        """Delete one record; history keeps it (a DELETE entry). False if it did not exist."""
        if not isinstance(record_id, str):
            raise InvalidInputError(f"record id must be a string, got {type(record_id).__name__}")
        with self._lock:
            with self._tx("delete") as conn:
                found = self._find(conn, record_id)
                if found is not None:
                    mt, scope, _, version, payload = found
                    conn.execute(
                        self._INSERT_HISTORY,
                        (record_id, mt.value, version + 1, HistoryEvent.DELETE.value, scope_key(scope), payload, utc_now_iso()),
                    )
                    conn.execute(f"DELETE FROM {TABLES[mt]} WHERE id = ?", (record_id,))
            if found is None:
                return False
            self._records.remove(mt.value, scope, record_id)
            return True

    def delete_scope(self, scope: Scope) -> int:
        """Delete every record, raw message and scope entry under ``scope`` (wildcards allowed).

        Each deleted record gets a DELETE history entry. Returns the number of records deleted.
        """
        _check_scope(scope)
        where, params = _where(scope)
        dropped: dict[MemoryType, set[ScopeTuple]] = {}
        total = 0
        with self._lock:
            with self._tx("delete_scope") as conn:
                now = utc_now_iso()
                for mt, table in TABLES.items():
                    rows = conn.execute(
                        f"SELECT id, version, scope_key, record, user_id, agent_id, run_id FROM {table} WHERE {where}",
                        params,
                    ).fetchall()
                    if not rows:
                        continue
                    conn.executemany(
                        self._INSERT_HISTORY,
                        [(r[0], mt.value, r[1] + 1, HistoryEvent.DELETE.value, r[2], r[3], now) for r in rows],
                    )
                    conn.execute(f"DELETE FROM {table} WHERE {where}", params)
                    dropped[mt] = {(r[4], r[5], r[6]) for r in rows}
                    total += len(rows)
                conn.execute(f"DELETE FROM messages WHERE {where}", params)
                conn.execute(f"DELETE FROM scopes WHERE {where}", params)
            for mt, keys in dropped.items():
                self._records.drop(mt.value, keys)
        return total

    def scan(
        self, scope: Scope, memory_type: MemoryType | None = None, speaker: str | None = None
    ) -> Iterator[MemoryRecord]:
        """Every current record under ``scope`` (wildcards allowed) in insertion order, read in pages."""
        _check_scope(scope)
        types = ALL_TYPES if memory_type is None else (_memory_type(memory_type),)
        if speaker is not None and not isinstance(speaker, str):
            raise InvalidInputError(f"speaker must be a string, got {type(speaker).__name__}")
        return self._scan(scope, types, speaker)

    def _scan(self, scope: Scope | None, types: Sequence[MemoryType], speaker: str | None) -> Iterator[MemoryRecord]:
        where, params = _where(scope)
        if speaker is not None:
            where += " AND speaker = ?"
            params = [*params, speaker]
        parts = [f"SELECT '{mt.value}' AS t, record, seq FROM {TABLES[mt]} WHERE {where} AND seq > ?" for mt in types]
        sql = f"SELECT t, record, seq FROM ({' UNION ALL '.join(parts)}) ORDER BY seq LIMIT {_PAGE}"
        last = 0
        while True:
            with self._read("scan") as conn:
                rows = conn.execute(sql, [*params, last] * len(types)).fetchall()
            for t, payload, _ in rows:
                yield record_from_json(t, payload)
            if len(rows) < _PAGE:
                return
            last = rows[-1][2]

    def iter_all_records(self) -> Iterator[MemoryRecord]:
        """Every current record of every type and scope, in insertion order (for ``memdesk reembed``)."""
        return self._scan(None, ALL_TYPES, None)

    def count(self, scope: Scope | None = None, memory_type: MemoryType | None = None) -> int:
        """Current records under ``scope`` (all if None) of one type (all if None)."""
        if scope is not None:
            _check_scope(scope)
        types = ALL_TYPES if memory_type is None else (_memory_type(memory_type),)
        where, params = _where(scope)
        with self._read("count") as conn:
            return sum(int(conn.execute(f"SELECT COUNT(*) FROM {TABLES[mt]} WHERE {where}", params).fetchone()[0]) for mt in types)

    def history(self, record_id: str) -> list[HistoryEntry]:
        """All versions of a record, oldest first (ADD, UPDATE..., DELETE); [] for an unknown id."""
        if not isinstance(record_id, str):
            raise InvalidInputError(f"record id must be a string, got {type(record_id).__name__}")
        with self._read("history") as conn:
            rows = conn.execute(
                "SELECT version, event, memory_type, record, changed_at FROM history WHERE record_id = ? ORDER BY hid",
                (record_id,),
            ).fetchall()
        return [
            HistoryEntry(
                record_id=record_id,
                version=version,
                event=HistoryEvent(event),
                record=record_from_json(mt, payload),
                changed_at=parse_time(at),
            )
            for version, event, mt, payload, at in rows
        ]

    # -- search ------------------------------------------------------------------------------
    def _record_keys(self, namespace: str) -> list[ScopeTuple]:
        conn = self._connection()
        rows = conn.execute(f"SELECT DISTINCT user_id, agent_id, run_id FROM {TABLES[MemoryType(namespace)]}")
        return [(r[0], r[1], r[2]) for r in rows]

    def _check_row_model(self, model: str, blob: bytes) -> None:
        info = self._info
        if info is None or info is _UNSET or model != info.model_id or len(blob) != info.dim * 4:
            stored = info if isinstance(info, EmbeddingInfo) else EmbeddingInfo(model_id="(none)", dim=0)
            raise EmbeddingMismatchError(stored.model_id, stored.dim, model, len(blob) // 4)

    def _record_rows(self, namespace: str, keys: Sequence[ScopeTuple]) -> Iterator[IndexRow[ScopeTuple]]:
        conn = self._connection()
        table = TABLES[MemoryType(namespace)]
        for chunk in _chunks([scope_key(k) for k in keys]):
            sql = (
                f"SELECT user_id, agent_id, run_id, id, record, speaker, vector, embedding_model FROM {table} "
                f"WHERE scope_key IN ({_marks(len(chunk))}) ORDER BY seq"
            )
            for u, a, r, item_id, payload, speaker, blob, model in conn.execute(sql, list(chunk)):
                self._check_row_model(model, blob)
                yield IndexRow((u, a, r), item_id, payload, speaker, blob)

    def _query(self, conn: sqlite3.Connection, vector: Any) -> tuple[np.ndarray, EmbeddingInfo | None]:
        query = check_vector(vector)
        self._sync(conn)
        info = self._cached_info(conn)
        if info is not None and query.shape[0] != info.dim:
            raise EmbeddingMismatchError(info.model_id, info.dim, "(the query vector)", query.shape[0])
        return query, info

    def search(
        self,
        vector: np.ndarray,
        scope: Scope,
        memory_type: MemoryType,
        k: int,
        speaker: str | None = None,
    ) -> list[ScoredRecord]:
        """Exact cosine top-k of one memory type under ``scope`` (and speaker bank if given), best first.

        Ties are broken by id. Runs no SQL beyond ``PRAGMA data_version`` when the cache is warm.
        """
        _check_scope(scope)
        mt = _memory_type(memory_type)
        k = _check_k(k)
        if speaker is not None and not isinstance(speaker, str):
            raise InvalidInputError(f"speaker must be a string, got {type(speaker).__name__}")
        with self._read("search") as conn:
            query, info = self._query(conn, vector)
            if info is None or k == 0:
                return []
            hits = self._records.search(mt.value, lambda key: scope_matches(scope, key), query, k, speaker)
        # model_construct: the record was just validated from JSON, no need to validate it twice
        return [ScoredRecord.model_construct(record=record_from_json(mt, h.payload), score=h.score) for h in hits]

    # -- reembedding ---------------------------------------------------------------------------
    @staticmethod
    def _stale_vectors(conn: sqlite3.Connection, info: EmbeddingInfo) -> dict[str, int]:
        """Where vectors not written by ``info`` remain: {table or collection: count}."""
        out: dict[str, int] = {}
        params = (info.model_id, info.dim * 4)
        for table in TABLES.values():
            n = conn.execute(
                f"SELECT COUNT(*) FROM {table} WHERE embedding_model != ? OR length(vector) != ?", params
            ).fetchone()[0]
            if n:
                out[table] = int(n)
        for name, n in conn.execute(
            "SELECT collection, COUNT(*) FROM collection_items WHERE embedding_model != ? OR length(vector) != ? "
            "GROUP BY collection",
            params,
        ):
            out[f"collection {name!r}"] = int(n)
        return out

    def _switch_if_complete(self, conn: sqlite3.Connection, info: EmbeddingInfo, *, required: bool) -> None:
        stale = self._stale_vectors(conn, info)
        if not stale:
            self._write_info(conn, info)
        elif required:
            raise InvalidInputError(
                f"cannot switch the store to {info.model_id!r} (dim {info.dim}): vectors by another model "
                f"remain in {stale}; rewrite them first"
            )

    def _prepare_rewrite(
        self, ids: Sequence[str], vectors: Any, info: EmbeddingInfo
    ) -> tuple[EmbeddingInfo, list[str], np.ndarray]:
        info = self._check_info(info)
        wanted = _check_ids(ids)
        _unique(wanted, "ids")
        if not wanted:
            return info, wanted, np.zeros((0, info.dim), np.float32)
        matrix = check_matrix(vectors, len(wanted))
        if matrix.shape[1] != info.dim:
            raise InvalidInputError(f"vectors have dimension {matrix.shape[1]} but info says {info.dim}")
        return info, wanted, matrix

    def rewrite_vectors(
        self, memory_type: MemoryType | None, ids: Sequence[str], vectors: np.ndarray | None, info: EmbeddingInfo
    ) -> None:
        """Atomically replace the vectors of ``ids`` (records of one type) with ones made by ``info``.

        For ``memdesk reembed``: read :meth:`iter_all_records`, embed, then call this once per
        memory type (and :meth:`collection_rewrite_vectors` once per collection). The store's
        embedding info switches to ``info`` in the call after which no vector by another model
        remains; until then a search of a type still holding old vectors raises
        EmbeddingMismatchError. ``rewrite_vectors(None, [], None, info)`` writes nothing and
        switches, or raises InvalidInputError naming the tables still holding old vectors.

        No history entry is written (the content did not change); a record's ``embedding_model``
        field, when set, becomes ``info.model_id``.
        """
        info, wanted, matrix = self._prepare_rewrite(ids, vectors, info)
        if memory_type is None:
            if wanted:
                raise InvalidInputError("rewrite_vectors(None, ...) takes no ids: name the memory type")
            with self._lock:
                with self._tx("rewrite_vectors") as conn:
                    self._switch_if_complete(conn, info, required=True)
                self._invalidate()
            return
        mt = _memory_type(memory_type)
        table = TABLES[mt]
        with self._lock:
            with self._tx("rewrite_vectors") as conn:
                payloads: dict[str, str] = {}
                for chunk in _chunks(wanted):
                    sql = f"SELECT id, record FROM {table} WHERE id IN ({_marks(len(chunk))})"
                    payloads.update(conn.execute(sql, list(chunk)).fetchall())
                missing = [i for i in wanted if i not in payloads]
                if missing:
                    raise RecordNotFoundError(f"no {mt.value} record(s) with id {missing[:5]}")
                rows = []
                for i, item_id in enumerate(wanted):
                    rec = record_from_json(mt, payloads[item_id])
                    if rec.embedding_model is not None:
                        rec = rec.model_copy(update={"embedding_model": info.model_id})
                    rows.append((encode_vector(matrix[i]), info.model_id, record_json(rec), item_id))
                conn.executemany(f"UPDATE {table} SET vector = ?, embedding_model = ?, record = ? WHERE id = ?", rows)
                self._switch_if_complete(conn, info, required=False)
            self._invalidate()

    def collection_rewrite_vectors(
        self, collection: str, ids: Sequence[str], vectors: np.ndarray | None, info: EmbeddingInfo
    ) -> None:
        """Atomically replace the vectors of ``ids`` in a collection (see :meth:`rewrite_vectors`)."""
        check_name(collection, "collection name")
        info, wanted, matrix = self._prepare_rewrite(ids, vectors, info)
        with self._lock:
            with self._tx("collection_rewrite_vectors") as conn:
                present: set[str] = set()
                for chunk in _chunks(wanted):
                    sql = f"SELECT id FROM collection_items WHERE collection = ? AND id IN ({_marks(len(chunk))})"
                    present.update(r[0] for r in conn.execute(sql, [collection, *chunk]))
                missing = [i for i in wanted if i not in present]
                if missing:
                    raise RecordNotFoundError(f"no item(s) {missing[:5]} in collection {collection!r}")
                conn.executemany(
                    "UPDATE collection_items SET vector = ?, embedding_model = ? WHERE collection = ? AND id = ?",
                    [(encode_vector(matrix[i]), info.model_id, collection, item_id) for i, item_id in enumerate(wanted)],
                )
                self._switch_if_complete(conn, info, required=False)
            self._invalidate()

    # -- raw message log -----------------------------------------------------------------------
    def log_messages(self, messages: Sequence[RawMessage]) -> None:
        """Append messages to the raw log atomically. Re-logging an existing (scope, id) is a no-op.

        The store assigns ``seq`` (the log order); a given ``seq`` is ignored.
        """
        rows = self._message_rows(check_messages(messages))
        if rows:
            with self._tx("log_messages") as conn:
                self._insert_messages(conn, rows)

    @staticmethod
    def _message_rows(msgs: Sequence[RawMessage]) -> list[tuple[Any, ...]]:
        rows = []
        for m in msgs:
            try:
                metadata = to_json(m.metadata).decode()
            except PydanticSerializationError as e:
                raise InvalidInputError(f"message {m.id!r} has metadata that is not JSON-serializable: {e}") from e
            s = m.scope
            rows.append((
                scope_key(s), s.user_id, s.agent_id, s.run_id, m.id, m.speaker, m.role, m.content,
                time_json(m.timestamp), time_json(m.ingest_time), m.route_mask, metadata,
            ))  # fmt: skip
        return rows

    def _insert_messages(self, conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
        now = utc_now_iso()
        conn.executemany(
            "INSERT OR IGNORE INTO messages (scope_key, user_id, agent_id, run_id, id, speaker, role, content, "
            f"timestamp, ingest_time, route_mask, metadata) VALUES ({_marks(12)})",
            rows,
        )
        scopes = {r[0]: (r[0], r[1], r[2], r[3], now) for r in rows}
        conn.executemany(self._INSERT_SCOPE, list(scopes.values()))

    def messages(self, scope: Scope, last: int | None = None) -> list[RawMessage]:
        """Logged messages under ``scope`` (wildcards allowed) in log order, ``seq`` filled in.

        With ``last``, only the last ``last`` messages (still oldest first).
        """
        _check_scope(scope)
        if last is not None:
            last = _check_k(last)
        where, params = _where(scope)
        columns = "user_id, agent_id, run_id, id, speaker, role, content, timestamp, ingest_time, route_mask, metadata, seq"
        with self._read("messages") as conn:
            if last is None:
                rows = conn.execute(f"SELECT {columns} FROM messages WHERE {where} ORDER BY seq", params).fetchall()
            else:
                sql = f"SELECT {columns} FROM messages WHERE {where} ORDER BY seq DESC LIMIT ?"
                rows = conn.execute(sql, [*params, last]).fetchall()[::-1]
        return [self._message_from_row(row) for row in rows]

    @staticmethod
    def _message_from_row(row: Sequence[Any]) -> RawMessage:
        u, a, r, item_id, speaker, role, content, ts, ingest, mask, meta, seq = row
        return RawMessage.model_validate(
            {
                "scope": scope_from_tuple((u, a, r)),
                "id": item_id,
                "speaker": speaker,
                "role": role,
                "content": content,
                "timestamp": ts,
                "ingest_time": ingest,
                "route_mask": mask,
                "metadata": json.loads(meta),
                "seq": seq,
            }
        )

    def has_message(self, scope: Scope, message_id: str) -> bool:
        """True if a message with that id is logged under ``scope`` (wildcards allowed)."""
        _check_scope(scope)
        where, params = _where(scope)
        with self._read("has_message") as conn:
            row = conn.execute(f"SELECT 1 FROM messages WHERE {where} AND id = ? LIMIT 1", [*params, message_id]).fetchone()
        return row is not None

    # -- collections ---------------------------------------------------------------------------
    def _collection_keys(self, namespace: str) -> list[str]:
        row = self._connection().execute("SELECT 1 FROM collection_items WHERE collection = ? LIMIT 1", (namespace,))
        return [_COLLECTION_KEY] if row.fetchone() is not None else []

    def _collection_rows(self, namespace: str, keys: Sequence[str]) -> Iterator[IndexRow[str]]:
        conn = self._connection()
        sql = "SELECT id, payload, vector, embedding_model FROM collection_items WHERE collection = ? ORDER BY rowid"
        for item_id, payload, blob, model in conn.execute(sql, (namespace,)):
            self._check_row_model(model, blob)
            yield IndexRow(_COLLECTION_KEY, item_id, payload, None, blob)

    def collection_put(self, collection: str, ids: Sequence[str], payloads: Sequence[str], vectors: np.ndarray) -> None:
        """Insert or replace items (id, payload JSON, vector) of a collection atomically."""
        check_name(collection, "collection name")
        item_ids = _check_ids(ids)
        _unique(item_ids, "ids")
        if isinstance(payloads, (str, bytes)) or not isinstance(payloads, Sequence) or len(payloads) != len(item_ids):
            raise InvalidInputError("payloads must be a sequence of JSON strings, one per id")
        texts = [check_json(p) for p in payloads]
        if not item_ids:
            return
        matrix = check_matrix(vectors, len(item_ids))
        with self._lock:
            with self._tx("collection_put") as conn:
                info = self._require_info(conn, matrix.shape[1])
                conn.executemany(
                    "INSERT INTO collection_items (collection, id, payload, vector, embedding_model) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (collection, id) DO UPDATE SET payload = excluded.payload, vector = excluded.vector, "
                    "embedding_model = excluded.embedding_model",
                    [(collection, i, p, encode_vector(matrix[n]), info.model_id) for n, (i, p) in enumerate(zip(item_ids, texts))],
                )
            for n, (i, p) in enumerate(zip(item_ids, texts)):
                self._collections.upsert(collection, _COLLECTION_KEY, i, matrix[n], p)

    def collection_search(self, collection: str, vector: np.ndarray, k: int) -> list[tuple[str, str, float]]:
        """(id, payload JSON, score) of the ``k`` nearest items, best first (ties by id)."""
        check_name(collection, "collection name")
        k = _check_k(k)
        with self._read("collection_search") as conn:
            query, info = self._query(conn, vector)
            if info is None or k == 0:
                return []
            hits = self._collections.search(collection, lambda key: True, query, k)
        return [(h.id, h.payload, h.score) for h in hits]

    def collection_get(self, collection: str, ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(id, payload) of every item in insertion order, or of ``ids`` in that order (missing ids skipped)."""
        check_name(collection, "collection name")
        with self._read("collection_get") as conn:
            if ids is None:
                rows = conn.execute(
                    "SELECT id, payload FROM collection_items WHERE collection = ? ORDER BY rowid", (collection,)
                ).fetchall()
                return [(i, p) for i, p in rows]
            wanted = _check_ids(ids)
            found: dict[str, str] = {}
            for chunk in _chunks(list(dict.fromkeys(wanted))):
                sql = f"SELECT id, payload FROM collection_items WHERE collection = ? AND id IN ({_marks(len(chunk))})"
                found.update(conn.execute(sql, [collection, *chunk]).fetchall())
        return [(i, found[i]) for i in wanted if i in found]

    def collection_count(self, collection: str) -> int:
        check_name(collection, "collection name")
        with self._read("collection_count") as conn:
            return int(conn.execute("SELECT COUNT(*) FROM collection_items WHERE collection = ?", (collection,)).fetchone()[0])

    def collection_delete(self, collection: str, ids: Sequence[str] | None = None) -> int:
        """Delete ``ids`` from a collection (every item if None). Returns the number deleted."""
        check_name(collection, "collection name")
        wanted = None if ids is None else _check_ids(ids)
        with self._lock:
            with self._tx("collection_delete") as conn:
                if wanted is None:
                    deleted = conn.execute("DELETE FROM collection_items WHERE collection = ?", (collection,)).rowcount
                else:
                    deleted = 0
                    for chunk in _chunks(list(dict.fromkeys(wanted))):
                        sql = f"DELETE FROM collection_items WHERE collection = ? AND id IN ({_marks(len(chunk))})"
                        deleted += conn.execute(sql, [collection, *chunk]).rowcount
            if wanted is None:
                self._collections.drop(collection, [_COLLECTION_KEY])
            else:
                for i in wanted:
                    self._collections.remove(collection, _COLLECTION_KEY, i)
        return deleted
