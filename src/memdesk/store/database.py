"""One database connection shared by a store's parts: locking, transactions, change detection, ``meta``.

:class:`Database` owns the driver connection (used by one thread at a time under its lock), runs
reads and write transactions through the :class:`~memdesk.store.dialect.Dialect`, and tells
the parts that cache what they read (the search caches, the recorded embedding info) when
another connection committed: :meth:`Database.sync` reads the dialect's change counter and, when
it moved, calls every callback registered with :meth:`Database.on_change`. It also keeps the
``meta`` table: which embedding model and dimension wrote the vectors.
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Callable, Iterator, Sequence

from ..errors import ConfigError, EmbeddingMismatchError, InvalidInputError, StoreError
from .base import EmbeddingInfo
from .dialect import Dialect
from .schema import TABLES, marks

log = logging.getLogger(__name__)

_UNSET: Any = object()


def check_info(info: Any) -> EmbeddingInfo:
    if not isinstance(info, EmbeddingInfo):
        raise InvalidInputError(f"expected EmbeddingInfo, got {type(info).__name__}")
    if not info.model_id or info.dim <= 0:
        raise InvalidInputError(f"invalid embedding info {info!r}: needs a model id and a positive dim")
    return info


class Database:
    """A driver connection, its lock, its transactions and the change counter last seen."""

    def __init__(self, dialect: Dialect, busy_timeout_ms: int) -> None:
        if isinstance(busy_timeout_ms, bool) or not isinstance(busy_timeout_ms, int) or busy_timeout_ms < 0:
            raise ConfigError(f"busy_timeout_ms must be a non-negative integer, got {busy_timeout_ms!r}")
        self.dialect = dialect
        self.busy_timeout_ms = busy_timeout_ms
        self.lock = threading.RLock()
        self.conn: Any = None
        self.version = -1  # the change counter last seen (see sync)
        self._info: EmbeddingInfo | None = _UNSET
        self._listeners: list[Callable[[], None]] = []

    # -- connection --------------------------------------------------------------------------
    def connection(self) -> Any:
        if self.conn is None:
            raise StoreError("the store is closed")
        return self.conn

    def close(self) -> None:
        """Close the connection (idempotent); later calls raise StoreError."""
        with self.lock:
            if self.conn is not None:
                try:
                    self.conn.close()
                finally:
                    self.conn = None
            self.invalidate()

    @contextmanager
    def read(self, what: str) -> Iterator[Any]:
        """The connection, under the lock, with driver errors raised as memdesk ones."""
        with self.lock:
            conn = self.connection()
            try:
                yield conn
            except self.dialect.db_error as e:
                raise self.dialect.store_error(e, what) from e

    @contextmanager
    def tx(self, what: str) -> Iterator[Any]:
        """One write transaction (see :meth:`Dialect.write_transaction`). After the commit, a change
        counter that moved by more than this transaction's own step means someone else wrote since
        this store last looked: the caches are dropped."""
        with self.lock:
            conn = self.connection()
            with self.dialect.write_transaction(conn, what) as version:
                yield conn
            if version is not None:
                if version != self.version + 1:
                    log.debug("database changed by another connection: dropping the caches")
                    self.invalidate()
                self.version = version

    # -- change detection --------------------------------------------------------------------
    def on_change(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` whenever what this connection cached may be stale."""
        self._listeners.append(callback)

    def invalidate(self) -> None:
        self._info = _UNSET
        for callback in self._listeners:
            callback()

    def sync(self, conn: Any) -> None:
        """Drop the caches if another connection committed since the last check."""
        version = self.dialect.read_version(conn)
        if version != self.version:
            log.debug("database changed by another connection: dropping the caches")
            self.version = version
            self.invalidate()

    # -- embedding info (meta) ---------------------------------------------------------------
    @staticmethod
    def read_info(conn: Any) -> EmbeddingInfo | None:
        rows = conn.execute("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')").fetchall()
        meta = dict(rows)
        if "embedding_model" not in meta:
            return None
        return EmbeddingInfo(model_id=meta["embedding_model"], dim=int(meta["embedding_dim"]))

    def write_info(self, conn: Any, info: EmbeddingInfo) -> None:
        self.dialect.executemany(
            conn,
            f"INSERT INTO meta (key, value) VALUES ({marks(self.dialect.param, 2)}) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [("embedding_model", info.model_id), ("embedding_dim", str(info.dim))],
        )

    def cached_info(self, conn: Any) -> EmbeddingInfo | None:
        """The recorded embedding info, read once per change of the database."""
        if self._info is _UNSET:
            self._info = self.read_info(conn)
        return self._info

    @property
    def known_info(self) -> EmbeddingInfo | None:
        """The info :meth:`cached_info` last read (None if not read since the last change)."""
        return None if self._info is _UNSET else self._info

    def embedding_info(self) -> EmbeddingInfo | None:
        """The model/dim that wrote the vectors, or None before :meth:`set_embedding_info`."""
        with self.read("embedding_info") as conn:
            return self.read_info(conn)

    @staticmethod
    def has_vectors(conn: Any) -> bool:
        tables = [*TABLES.values(), "collection_items"]
        row = conn.execute("SELECT " + " OR ".join(f"EXISTS (SELECT 1 FROM {t})" for t in tables)).fetchone()
        return bool(row and row[0])

    def set_embedding_info(self, info: EmbeddingInfo) -> None:
        """Record the model/dim; EmbeddingMismatchError if another one is recorded and vectors exist."""
        info = check_info(info)
        with self.lock:
            with self.tx("set_embedding_info") as conn:
                current = self.read_info(conn)
                changed = current != info
                if changed:
                    if current is not None and self.has_vectors(conn):
                        raise EmbeddingMismatchError(current.model_id, current.dim, info.model_id, info.dim)
                    self.write_info(conn, info)
            if changed:
                self.invalidate()
            self._info = info

    def require_info(self, conn: Any, dim: int, models: Sequence[str | None] = ()) -> EmbeddingInfo:
        """The recorded info, checked against vectors of dimension ``dim`` written by ``models``."""
        info = self.read_info(conn)
        if info is None:
            raise InvalidInputError(
                "no embedding model is recorded for this store: call "
                "set_embedding_info(EmbeddingInfo(model_id=..., dim=...)) before writing vectors"
            )
        named = next((m for m in models if m is not None and m != info.model_id), None)
        if dim != info.dim or named is not None:
            raise EmbeddingMismatchError(info.model_id, info.dim, named or "(the given vectors)", dim)
        return info

    def check_row_model(self, model: str, blob: bytes) -> None:
        """EmbeddingMismatchError unless a stored row's vector was written by the recorded model."""
        info = self.known_info
        if info is None or model != info.model_id or len(blob) != info.dim * 4:
            stored = info if info is not None else EmbeddingInfo(model_id="(none)", dim=0)
            raise EmbeddingMismatchError(stored.model_id, stored.dim, model, len(blob) // 4)

    # -- migrations --------------------------------------------------------------------------
    def migrations_applied(self) -> list[tuple[str, datetime]]:
        """(name, applied_at) of every applied schema migration, in order."""
        with self.read("migrations_applied") as conn:
            rows = conn.execute(f"SELECT name, applied_at FROM migrations ORDER BY {self.dialect.position}").fetchall()
        return [(name, self.dialect.time_from_db(at)) for name, at in rows]
