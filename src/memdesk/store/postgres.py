"""The PostgreSQL :class:`~memdesk.store.base.Store`: pgvector columns, named migrations, cached numpy search.

Layout: the SQLite backend's tables (see :mod:`.pg_schema`), in a schema of their own
(``memdesk`` by default) so they never meet an application's tables of the same name. Vectors
are stored in pgvector ``vector`` columns through the binary protocol, so a vector read back is
bit-identical to the float32 vector written (-0.0 and subnormals included).

Concurrency: one connection per store guarded by a lock (safe to share between threads). Every
write is one transaction that first increments the single row of ``changes``; that row lock
serializes writers across processes (what ``BEGIN IMMEDIATE`` does on SQLite), so id checks,
versions and insertion order stay consistent and concurrent writers lose nothing. A writer that
waits longer than ``busy_timeout_ms`` (PostgreSQL's ``lock_timeout``) gets
:class:`~memdesk.errors.StoreLockedError` and writes nothing. Readers never wait (MVCC).

Search: the same exact in-process numpy index as SQLite (:mod:`.vector_index`): vectors of each
(memory type, exact scope) are loaded on first use and updated by this store's own writes. Before
each search the store reads ``changes.counter`` (one indexed single-row read); when another
connection committed since, the cache is dropped and reloaded lazily. Chosen over pgvector's
``ORDER BY vector <#> q`` because a warm search is several times faster (a 20k-vector scope
scores in a few milliseconds, pgvector exact takes tens) and its results and ties are identical
to the SQLite backend's. The cost is a one-time load per process and scope.
"""

from __future__ import annotations

import logging
import struct
import sys
import threading
from array import array
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Iterator, Sequence

import numpy as np
import psycopg
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.adapt import Dumper, Loader
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import Format

from ..errors import (
    ConfigError,
    EmbeddingMismatchError,
    InvalidInputError,
    RecordNotFoundError,
    StoreError,
    StoreLockedError,
)
from ..records import ALL_TYPES, HistoryEntry, HistoryEvent, MemoryRecord, MemoryType, RawMessage, Scope
from .base import EmbeddingInfo, ScoredRecord
from .codec import (
    FLOAT32,
    ScopeTuple,
    check_json,
    check_matrix,
    check_messages,
    check_name,
    check_records,
    check_vector,
    decode_matrix,
    iso_utc,
    provenance_json,
    record_from_json,
    record_json,
    scope_from_tuple,
    scope_key,
    scope_matches,
    scope_tuple,
)
from .migrations import Migration, apply_migrations
from .pg_schema import PG_MIGRATIONS, TABLES
from .sqlite import SQLiteStore, _check_ids, _check_k, _check_scope, _memory_type, _unique
from .vector_index import IndexCache, IndexRow

log = logging.getLogger(__name__)

_PAGE = 500  # records per page when scanning
_LOAD_PAGE = 5000  # rows per page when loading vectors into the cache
_UNSET: Any = object()
_COLLECTION_KEY = ""
_MIGRATION_LOCK = (0x6D656D64, 0x6D696772)  # "memd", "migr": the advisory lock that serializes migrations
_VECTOR_HEADER = struct.Struct(">hh")  # pgvector binary format: dim, unused, then big-endian float4s
_LITTLE_ENDIAN = sys.byteorder == "little" and array("f").itemsize == 4


