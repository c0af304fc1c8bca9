"""What the SQL store backends share: :class:`SQLStoreBase` and the record tables' schema.

The SQLite and PostgreSQL stores keep the same tables and the same rules, so everything that does
not depend on the SQL dialect lives here once: argument checks, record and row conversion, the
history bookkeeping, scans, counts, the raw message log, collections, re-embedding and the
in-memory vector cache (:mod:`.vector_index`) with its invalidation. A backend subclass supplies
the connection and a few small hooks: its parameter marks, how a vector is sent and read back,
the write transaction, the change counter, how lists of ids are bound, and its time values.
"""

from __future__ import annotations

import logging
import threading
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from functools import partial
from typing import Any, Callable, ClassVar, Iterator, Self, Sequence

import numpy as np

from ..errors import (
    ConfigError,
    EmbeddingMismatchError,
    InvalidInputError,
    RecordNotFoundError,
    StoreError,
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
    MESSAGE_COLUMNS,
    ScopeTuple,
    check_ids,
    check_json,
    check_k,
    check_matrix,
    check_memory_type,
    check_messages,
    check_name,
    check_record_id,
    check_records,
    check_scope,
    check_speaker,
    check_unique,
    check_vector,
    decode_matrix,
    iso_utc,
    message_from_row,
    message_rows,
    provenance_json,
    record_from_json,
    record_json,
    scope_from_tuple,
    scope_key,
    scope_matches,
    scope_tuple,
)
from .vector_index import IndexCache, IndexRow

log = logging.getLogger(__name__)

TABLES: dict[MemoryType, str] = {
    MemoryType.EPISODIC: "episodic_memory",
    MemoryType.SEMANTIC: "semantic_memory",
    MemoryType.PROCEDURAL: "procedural_memory",
}
"""The table of each memory type, in every backend."""

CHUNK = 900  # bound parameters per IN (...) list, for dialects that bind ids one by one
PAGE = 500  # records per page when scanning
#: Record vectors kept in memory across scopes (least recently searched scopes are unloaded past it):
#: about 1.5 GB of 384-d float32 plus payloads. None: no bound.
DEFAULT_CACHE_MAX_ROWS = 1_000_000
RECORD_COLUMNS = (
    "id, seq, scope_key, user_id, agent_id, run_id, speaker, event_time, ingest_time, "
    "provenance, embedding_model, record, vector, version"
)
"""The columns of a record table, in the order :meth:`SQLStoreBase._record_row` fills them."""
_HISTORY_COLUMNS = "record_id, memory_type, version, event, scope_key, record, changed_at"
_SCOPE_COLUMNS = "scope_key, user_id, agent_id, run_id, created_at"
_MESSAGE_READ_COLUMNS = (
    'user_id, agent_id, run_id, id, speaker, role, content, "timestamp", ingest_time, route_mask, metadata, seq'
)
_UNSET: Any = object()
_COLLECTION_KEY = ""


def record_table_ddl(table: str, *, text: str, seq: str, time: str, vector: str, version: str) -> list[str]:
    """``CREATE`` statements of one record table and its indexes, given the dialect's column types."""
    return [
        f"""CREATE TABLE {table} (
                id {text} PRIMARY KEY,
                seq {seq} NOT NULL,
                scope_key {text} NOT NULL, user_id {text}, agent_id {text}, run_id {text},
                speaker {text}, event_time {time}, ingest_time {time} NOT NULL,
                provenance {text} NOT NULL, embedding_model {text} NOT NULL,
                record {text} NOT NULL, vector {vector} NOT NULL, version {version} NOT NULL)""",
        f"CREATE INDEX ix_{table}_scope ON {table} (scope_key, seq)",
        f"CREATE INDEX ix_{table}_user ON {table} (user_id, agent_id, run_id)",
        f"CREATE INDEX ix_{table}_agent ON {table} (agent_id)",
        f"CREATE INDEX ix_{table}_run ON {table} (run_id)",
        f"CREATE INDEX ix_{table}_seq ON {table} (seq)",
    ]


def _paged(read: Callable[[Any], list[Any]], page: int) -> Iterator[Any]:
    """Rows of ``read(last)`` page after page; ``read`` returns up to ``page`` rows after ``last`` (the
    last column of the previous page's last row), in that column's order."""
    last: Any = 0
    while True:
        rows = read(last)
        yield from rows
        if len(rows) < page:
            return
        last = rows[-1][-1]


def _fetch_after(cur: Any, query: str, params: list[Any], last: Any) -> list[Any]:
    return list(cur.execute(query, [*params, last]).fetchall())


class SQLStoreBase:
    """A :class:`~memdesk.store.base.Store` over one SQL connection, less the dialect.

    Subclasses set the class attributes below, open ``self._conn`` in their constructor after
    calling this one, and implement the hooks at the top of the class (those raising
    NotImplementedError). Connections are used by one thread at a time under ``self._lock``.
    """

    _P: ClassVar[str]
    """The dialect's parameter mark."""
    _VEC: ClassVar[str]
    """The mark of a vector parameter (one :meth:`_vector_param` value)."""
    _TIME: ClassVar[str]
    """The mark of a record's time query column (an ISO-8601 string parameter)."""
    _POS: ClassVar[str]
    """The column that orders ``scopes``, ``collection_items`` and ``migrations`` by insertion."""
    _LOAD_PAGE: ClassVar[int | None]
    """Rows per page when loading a scope's vectors into the cache; None: one query."""
    _DB_ERROR: ClassVar[type[Exception]]
    """The driver's base exception, turned into :mod:`memdesk.errors` ones by :meth:`_store_error`."""

    def __init__(self, busy_timeout_ms: int, cache_max_rows: int | None = DEFAULT_CACHE_MAX_ROWS) -> None:
        if isinstance(busy_timeout_ms, bool) or not isinstance(busy_timeout_ms, int) or busy_timeout_ms < 0:
            raise ConfigError(f"busy_timeout_ms must be a non-negative integer, got {busy_timeout_ms!r}")
        if cache_max_rows is not None and (
            isinstance(cache_max_rows, bool) or not isinstance(cache_max_rows, int) or cache_max_rows < 1
        ):
            raise ConfigError(f"cache_max_rows must be a positive integer or None, got {cache_max_rows!r}")
        self.busy_timeout_ms = busy_timeout_ms
        self._lock = threading.RLock()
        self._info: EmbeddingInfo | None = _UNSET
        self._version = -1  # the change counter last seen (see _sync)
        self._records: IndexCache[ScopeTuple] = IndexCache(self._record_keys, self._record_rows, max_rows=cache_max_rows)
        self._collections: IndexCache[str] = IndexCache(self._collection_keys, self._collection_rows)
        self._conn: Any = None

    # -- dialect hooks -------------------------------------------------------------------------
    @staticmethod
    def _store_error(e: Any, what: str) -> Exception:
        """The :mod:`memdesk.errors` exception for a driver error ``e`` raised while doing ``what``."""
        raise NotImplementedError

    def _tx(self, what: str) -> AbstractContextManager[Any]:
        """One write transaction, serialized with every other writer: committed on success, else rolled back."""
        raise NotImplementedError

    @staticmethod
    def _read_version(conn: Any) -> int:
        """A counter that moves when another connection commits (see :meth:`_sync`)."""
        raise NotImplementedError

    @staticmethod
    def _now() -> Any:
        """The current time as the dialect stores ``changed_at`` and ``created_at``."""
        raise NotImplementedError

    @staticmethod
    def _time_from_db(value: Any) -> datetime:
        """A ``changed_at`` or ``applied_at`` value as read back."""
        raise NotImplementedError

    @staticmethod
    def _vector_param(vector: np.ndarray) -> Any:
        """One float32 vector as the parameter :attr:`_VEC` binds."""
        raise NotImplementedError

    @staticmethod
    def _vector_cursor(conn: Any) -> Any:
        """Something with ``execute(sql, params)`` whose rows give vectors as little-endian float32 bytes."""
        raise NotImplementedError

    @staticmethod
    def _executemany(conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        raise NotImplementedError

    @staticmethod
    def _id_chunks(column: str, ids: Sequence[str], size: int = CHUNK) -> Iterator[tuple[str, list[Any]]]:
        """(condition, parameters) pairs selecting rows whose ``column`` is in ``ids``, together covering all."""
        raise NotImplementedError

    @staticmethod
    def _next_seqs(conn: Any, n: int) -> list[int]:
        """``n`` new record ``seq`` values, ascending (inside a write transaction)."""
        raise NotImplementedError

    @staticmethod
    def _delete_returning(conn: Any, table: str, where: str, params: list[Any], columns: str) -> list[Any]:
        """Delete the rows of ``table`` matching ``where``; return their ``columns``."""
        raise NotImplementedError

    @staticmethod
    def _vector_size(info: EmbeddingInfo) -> tuple[str, int]:
        """(SQL expression of a stored vector's size, its value for a vector of ``info``'s dimension)."""
        raise NotImplementedError

    # -- plumbing ----------------------------------------------------------------------------
    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _connection(self) -> Any:
        if self._conn is None:
            raise StoreError("the store is closed")
        return self._conn

    @contextmanager
    def _read(self, what: str) -> Iterator[Any]:
        with self._lock:
            conn = self._connection()
            try:
                yield conn
            except self._DB_ERROR as e:
                raise self._store_error(e, what) from e

    def _sync(self, conn: Any) -> None:
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

    def _marks(self, n: int) -> str:
        return ", ".join([self._P] * n)

    def _where(self, scope: Scope | None) -> tuple[str, list[Any]]:
        """SQL condition (and parameters) for rows under a possibly-wildcard scope."""
        if scope is None:
            return "1 = 1", []
        if scope.user_id is not None and scope.agent_id is not None and scope.run_id is not None:
            return f"scope_key = {self._P}", [scope_key(scope)]
        conds, params = [], []
        for column, value in (("user_id", scope.user_id), ("agent_id", scope.agent_id), ("run_id", scope.run_id)):
            if value is not None:
                conds.append(f"{column} = {self._P}")
                params.append(value)
        return " AND ".join(conds), params

    @property
    def _insert_history(self) -> str:
        return f"INSERT INTO history ({_HISTORY_COLUMNS}) VALUES ({self._marks(7)})"

    @property
    def _insert_scope(self) -> str:
        return f"INSERT INTO scopes ({_SCOPE_COLUMNS}) VALUES ({self._marks(5)}) ON CONFLICT (scope_key) DO NOTHING"

    @property
    def _record_marks(self) -> list[str]:
        """The marks of a record row's values, in :data:`RECORD_COLUMNS` order."""
        p = self._P
        return [p, p, p, p, p, p, p, self._TIME, self._TIME, p, p, p, self._VEC, p]

    def _by_id(self, cur: Any, select: str, ids: Sequence[str], *params: Any) -> dict[str, Any]:
        """{first column: second column} of the rows ``select`` (which ends in WHERE or AND) finds among ``ids``;
        ``params`` bind the marks in ``select``."""
        out: dict[str, Any] = {}
        for cond, id_params in self._id_chunks("id", ids):
            out.update((r[0], r[1]) for r in cur.execute(f"{select} {cond}", [*params, *id_params]))
        return out

    def _insert_record(self, table: str) -> str:
        return f"INSERT INTO {table} ({RECORD_COLUMNS}) VALUES ({', '.join(self._record_marks)})"

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
    def _read_info(conn: Any) -> EmbeddingInfo | None:
        rows = conn.execute("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')").fetchall()
        meta = dict(rows)
        if "embedding_model" not in meta:
            return None
        return EmbeddingInfo(model_id=meta["embedding_model"], dim=int(meta["embedding_dim"]))

    def _write_info(self, conn: Any, info: EmbeddingInfo) -> None:
        self._executemany(
            conn,
            f"INSERT INTO meta (key, value) VALUES ({self._marks(2)}) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [("embedding_model", info.model_id), ("embedding_dim", str(info.dim))],
        )

    def _cached_info(self, conn: Any) -> EmbeddingInfo | None:
        if self._info is _UNSET:
            self._info = self._read_info(conn)
        return self._info

    def embedding_info(self) -> EmbeddingInfo | None:
        """The model/dim that wrote the vectors, or None before :meth:`set_embedding_info`."""
        with self._read("embedding_info") as conn:
            return self._read_info(conn)

    @staticmethod
    def _has_vectors(conn: Any) -> bool:
        tables = [*TABLES.values(), "collection_items"]
        row = conn.execute("SELECT " + " OR ".join(f"EXISTS (SELECT 1 FROM {t})" for t in tables)).fetchone()
        return bool(row and row[0])

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

    def _require_info(self, conn: Any, dim: int, models: Sequence[str | None] = ()) -> EmbeddingInfo:
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
            rows = conn.execute(f"SELECT user_id, agent_id, run_id FROM scopes ORDER BY {self._POS}").fetchall()
        return [scope_from_tuple((r[0], r[1], r[2])) for r in rows]

    def collections(self) -> list[str]:
        """Names of the collections that hold items."""
        with self._read("collections") as conn:
            return [r[0] for r in conn.execute("SELECT DISTINCT collection FROM collection_items ORDER BY collection")]

    def migrations_applied(self) -> list[tuple[str, datetime]]:
        """(name, applied_at) of every applied schema migration, in order."""
        with self._read("migrations_applied") as conn:
            rows = conn.execute(f"SELECT name, applied_at FROM migrations ORDER BY {self._POS}").fetchall()
        return [(name, self._time_from_db(at)) for name, at in rows]

    # -- records -----------------------------------------------------------------------------
    def _existing(self, conn: Any, ids: Sequence[str]) -> list[str]:
        found: list[str] = []
        for cond, params in self._id_chunks("id", ids, CHUNK // len(TABLES)):
            sql = " UNION ALL ".join(f"SELECT id FROM {t} WHERE {cond}" for t in TABLES.values())
            found += [r[0] for r in conn.execute(sql, params * len(TABLES))]
        return found

    def _last_versions(self, conn: Any, ids: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for cond, params in self._id_chunks("record_id", ids):
            sql = f"SELECT record_id, MAX(version) FROM history WHERE {cond} GROUP BY record_id"
            out.update((r[0], int(r[1])) for r in conn.execute(sql, params))
        return out

    @staticmethod
    def _scope_row(scope: Scope, now: Any) -> tuple[Any, ...]:
        return (scope_key(scope), scope.user_id, scope.agent_id, scope.run_id, now)

    def _record_row(
        self, record: MemoryRecord, payload: str, vector: np.ndarray, seq: int, version: int, model: str
    ) -> tuple[Any, ...]:
        s = record.scope
        return (
            record.id, seq, scope_key(s), s.user_id, s.agent_id, s.run_id, record.speaker,
            iso_utc(record.event_time), iso_utc(record.ingest_time), provenance_json(record),
            record.embedding_model or model, payload, self._vector_param(vector), version,
        )  # fmt: skip

    def put(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        """Insert new records (one row of ``vectors`` each) atomically: all or nothing.

        InvalidInputError if an id already exists (use :meth:`replace`), repeats within the call,
        or a vector has the wrong shape or a non-finite value; EmbeddingMismatchError if the
        vectors' dimension (or a record's ``embedding_model``) differs from :meth:`embedding_info`.
        """
        self.write([], records, vectors)

    def write(
        self,
        messages: Sequence[RawMessage],
        records: Sequence[MemoryRecord],
        vectors: np.ndarray,
        *,
        owners: Sequence[str] | None = None,
    ) -> list[str]:
        """Log messages and put records in ONE transaction: all or nothing (resumable ingest).

        With ``owners`` (the id of the message each record came from), a message that is already logged
        in its scope when the transaction starts (another writer got there first) is skipped together
        with its records, so two ingests of the same conversation never store anything twice.
        Returns the ids of the messages skipped that way. Same rules as :meth:`log_messages` and
        :meth:`put`; everything is validated before writing.
        """
        rows = message_rows(check_messages(messages))
        batch = self._prepare_records(records, vectors)
        if owners is not None and len(owners) != (0 if batch is None else len(batch[0])):
            raise InvalidInputError("owners must name one message id per record")
        if not rows and batch is None:
            return []
        skipped: list[str] = []
        with self._lock:
            with self._tx("write") as conn:
                if rows and owners is not None:
                    sql = f"SELECT 1 FROM messages WHERE scope_key = {self._P} AND id = {self._P} LIMIT 1"
                    skipped = [r[4] for r in rows if conn.execute(sql, (r[0], r[4])).fetchone() is not None]
                    if skipped:
                        gone = set(skipped)
                        rows = [r for r in rows if r[4] not in gone]
                        if batch is not None:
                            keep = [i for i, owner in enumerate(owners) if owner not in gone]
                            recs, matrix, payloads = batch
                            batch = (
                                ([recs[i] for i in keep], matrix[keep], [payloads[i] for i in keep]) if keep else None
                            )
                if rows:
                    self._insert_messages(conn, rows)
                if batch is not None:
                    self._insert_records(conn, *batch)
            if batch is not None:
                recs, matrix, payloads = batch
                for i, (r, payload) in enumerate(zip(recs, payloads)):
                    self._records.upsert(r.type, scope_tuple(r.scope), r.id, matrix[i], payload, r.speaker)
        return skipped

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
        check_ids(ids, "record ids")
        check_unique(ids, "record ids")
        return recs, matrix, [record_json(r) for r in recs]

    def _insert_records(self, conn: Any, recs: list[MemoryRecord], matrix: np.ndarray, payloads: list[str]) -> None:
        info = self._require_info(conn, matrix.shape[1], [r.embedding_model for r in recs])
        ids = [r.id for r in recs]
        existing = self._existing(conn, ids)
        if existing:
            raise InvalidInputError(f"record ids already exist (use replace): {sorted(existing)[:5]}")
        seqs = self._next_seqs(conn, len(recs))
        versions = self._last_versions(conn, ids)
        now = self._now()
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
        for table, rows in by_table.items():
            self._executemany(conn, self._insert_record(table), rows)
        self._executemany(conn, self._insert_history, history)
        self._executemany(conn, self._insert_scope, list(scopes.values()))

    def _find(self, conn: Any, record_id: str) -> tuple[MemoryType, ScopeTuple, int, int, str] | None:
        """(type, scope, seq, version, record JSON) of a current record, or None."""
        sql = " UNION ALL ".join(
            f"SELECT '{mt.value}', user_id, agent_id, run_id, seq, version, record FROM {t} WHERE id = {self._P}"
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
        check_ids([rec.id], "record id")
        row_vector = check_vector(vector)
        payload = record_json(rec)
        p = self._P
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
                    conn.execute(f"DELETE FROM {TABLES[old_type]} WHERE id = {p}", (rec.id,))
                    conn.execute(self._insert_record(new_table), row)
                else:
                    columns = RECORD_COLUMNS.split(", ")[1:]
                    sets = ", ".join(f"{c} = {m}" for c, m in zip(columns, self._record_marks[1:]))
                    conn.execute(f"UPDATE {new_table} SET {sets} WHERE id = {p}", (*row[1:], rec.id))
                now = self._now()
                conn.execute(
                    self._insert_history,
                    (rec.id, rec.type, version + 1, HistoryEvent.UPDATE.value, scope_key(rec.scope), payload, now),
                )
                conn.execute(self._insert_scope, self._scope_row(rec.scope, now))
            self._records.remove(old_type.value, old_scope, rec.id)
            self._records.upsert(rec.type, scope_tuple(rec.scope), rec.id, row_vector, payload, rec.speaker)

    def get(self, record_id: str) -> MemoryRecord | None:
        """The current record with that id, or None."""
        check_record_id(record_id)
        with self._read("get") as conn:
            found = self._find(conn, record_id)
        return None if found is None else record_from_json(found[0], found[4])

    def get_vectors(self, memory_type: MemoryType, ids: Sequence[str]) -> np.ndarray:
        """The stored float32 vectors of ``ids`` (in that order), bit-exact; RecordNotFoundError for a missing id."""
        mt = check_memory_type(memory_type)
        wanted = check_ids(ids)
        table = TABLES[mt]
        with self._read("get_vectors") as conn:
            info = self._read_info(conn)
            dim = info.dim if info is not None else 0
            if not wanted:
                return np.zeros((0, dim), dtype=np.float32)
            unique = list(dict.fromkeys(wanted))
            blobs: dict[str, bytes] = self._by_id(self._vector_cursor(conn), f"SELECT id, vector FROM {table} WHERE", unique)
        missing = [i for i in unique if i not in blobs]
        if missing:
            raise RecordNotFoundError(f"no {mt.value} record(s) with id {missing[:5]}")
        try:
            return decode_matrix([blobs[i] for i in wanted], dim)
        except ValueError as e:
            raise StoreError(f"stored vectors do not match the recorded dimension {dim}: {e}") from e

    def delete(self, record_id: str) -> bool:
        """Delete one record; history keeps it (a DELETE entry). False if it did not exist."""
        check_record_id(record_id)
        with self._lock:
            with self._tx("delete") as conn:
                found = self._find(conn, record_id)
                if found is not None:
                    mt, scope, _, version, payload = found
                    conn.execute(
                        self._insert_history,
                        (record_id, mt.value, version + 1, HistoryEvent.DELETE.value, scope_key(scope), payload, self._now()),
                    )
                    conn.execute(f"DELETE FROM {TABLES[mt]} WHERE id = {self._P}", (record_id,))
            if found is None:
                return False
            self._records.remove(mt.value, scope, record_id)
            return True

    def delete_scope(self, scope: Scope) -> int:
        """Delete every record, raw message and scope entry under ``scope`` (wildcards allowed).

        Each deleted record gets a DELETE history entry. Returns the number of records deleted.
        """
        check_scope(scope)
        where, params = self._where(scope)
        dropped: dict[MemoryType, set[ScopeTuple]] = {}
        total = 0
        with self._lock:
            with self._tx("delete_scope") as conn:
                now = self._now()
                columns = "id, version, scope_key, record, user_id, agent_id, run_id"
                for mt, table in TABLES.items():
                    rows = self._delete_returning(conn, table, where, params, columns)
                    if not rows:
                        continue
                    self._executemany(
                        conn,
                        self._insert_history,
                        [(r[0], mt.value, r[1] + 1, HistoryEvent.DELETE.value, r[2], r[3], now) for r in rows],
                    )
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
        check_scope(scope)
        types = ALL_TYPES if memory_type is None else (check_memory_type(memory_type),)
        check_speaker(speaker)
        return self._scan(scope, types, speaker)

    def _scan(self, scope: Scope | None, types: Sequence[MemoryType], speaker: str | None) -> Iterator[MemoryRecord]:
        where, params = self._where(scope)
        if speaker is not None:
            where += f" AND speaker = {self._P}"
            params = [*params, speaker]
        parts = [f"SELECT '{mt.value}' AS t, record, seq FROM {TABLES[mt]} WHERE {where} AND seq > {self._P}" for mt in types]
        sql = f"SELECT t, record, seq FROM ({' UNION ALL '.join(parts)}) AS u ORDER BY seq LIMIT {PAGE}"

        def read(last: int) -> list[Any]:
            with self._read("scan") as conn:
                return list(conn.execute(sql, [*params, last] * len(types)).fetchall())

        for t, payload, _ in _paged(read, PAGE):
            yield record_from_json(t, payload)

    def iter_all_records(self) -> Iterator[MemoryRecord]:
        """Every current record of every type and scope, in insertion order (for ``memdesk reembed``)."""
        return self._scan(None, ALL_TYPES, None)

    def count(self, scope: Scope | None = None, memory_type: MemoryType | None = None) -> int:
        """Current records under ``scope`` (all if None) of one type (all if None)."""
        if scope is not None:
            check_scope(scope)
        types = ALL_TYPES if memory_type is None else (check_memory_type(memory_type),)
        where, params = self._where(scope)
        sql = " + ".join(f"(SELECT COUNT(*) FROM {TABLES[mt]} WHERE {where})" for mt in types)
        with self._read("count") as conn:
            row = conn.execute(f"SELECT {sql}", params * len(types)).fetchone()
        return int(row[0]) if row is not None else 0

    def history(self, record_id: str) -> list[HistoryEntry]:
        """All versions of a record, oldest first (ADD, UPDATE..., DELETE); [] for an unknown id."""
        check_record_id(record_id)
        with self._read("history") as conn:
            rows = conn.execute(
                f"SELECT version, event, memory_type, record, changed_at FROM history WHERE record_id = {self._P} ORDER BY hid",
                (record_id,),
            ).fetchall()
        return [
            HistoryEntry(
                record_id=record_id,
                version=version,
                event=HistoryEvent(event),
                record=record_from_json(mt, payload),
                changed_at=self._time_from_db(at),
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
        """Rows of ``keys`` in insertion order (read in pages of :attr:`_LOAD_PAGE` if set)."""
        cur = self._vector_cursor(self._connection())
        table = TABLES[MemoryType(namespace)]
        page = self._LOAD_PAGE
        columns = "user_id, agent_id, run_id, id, record, speaker, vector, embedding_model, seq"
        for cond, params in self._id_chunks("scope_key", [scope_key(k) for k in keys]):
            query = f"SELECT {columns} FROM {table} WHERE {cond}"
            if page is None:
                rows: Iterator[Any] = cur.execute(f"{query} ORDER BY seq", params)
            else:
                paged = f"{query} AND seq > {self._P} ORDER BY seq LIMIT {page}"
                rows = _paged(partial(_fetch_after, cur, paged, params), page)
            for u, a, r, item_id, payload, speaker, blob, model, _ in rows:
                self._check_row_model(model, blob)
                yield IndexRow((u, a, r), item_id, payload, speaker, blob)

    def _query(self, conn: Any, vector: Any) -> tuple[np.ndarray, EmbeddingInfo | None]:
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

        Ties are broken by id. Runs no SQL beyond one read of the change counter when the cache is warm.
        """
        check_scope(scope)
        mt = check_memory_type(memory_type)
        k = check_k(k)
        check_speaker(speaker)
        with self._read("search") as conn:
            query, info = self._query(conn, vector)
            if info is None or k == 0:
                return []
            hits = self._records.search(mt.value, lambda key: scope_matches(scope, key), query, k, speaker)
        # model_construct: the record was just validated from JSON, no need to validate it twice
        return [ScoredRecord.model_construct(record=record_from_json(mt, h.payload), score=h.score) for h in hits]

    # -- reembedding ---------------------------------------------------------------------------
    def _stale_vectors(self, conn: Any, info: EmbeddingInfo) -> dict[str, int]:
        """Where vectors not written by ``info`` remain: {table or collection: count}."""
        out: dict[str, int] = {}
        size, expected = self._vector_size(info)
        stale = f"embedding_model != {self._P} OR {size} != {self._P}"
        params = (info.model_id, expected)
        for table in TABLES.values():
            row = conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {stale}", params).fetchone()
            if row is not None and row[0]:
                out[table] = int(row[0])
        for name, n in conn.execute(
            f"SELECT collection, COUNT(*) FROM collection_items WHERE {stale} GROUP BY collection", params
        ):
            out[f"collection {name!r}"] = int(n)
        return out

    def _switch_if_complete(self, conn: Any, info: EmbeddingInfo, *, required: bool) -> None:
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
        wanted = check_ids(ids)
        check_unique(wanted, "ids")
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
        mt = check_memory_type(memory_type)
        table = TABLES[mt]
        p = self._P
        with self._lock:
            with self._tx("rewrite_vectors") as conn:
                payloads: dict[str, str] = self._by_id(conn, f"SELECT id, record FROM {table} WHERE", wanted)
                missing = [i for i in wanted if i not in payloads]
                if missing:
                    raise RecordNotFoundError(f"no {mt.value} record(s) with id {missing[:5]}")
                rows = []
                for i, item_id in enumerate(wanted):
                    rec = record_from_json(mt, payloads[item_id])
                    if rec.embedding_model is not None:
                        rec = rec.model_copy(update={"embedding_model": info.model_id})
                    rows.append((self._vector_param(matrix[i]), info.model_id, record_json(rec), item_id))
                sql = f"UPDATE {table} SET vector = {self._VEC}, embedding_model = {p}, record = {p} WHERE id = {p}"
                self._executemany(conn, sql, rows)
                self._switch_if_complete(conn, info, required=False)
            self._invalidate()

    def collection_rewrite_vectors(
        self, collection: str, ids: Sequence[str], vectors: np.ndarray | None, info: EmbeddingInfo
    ) -> None:
        """Atomically replace the vectors of ``ids`` in a collection (see :meth:`rewrite_vectors`)."""
        check_name(collection, "collection name")
        info, wanted, matrix = self._prepare_rewrite(ids, vectors, info)
        p = self._P
        with self._lock:
            with self._tx("collection_rewrite_vectors") as conn:
                select = f"SELECT id, NULL FROM collection_items WHERE collection = {p} AND"
                present = set(self._by_id(conn, select, wanted, collection))
                missing = [i for i in wanted if i not in present]
                if missing:
                    raise RecordNotFoundError(f"no item(s) {missing[:5]} in collection {collection!r}")
                self._executemany(
                    conn,
                    f"UPDATE collection_items SET vector = {self._VEC}, embedding_model = {p} WHERE collection = {p} AND id = {p}",
                    [(self._vector_param(matrix[i]), info.model_id, collection, item_id) for i, item_id in enumerate(wanted)],
                )
                self._switch_if_complete(conn, info, required=False)
            self._invalidate()

    # -- raw message log -----------------------------------------------------------------------
    def log_messages(self, messages: Sequence[RawMessage]) -> None:
        """Append messages to the raw log atomically. Re-logging an existing (scope, id) is a no-op.

        The store assigns ``seq`` (the log order); a given ``seq`` is ignored.
        """
        rows = message_rows(check_messages(messages))
        if rows:
            with self._tx("log_messages") as conn:
                self._insert_messages(conn, rows)

    def _insert_messages(self, conn: Any, rows: list[tuple[Any, ...]]) -> None:
        now = self._now()
        self._executemany(
            conn,
            f"INSERT INTO messages ({MESSAGE_COLUMNS}) VALUES ({self._marks(12)}) ON CONFLICT (scope_key, id) DO NOTHING",
            rows,
        )
        scopes = {r[0]: (r[0], r[1], r[2], r[3], now) for r in rows}
        self._executemany(conn, self._insert_scope, list(scopes.values()))

    def messages(self, scope: Scope, last: int | None = None) -> list[RawMessage]:
        """Logged messages under ``scope`` (wildcards allowed) in log order, ``seq`` filled in.

        With ``last``, only the last ``last`` messages (still oldest first).
        """
        check_scope(scope)
        if last is not None:
            last = check_k(last)
        where, params = self._where(scope)
        sql = f"SELECT {_MESSAGE_READ_COLUMNS} FROM messages WHERE {where}"
        with self._read("messages") as conn:
            if last is None:
                rows = conn.execute(f"{sql} ORDER BY seq", params).fetchall()
            else:
                rows = conn.execute(f"{sql} ORDER BY seq DESC LIMIT {self._P}", [*params, last]).fetchall()[::-1]
        return [message_from_row(row) for row in rows]

    def has_message(self, scope: Scope, message_id: str) -> bool:
        """True if a message with that id is logged under ``scope`` (wildcards allowed)."""
        check_scope(scope)
        where, params = self._where(scope)
        with self._read("has_message") as conn:
            sql = f"SELECT 1 FROM messages WHERE {where} AND id = {self._P} LIMIT 1"
            row = conn.execute(sql, [*params, message_id]).fetchone()
        return row is not None

    # -- collections ---------------------------------------------------------------------------
    def _collection_keys(self, namespace: str) -> list[str]:
        row = self._connection().execute(
            f"SELECT 1 FROM collection_items WHERE collection = {self._P} LIMIT 1", (namespace,)
        )
        return [_COLLECTION_KEY] if row.fetchone() is not None else []

    def _collection_rows(self, namespace: str, keys: Sequence[str]) -> Iterator[IndexRow[str]]:
        cur = self._vector_cursor(self._connection())
        sql = (
            "SELECT id, payload, vector, embedding_model FROM collection_items "
            f"WHERE collection = {self._P} ORDER BY {self._POS}"
        )
        for item_id, payload, blob, model in cur.execute(sql, (namespace,)):
            self._check_row_model(model, blob)
            yield IndexRow(_COLLECTION_KEY, item_id, payload, None, blob)

    def collection_put(self, collection: str, ids: Sequence[str], payloads: Sequence[str], vectors: np.ndarray) -> None:
        """Insert or replace items (id, payload JSON, vector) of a collection atomically."""
        check_name(collection, "collection name")
        item_ids = check_ids(ids)
        check_unique(item_ids, "ids")
        if isinstance(payloads, (str, bytes)) or not isinstance(payloads, Sequence) or len(payloads) != len(item_ids):
            raise InvalidInputError("payloads must be a sequence of JSON strings, one per id")
        texts = [check_json(p) for p in payloads]
        if not item_ids:
            return
        matrix = check_matrix(vectors, len(item_ids))
        p = self._P
        with self._lock:
            with self._tx("collection_put") as conn:
                info = self._require_info(conn, matrix.shape[1])
                self._executemany(
                    conn,
                    "INSERT INTO collection_items (collection, id, payload, vector, embedding_model) "
                    f"VALUES ({p}, {p}, {p}, {self._VEC}, {p}) ON CONFLICT (collection, id) DO UPDATE SET "
                    "payload = excluded.payload, vector = excluded.vector, embedding_model = excluded.embedding_model",
                    [
                        (collection, i, text, self._vector_param(matrix[n]), info.model_id)
                        for n, (i, text) in enumerate(zip(item_ids, texts))
                    ],
                )
            for n, (i, text) in enumerate(zip(item_ids, texts)):
                self._collections.upsert(collection, _COLLECTION_KEY, i, matrix[n], text)

    def collection_search(self, collection: str, vector: np.ndarray, k: int) -> list[tuple[str, str, float]]:
        """(id, payload JSON, score) of the ``k`` nearest items, best first (ties by id)."""
        check_name(collection, "collection name")
        k = check_k(k)
        with self._read("collection_search") as conn:
            query, info = self._query(conn, vector)
            if info is None or k == 0:
                return []
            hits = self._collections.search(collection, lambda key: True, query, k)
        return [(h.id, h.payload, h.score) for h in hits]

    def revision(self) -> int:
        """A number that changes whenever a memory record changes: written through this store, or
        committed by another connection (noticed here, as every read notices it)."""
        with self._read("revision") as conn:
            self._sync(conn)
            return self._records.generation

    def collection_export(self, collection: str) -> tuple[list[str], list[str], np.ndarray]:
        """(ids, payloads, float32 vector matrix) of every item of a collection, in insertion order.

        For building a derived index (e.g. :class:`~memdesk.store.ivf.IVFIndex`); read straight
        from the database, so it is a consistent snapshot. An empty or unknown collection gives
        empty lists and a ``(0, dim)`` matrix (``dim`` 0 while the store has no embedding info).
        """
        check_name(collection, "collection name")
        with self._read("collection_export") as conn:
            self._sync(conn)
            info = self._cached_info(conn)
            ids: list[str] = []
            payloads: list[str] = []
            blobs: list[bytes] = []
            if info is not None:
                for row in self._collection_rows(collection, [_COLLECTION_KEY]):
                    ids.append(row.id)
                    payloads.append(row.payload)
                    blobs.append(row.blob)
        return ids, payloads, decode_matrix(blobs, info.dim if info is not None else 0)

    def collection_get(self, collection: str, ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(id, payload) of every item in insertion order, or of ``ids`` in that order (missing ids skipped)."""
        check_name(collection, "collection name")
        sql = f"SELECT id, payload FROM collection_items WHERE collection = {self._P}"
        with self._read("collection_get") as conn:
            if ids is None:
                rows = conn.execute(f"{sql} ORDER BY {self._POS}", (collection,)).fetchall()
                return [(i, p) for i, p in rows]
            wanted = check_ids(ids)
            found: dict[str, str] = self._by_id(conn, f"{sql} AND", list(dict.fromkeys(wanted)), collection)
        return [(i, found[i]) for i in wanted if i in found]

    def collection_count(self, collection: str) -> int:
        """The number of items in a collection."""
        check_name(collection, "collection name")
        with self._read("collection_count") as conn:
            sql = f"SELECT COUNT(*) FROM collection_items WHERE collection = {self._P}"
            row = conn.execute(sql, (collection,)).fetchone()
        return int(row[0]) if row is not None else 0

    def collection_delete(self, collection: str, ids: Sequence[str] | None = None) -> int:
        """Delete ``ids`` from a collection (every item if None). Returns the number deleted."""
        check_name(collection, "collection name")
        wanted = None if ids is None else check_ids(ids)
        sql = f"DELETE FROM collection_items WHERE collection = {self._P}"
        with self._lock:
            with self._tx("collection_delete") as conn:
                if wanted is None:
                    deleted = conn.execute(sql, (collection,)).rowcount
                else:
                    deleted = 0
                    for cond, params in self._id_chunks("id", list(dict.fromkeys(wanted))):
                        deleted += conn.execute(f"{sql} AND {cond}", [collection, *params]).rowcount
            if wanted is None:
                self._collections.drop(collection, [_COLLECTION_KEY])
            else:
                for i in wanted:
                    self._collections.remove(collection, _COLLECTION_KEY, i)
        return deleted


__all__ = ["CHUNK", "DEFAULT_CACHE_MAX_ROWS", "PAGE", "RECORD_COLUMNS", "TABLES", "SQLStoreBase", "record_table_ddl"]