# --- vectors over the binary protocol ------------------------------------------------------------
class PgVector:
    """A float32 vector to send as a pgvector ``vector`` parameter (binary, bit-exact)."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


class _VectorDumper(Dumper):
    format = Format.BINARY

    def dump(self, obj: PgVector) -> bytes:
        a = obj.array
        return _VECTOR_HEADER.pack(a.shape[0], 0) + a.astype(">f4", copy=False).tobytes()


class _VectorLoader(Loader):
    """Loads a binary ``vector`` as the little-endian float32 bytes :mod:`.codec` uses."""

    format = Format.BINARY

    def load(self, data: Any) -> bytes:
        dim, _ = _VECTOR_HEADER.unpack_from(data)
        if _LITTLE_ENDIAN:  # array's byteswap is about twice as fast as numpy's astype on one row
            floats = array("f")
            floats.frombytes(data[4 : 4 + 4 * dim])
            floats.byteswap()
            return floats.tobytes()
        return np.frombuffer(data, dtype=">f4", count=dim, offset=4).astype(FLOAT32).tobytes()


def _register_vector(conn: psycopg.Connection[Any]) -> None:
    row = conn.execute("SELECT to_regtype('vector')::oid").fetchone()
    if row is None or row[0] is None:
        raise StoreError("the pgvector type 'vector' is not visible on this connection's search_path")
    dumper = type("VectorDumper", (_VectorDumper,), {"oid": int(row[0])})
    conn.adapters.register_dumper(PgVector, dumper)
    conn.adapters.register_loader(int(row[0]), _VectorLoader)


# --- helpers -------------------------------------------------------------------------------------
def _store_error(e: psycopg.Error, what: str) -> Exception:
    if isinstance(e, pg_errors.LockNotAvailable):
        return StoreLockedError(f"{what}: the database stayed locked past the lock timeout ({e})")
    if isinstance(e, psycopg.DataError) and "NUL" in str(e):
        return InvalidInputError(f"{what}: PostgreSQL text cannot hold NUL characters ({e})")
    return StoreError(f"{what}: {e}")


def _where(scope: Scope | None) -> tuple[str, list[Any]]:
    """SQL condition (and parameters) for rows under a possibly-wildcard scope."""
    if scope is None:
        return "true", []
    if scope.user_id is not None and scope.agent_id is not None and scope.run_id is not None:
        return "scope_key = %s", [scope_key(scope)]
    conds, params = [], []
    for column, value in (("user_id", scope.user_id), ("agent_id", scope.agent_id), ("run_id", scope.run_id)):
        if value is not None:
            conds.append(f"{column} = %s")
            params.append(value)
    return " AND ".join(conds), params


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def describe_dsn(dsn: str) -> str:
    """A connection string without its password, for messages and logs."""
    try:
        params = conninfo_to_dict(dsn)
    except psycopg.Error:
        return "(unparsable connection string)"
    host = params.get("host") or "localhost"
    port = f":{params['port']}" if params.get("port") else ""
    user = f"{params['user']}@" if params.get("user") else ""
    return f"postgresql://{user}{host}{port}/{params.get('dbname') or ''}"


class _MigrationTarget:
    """Adapts a store's connection to :class:`~memdesk.store.migrations.MigrationTarget`."""

    def __init__(self, store: "PostgresStore") -> None:
        self._store = store

    def recorded_migrations(self) -> list[str] | None:
        with self._store._read("read migrations") as conn:
            name = sql.Identifier(self._store.schema, "migrations").as_string(conn)
            row = conn.execute("SELECT to_regclass(%s)", [name]).fetchone()
            return self.applied_migrations(conn) if row is not None and row[0] is not None else None

    def ensure_migrations_table(self) -> None:
        with self._store._locked_tx("create migrations table") as conn:
            row = conn.execute("SELECT to_regnamespace(%s)", [self._store._quoted_schema]).fetchone()
            if row is None or row[0] is None:
                conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(self._store.schema)))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS migrations ("
                "pos bigint GENERATED ALWAYS AS IDENTITY UNIQUE, name text PRIMARY KEY, applied_at timestamptz NOT NULL)"
            )

    def migration_transaction(self) -> Any:
        return self._store._locked_tx("migration")

    def applied_migrations(self, conn: psycopg.Connection[Any]) -> list[str]:
        return [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY pos")]

    def record_migration(self, conn: psycopg.Connection[Any], name: str, applied_at: datetime) -> None:
        conn.execute("INSERT INTO migrations (name, applied_at) VALUES (%s, %s)", (name, applied_at))


# --- the store -----------------------------------------------------------------------------------
class PostgresStore:
    """A :class:`~memdesk.store.base.Store` in a PostgreSQL database with pgvector.

    ``dsn`` is a libpq connection string or ``postgresql://`` URL. The tables live in ``schema``
    (created, with the ``vector`` extension if missing, by the first open). Same extras as
    :class:`~memdesk.store.sqlite.SQLiteStore`: :meth:`iter_all_records`,
    :meth:`rewrite_vectors`, :meth:`collection_rewrite_vectors`, :meth:`collections`,
    :meth:`collection_delete` and :meth:`migrations_applied`.

    Collections are upserts. Vectors are expected to be unit-norm; scores are dot products.
    """

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = "memdesk",
        busy_timeout_ms: int = 5000,
        connect_timeout_s: int = 10,
        migrations: Sequence[Migration[psycopg.Connection[Any]]] = PG_MIGRATIONS,
    ) -> None:
        if isinstance(busy_timeout_ms, bool) or not isinstance(busy_timeout_ms, int) or busy_timeout_ms < 0:
            raise ConfigError(f"busy_timeout_ms must be a non-negative integer, got {busy_timeout_ms!r}")
        if not isinstance(schema, str) or not schema or len(schema) > 63 or "\x00" in schema:
            raise ConfigError(f"invalid schema name {schema!r}")
        if not isinstance(dsn, str):
            raise ConfigError(f"a PostgreSQL connection string must be a string, got {type(dsn).__name__}")
        try:
            conninfo_to_dict(dsn)
        except psycopg.Error as e:
            raise ConfigError(f"invalid PostgreSQL connection string: {e}") from None
        self.dsn = dsn
        self.schema = schema
        self.busy_timeout_ms = busy_timeout_ms
        self.connect_timeout_s = connect_timeout_s
        self._lock = threading.RLock()
        self._info: EmbeddingInfo | None = _UNSET
        self._version = -1
        self._records: IndexCache[ScopeTuple] = IndexCache(self._record_keys, self._record_rows)
        self._collections: IndexCache[str] = IndexCache(self._collection_keys, self._collection_rows)
        self._conn: psycopg.Connection[Any] | None = self._connect()
        try:
            self._quoted_schema = sql.Identifier(schema).as_string(self._conn)
            with self._read("open") as conn:  # the extension, if installed yet, must be visible to migrations
                self._set_search_path(conn, [schema, self._extension_schema(conn) or "public"])
            apply_migrations(_MigrationTarget(self), migrations)
            with self._read("open") as conn:
                ext = self._extension_schema(conn)
                if ext is None:
                    raise StoreError("the pgvector extension is not installed in this database")
                self._set_search_path(conn, [schema, ext])
                _register_vector(conn)
                self._version = self._read_version(conn)
        except BaseException:
            self.close()
            raise

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            conn = psycopg.connect(
                self.dsn, autocommit=True, connect_timeout=self.connect_timeout_s, application_name="memdesk"
            )
        except psycopg.Error as e:
            raise StoreError(f"cannot connect to {describe_dsn(self.dsn)}: {e}") from e
        try:
            conn.execute("SET TIME ZONE 'UTC'")
            # lock_timeout 0 would mean "wait forever": a zero busy timeout waits 1 ms instead
            conn.execute(sql.SQL("SET lock_timeout = {}").format(sql.Literal(max(1, self.busy_timeout_ms))))
        except psycopg.Error as e:
            conn.close()
            raise StoreError(f"cannot configure the connection to {describe_dsn(self.dsn)}: {e}") from e
        return conn

    @staticmethod
    def _set_search_path(conn: psycopg.Connection[Any], schemas: Sequence[str]) -> None:
        unique = list(dict.fromkeys(schemas))
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.SQL(", ").join(map(sql.Identifier, unique))))

    @staticmethod
    def _extension_schema(conn: psycopg.Connection[Any]) -> str | None:
        """The schema pgvector is installed in, or None if it is not installed."""
        row = conn.execute(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
        ).fetchone()
        return None if row is None else str(row[0])

    # -- plumbing ----------------------------------------------------------------------------
    def __enter__(self) -> "PostgresStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PostgresStore({describe_dsn(self.dsn)!r}, schema={self.schema!r})"

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None:
            raise StoreError("the store is closed")
        return self._conn

    @contextmanager
    def _read(self, what: str) -> Iterator[psycopg.Connection[Any]]:
        with self._lock:
            conn = self._connection()
            try:
                yield conn
            except psycopg.Error as e:
                raise _store_error(e, what) from e

    @contextmanager
    def _locked_tx(self, what: str) -> Iterator[psycopg.Connection[Any]]:
        """A transaction holding the database-wide memdesk migration lock (taken before ``changes`` exists).

        Database-wide rather than per schema: stores in two schemas may both create the extension.
        """
        with self._lock:
            conn = self._connection()
            try:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", _MIGRATION_LOCK)
                    yield conn
            except psycopg.Error as e:
                raise _store_error(e, what) from e

    @contextmanager
    def _tx(self, what: str) -> Iterator[psycopg.Connection[Any]]:
        """One write transaction, serialized with every other writer: committed on success, else rolled back.

        It first increments ``changes.counter`` (taking the row lock writers queue on). After the
        commit, a counter that moved by more than this transaction's one step means someone else
        wrote since this store last looked, so the vector cache is dropped.
        """
        with self._lock:
            conn = self._connection()
            try:
                with conn.transaction():
                    row = conn.execute(
                        "UPDATE changes SET counter = counter + 1, last_xact = txid_current() RETURNING counter"
                    ).fetchone()
                    version = int(row[0]) if row is not None else -1
                    yield conn
            except psycopg.Error as e:
                raise _store_error(e, what) from e
            if version != self._version + 1:
                log.debug("database changed by another connection: dropping the vector cache")
                self._invalidate()
            self._version = version

    @staticmethod
    def _read_version(conn: psycopg.Connection[Any]) -> int:
        row = conn.execute("SELECT counter FROM changes").fetchone()
        if row is None:
            raise StoreError("the changes row is missing: the memdesk schema was altered by hand")
        return int(row[0])

    def _sync(self, conn: psycopg.Connection[Any]) -> None:
        """Drop the caches if another connection committed since the last check."""
        version = self._read_version(conn)
        if version != self._version:
            log.debug("database changed by another connection: dropping the vector cache")
            self._version = version
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
    def _read_info(conn: psycopg.Connection[Any]) -> EmbeddingInfo | None:
        rows = conn.execute("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')").fetchall()
        meta = dict(rows)
        if "embedding_model" not in meta:
            return None
        return EmbeddingInfo(model_id=meta["embedding_model"], dim=int(meta["embedding_dim"]))

    @staticmethod
    def _write_info(conn: psycopg.Connection[Any], info: EmbeddingInfo) -> None:
        conn.cursor().executemany(
            "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            [("embedding_model", info.model_id), ("embedding_dim", str(info.dim))],
        )

    def _cached_info(self, conn: psycopg.Connection[Any]) -> EmbeddingInfo | None:
        if self._info is _UNSET:
            self._info = self._read_info(conn)
        return self._info

    def embedding_info(self) -> EmbeddingInfo | None:
        """The model/dim that wrote the vectors, or None before :meth:`set_embedding_info`."""
        with self._read("embedding_info") as conn:
            return self._read_info(conn)

    @staticmethod
    def _has_vectors(conn: psycopg.Connection[Any]) -> bool:
        tables = [*TABLES.values(), "collection_items"]
        row = conn.execute("SELECT " + " OR ".join(f"EXISTS (SELECT 1 FROM {t})" for t in tables)).fetchone()
        return bool(row and row[0])

    @staticmethod
    def _check_info(info: Any) -> EmbeddingInfo:
        return SQLiteStore._check_info(info)

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

    def _require_info(self, conn: psycopg.Connection[Any], dim: int, models: Sequence[str | None] = ()) -> EmbeddingInfo:
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
            rows = conn.execute("SELECT user_id, agent_id, run_id FROM scopes ORDER BY pos").fetchall()
        return [scope_from_tuple((r[0], r[1], r[2])) for r in rows]

    def collections(self) -> list[str]:
        """Names of the collections that hold items."""
        with self._read("collections") as conn:
            return [r[0] for r in conn.execute("SELECT DISTINCT collection FROM collection_items ORDER BY collection")]

    def migrations_applied(self) -> list[tuple[str, datetime]]:
        """(name, applied_at) of every applied schema migration, in order."""
        with self._read("migrations_applied") as conn:
            rows = conn.execute("SELECT name, applied_at FROM migrations ORDER BY pos").fetchall()
        return [(name, at) for name, at in rows]

    # -- records -----------------------------------------------------------------------------
    @staticmethod
    def _existing(conn: psycopg.Connection[Any], ids: Sequence[str]) -> list[str]:
        query = " UNION ALL ".join(f"SELECT id FROM {t} WHERE id = ANY(%(ids)s::text[])" for t in TABLES.values())
        return [r[0] for r in conn.execute(query, {"ids": list(ids)})]

    @staticmethod
    def _last_versions(conn: psycopg.Connection[Any], ids: Sequence[str]) -> dict[str, int]:
        rows = conn.execute(
            "SELECT record_id, MAX(version) FROM history WHERE record_id = ANY(%s::text[]) GROUP BY record_id", [list(ids)]
        ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    @staticmethod
    def _scope_row(scope: Scope, now: datetime) -> tuple[Any, ...]:
        return (scope_key(scope), scope.user_id, scope.agent_id, scope.run_id, now)

    @staticmethod
    def _record_row(
        record: MemoryRecord, payload: str, vector: np.ndarray, seq: int, version: int, model: str
    ) -> tuple[Any, ...]:
        s = record.scope
        return (
            record.id, seq, scope_key(s), s.user_id, s.agent_id, s.run_id, record.speaker,
            iso_utc(record.event_time), iso_utc(record.ingest_time), provenance_json(record),
            record.embedding_model or model, payload, PgVector(vector), version,
        )  # fmt: skip

    _RECORD_COLUMNS = (
        "id, seq, scope_key, user_id, agent_id, run_id, speaker, event_time, ingest_time, "
        "provenance, embedding_model, record, vector, version"
    )
    _RECORD_VALUES = "%s, %s, %s, %s, %s, %s, %s, %s::timestamptz, %s::timestamptz, %s, %s, %s, %b, %s"
    _INSERT_HISTORY = (
        "INSERT INTO history (record_id, memory_type, version, event, scope_key, record, changed_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s)"
    )
    _INSERT_SCOPE = (
        "INSERT INTO scopes (scope_key, user_id, agent_id, run_id, created_at) VALUES (%s, %s, %s, %s, %s) "
        "ON CONFLICT (scope_key) DO NOTHING"
    )

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
        message_rows = SQLiteStore._message_rows(check_messages(messages))
        batch = SQLiteStore._prepare_records(records, vectors)
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

    def _insert_records(
        self, conn: psycopg.Connection[Any], recs: list[MemoryRecord], matrix: np.ndarray, payloads: list[str]
    ) -> None:
        info = self._require_info(conn, matrix.shape[1], [r.embedding_model for r in recs])
        ids = [r.id for r in recs]
        existing = self._existing(conn, ids)
        if existing:
            raise InvalidInputError(f"record ids already exist (use replace): {sorted(existing)[:5]}")
        seqs = [int(r[0]) for r in conn.execute("SELECT nextval('record_seq') FROM generate_series(1, %s)", [len(recs)])]
        versions = self._last_versions(conn, ids)
        now = _utc_now()
        by_table: dict[str, list[tuple[Any, ...]]] = {}
        history: list[tuple[Any, ...]] = []
        scopes: dict[str, tuple[Any, ...]] = {}
        for i, (r, payload) in enumerate(zip(recs, payloads)):
            version = versions.get(r.id, 0) + 1
            by_table.setdefault(TABLES[r.memory_type], []).append(
                self._record_row(r, payload, matrix[i], seqs[i], version, info.model_id)
            )
            history.append((r.id, r.type, version, HistoryEvent.ADD.value, scope_key(r.scope), payload, now))
            scopes.setdefault(scope_key(r.scope), self._scope_row(r.scope, now))
        cur = conn.cursor()
        for table, rows in by_table.items():
            cur.executemany(f"INSERT INTO {table} ({self._RECORD_COLUMNS}) VALUES ({self._RECORD_VALUES})", rows)
        cur.executemany(self._INSERT_HISTORY, history)
        cur.executemany(self._INSERT_SCOPE, list(scopes.values()))

    @staticmethod
    def _find(conn: psycopg.Connection[Any], record_id: str) -> tuple[MemoryType, ScopeTuple, int, int, str] | None:
        """(type, scope, seq, version, record JSON) of a current record, or None."""
        query = " UNION ALL ".join(
            f"SELECT '{mt.value}', user_id, agent_id, run_id, seq, version, record FROM {t} WHERE id = %(id)s"
            for mt, t in TABLES.items()
        )
        row = conn.execute(query, {"id": record_id}).fetchone()
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
                    conn.execute(f"DELETE FROM {TABLES[old_type]} WHERE id = %s", (rec.id,))
                    conn.execute(f"INSERT INTO {new_table} ({self._RECORD_COLUMNS}) VALUES ({self._RECORD_VALUES})", row)
                else:
                    columns = self._RECORD_COLUMNS.split(", ")[1:]
                    marks = self._RECORD_VALUES.split(", ")[1:]
                    sets = ", ".join(f"{c} = {m}" for c, m in zip(columns, marks))
                    conn.execute(f"UPDATE {new_table} SET {sets} WHERE id = %s", (*row[1:], rec.id))
                now = _utc_now()
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
            unique = list(dict.fromkeys(wanted))
            cur = conn.cursor(binary=True)
            rows = cur.execute(f"SELECT id, vector FROM {table} WHERE id = ANY(%s::text[])", [unique]).fetchall()
            blobs: dict[str, bytes] = {r[0]: r[1] for r in rows}
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
                        (record_id, mt.value, version + 1, HistoryEvent.DELETE.value, scope_key(scope), payload, _utc_now()),
                    )
                    conn.execute(f"DELETE FROM {TABLES[mt]} WHERE id = %s", (record_id,))
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
                now = _utc_now()
                cur = conn.cursor()
                for mt, table in TABLES.items():
                    rows = cur.execute(
                        f"DELETE FROM {table} WHERE {where} RETURNING id, version, scope_key, record, user_id, agent_id, run_id",
                        params,
                    ).fetchall()
                    if not rows:
                        continue
                    cur.executemany(
                        self._INSERT_HISTORY,
                        [(r[0], mt.value, r[1] + 1, HistoryEvent.DELETE.value, r[2], r[3], now) for r in rows],
                    )
                    dropped[mt] = {(r[4], r[5], r[6]) for r in rows}
                    total += len(rows)
                cur.execute(f"DELETE FROM messages WHERE {where}", params)
                cur.execute(f"DELETE FROM scopes WHERE {where}", params)
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
            where += " AND speaker = %s"
            params = [*params, speaker]
        parts = [f"SELECT '{mt.value}' AS t, record, seq FROM {TABLES[mt]} WHERE {where} AND seq > %s" for mt in types]
        query = f"SELECT t, record, seq FROM ({' UNION ALL '.join(parts)}) AS u ORDER BY seq LIMIT {_PAGE}"
        last = 0
        while True:
            with self._read("scan") as conn:
                rows = conn.execute(query, [*params, last] * len(types)).fetchall()
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
        query = " + ".join(f"(SELECT COUNT(*) FROM {TABLES[mt]} WHERE {where})" for mt in types)
        with self._read("count") as conn:
            row = conn.execute(f"SELECT {query}", params * len(types)).fetchone()
        return int(row[0]) if row is not None else 0

    def history(self, record_id: str) -> list[HistoryEntry]:
        """All versions of a record, oldest first (ADD, UPDATE..., DELETE); [] for an unknown id."""
        if not isinstance(record_id, str):
            raise InvalidInputError(f"record id must be a string, got {type(record_id).__name__}")
        with self._read("history") as conn:
            rows = conn.execute(
                "SELECT version, event, memory_type, record, changed_at FROM history WHERE record_id = %s ORDER BY hid",
                (record_id,),
            ).fetchall()
        return [
            HistoryEntry(
                record_id=record_id,
                version=version,
                event=HistoryEvent(event),
                record=record_from_json(mt, payload),
                changed_at=at,
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
        """Rows of ``keys`` in insertion order, read in pages (bounded memory for large scopes)."""
        cur = self._connection().cursor(binary=True)
        table = TABLES[MemoryType(namespace)]
        query = (
            f"SELECT user_id, agent_id, run_id, id, record, speaker, vector, embedding_model, seq FROM {table} "
            f"WHERE scope_key = ANY(%s::text[]) AND seq > %s ORDER BY seq LIMIT {_LOAD_PAGE}"
        )
        wanted = [scope_key(k) for k in keys]
        last = 0
        while True:
            rows = cur.execute(query, [wanted, last]).fetchall()
            for u, a, r, item_id, payload, speaker, blob, model, _ in rows:
                self._check_row_model(model, blob)
                yield IndexRow((u, a, r), item_id, payload, speaker, blob)
            if len(rows) < _LOAD_PAGE:
                return
            last = rows[-1][8]

    def _query(self, conn: psycopg.Connection[Any], vector: Any) -> tuple[np.ndarray, EmbeddingInfo | None]:
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

        Ties are broken by id. Runs one single-row read (the change counter) when the cache is warm.
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
    def _stale_vectors(conn: psycopg.Connection[Any], info: EmbeddingInfo) -> dict[str, int]:
        """Where vectors not written by ``info`` remain: {table or collection: count}."""
        out: dict[str, int] = {}
        params = (info.model_id, info.dim)
        for table in TABLES.values():
            row = conn.execute(
                f"SELECT COUNT(*) FROM {table} WHERE embedding_model <> %s OR vector_dims(vector) <> %s", params
            ).fetchone()
            if row is not None and row[0]:
                out[table] = int(row[0])
        for name, n in conn.execute(
            "SELECT collection, COUNT(*) FROM collection_items WHERE embedding_model <> %s OR vector_dims(vector) <> %s "
            "GROUP BY collection",
            params,
        ):
            out[f"collection {name!r}"] = int(n)
        return out

    def _switch_if_complete(self, conn: psycopg.Connection[Any], info: EmbeddingInfo, *, required: bool) -> None:
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

        Same contract as :meth:`memdesk.store.sqlite.SQLiteStore.rewrite_vectors`: the embedding
        info switches in the call after which no vector by another model remains;
        ``rewrite_vectors(None, [], None, info)`` only switches (or raises InvalidInputError).
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
                found = conn.execute(f"SELECT id, record FROM {table} WHERE id = ANY(%s::text[])", [wanted]).fetchall()
                payloads: dict[str, str] = {r[0]: r[1] for r in found}
                missing = [i for i in wanted if i not in payloads]
                if missing:
                    raise RecordNotFoundError(f"no {mt.value} record(s) with id {missing[:5]}")
                rows = []
                for i, item_id in enumerate(wanted):
                    rec = record_from_json(mt, payloads[item_id])
                    if rec.embedding_model is not None:
                        rec = rec.model_copy(update={"embedding_model": info.model_id})
                    rows.append((PgVector(matrix[i]), info.model_id, record_json(rec), item_id))
                conn.cursor().executemany(
                    f"UPDATE {table} SET vector = %b, embedding_model = %s, record = %s WHERE id = %s", rows
                )
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
                present = {
                    r[0]
                    for r in conn.execute(
                        "SELECT id FROM collection_items WHERE collection = %s AND id = ANY(%s::text[])", [collection, wanted]
                    )
                }
                missing = [i for i in wanted if i not in present]
                if missing:
                    raise RecordNotFoundError(f"no item(s) {missing[:5]} in collection {collection!r}")
                conn.cursor().executemany(
                    "UPDATE collection_items SET vector = %b, embedding_model = %s WHERE collection = %s AND id = %s",
                    [(PgVector(matrix[i]), info.model_id, collection, item_id) for i, item_id in enumerate(wanted)],
                )
                self._switch_if_complete(conn, info, required=False)
            self._invalidate()

    # -- raw message log -----------------------------------------------------------------------
    def log_messages(self, messages: Sequence[RawMessage]) -> None:
        """Append messages to the raw log atomically. Re-logging an existing (scope, id) is a no-op.

        The store assigns ``seq`` (the log order); a given ``seq`` is ignored.
        """
        rows = SQLiteStore._message_rows(check_messages(messages))
        if rows:
            with self._tx("log_messages") as conn:
                self._insert_messages(conn, rows)

    def _insert_messages(self, conn: psycopg.Connection[Any], rows: list[tuple[Any, ...]]) -> None:
        now = _utc_now()
        cur = conn.cursor()
        cur.executemany(
            "INSERT INTO messages (scope_key, user_id, agent_id, run_id, id, speaker, role, content, "
            '"timestamp", ingest_time, route_mask, metadata) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) '
            "ON CONFLICT (scope_key, id) DO NOTHING",
            rows,
        )
        scopes = {r[0]: (r[0], r[1], r[2], r[3], now) for r in rows}
        cur.executemany(self._INSERT_SCOPE, list(scopes.values()))

    def messages(self, scope: Scope, last: int | None = None) -> list[RawMessage]:
        """Logged messages under ``scope`` (wildcards allowed) in log order, ``seq`` filled in.

        With ``last``, only the last ``last`` messages (still oldest first).
        """
        _check_scope(scope)
        if last is not None:
            last = _check_k(last)
        where, params = _where(scope)
        columns = 'user_id, agent_id, run_id, id, speaker, role, content, "timestamp", ingest_time, route_mask, metadata, seq'
        with self._read("messages") as conn:
            if last is None:
                rows = conn.execute(f"SELECT {columns} FROM messages WHERE {where} ORDER BY seq", params).fetchall()
            else:
                query = f"SELECT {columns} FROM messages WHERE {where} ORDER BY seq DESC LIMIT %s"
                rows = conn.execute(query, [*params, last]).fetchall()[::-1]
        return [SQLiteStore._message_from_row(row) for row in rows]

    def has_message(self, scope: Scope, message_id: str) -> bool:
        """True if a message with that id is logged under ``scope`` (wildcards allowed)."""
        _check_scope(scope)
        where, params = _where(scope)
        with self._read("has_message") as conn:
            row = conn.execute(f"SELECT 1 FROM messages WHERE {where} AND id = %s LIMIT 1", [*params, message_id]).fetchone()
        return row is not None

    # -- collections ---------------------------------------------------------------------------
    def _collection_keys(self, namespace: str) -> list[str]:
        row = self._connection().execute("SELECT 1 FROM collection_items WHERE collection = %s LIMIT 1", (namespace,))
        return [_COLLECTION_KEY] if row.fetchone() is not None else []

    def _collection_rows(self, namespace: str, keys: Sequence[str]) -> Iterator[IndexRow[str]]:
        cur = self._connection().cursor(binary=True)
        query = "SELECT id, payload, vector, embedding_model FROM collection_items WHERE collection = %s ORDER BY pos"
        for item_id, payload, blob, model in cur.execute(query, (namespace,)):
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
                conn.cursor().executemany(
                    "INSERT INTO collection_items (collection, id, payload, vector, embedding_model) "
                    "VALUES (%s, %s, %s, %b, %s) ON CONFLICT (collection, id) DO UPDATE SET payload = EXCLUDED.payload, "
                    "vector = EXCLUDED.vector, embedding_model = EXCLUDED.embedding_model",
                    [(collection, i, p, PgVector(matrix[n]), info.model_id) for n, (i, p) in enumerate(zip(item_ids, texts))],
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
                    "SELECT id, payload FROM collection_items WHERE collection = %s ORDER BY pos", (collection,)
                ).fetchall()
                return [(i, p) for i, p in rows]
            wanted = _check_ids(ids)
            found: dict[str, str] = {
                r[0]: r[1]
                for r in conn.execute(
                    "SELECT id, payload FROM collection_items WHERE collection = %s AND id = ANY(%s::text[])",
                    [collection, list(dict.fromkeys(wanted))],
                )
            }
        return [(i, found[i]) for i in wanted if i in found]

    def collection_count(self, collection: str) -> int:
        check_name(collection, "collection name")
        with self._read("collection_count") as conn:
            row = conn.execute("SELECT COUNT(*) FROM collection_items WHERE collection = %s", (collection,)).fetchone()
        return int(row[0]) if row is not None else 0

    def collection_delete(self, collection: str, ids: Sequence[str] | None = None) -> int:
        """Delete ``ids`` from a collection (every item if None). Returns the number deleted."""
        check_name(collection, "collection name")
        wanted = None if ids is None else _check_ids(ids)
        with self._lock:
            with self._tx("collection_delete") as conn:
                if wanted is None:
                    deleted = conn.execute("DELETE FROM collection_items WHERE collection = %s", (collection,)).rowcount
                else:
                    deleted = conn.execute(
                        "DELETE FROM collection_items WHERE collection = %s AND id = ANY(%s::text[])",
                        [collection, list(dict.fromkeys(wanted))],
                    ).rowcount
            if wanted is None:
                self._collections.drop(collection, [_COLLECTION_KEY])
            else:
                for i in wanted:
                    self._collections.remove(collection, _COLLECTION_KEY, i)
        return deleted


__all__ = ["PG_MIGRATIONS", "PgVector", "PostgresStore", "describe_dsn"]
