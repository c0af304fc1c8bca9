"""One database connection shared by a store's parts: locking, transactions, change detection, ``meta``.

:class:`Database` owns the driver connection (used by one thread at a time under its lock), runs
reads and write transactions through the :class:`~memdesk.store.dialect.Dialect`, and tells the
parts that cache what they read (the search caches, the recorded embedding info) what another
connection changed.

Change detection is per scope. Triggers on the record tables, ``collection_items`` and ``meta``
append to ``change_log`` the scope key (or collection) of every row any writer changes, memdesk or
plain SQL (a change to ``meta``, or a ``TRUNCATE``, logs "everything"). Writers are serialized, so
the log's ids follow commit order. :meth:`Database.sync` first reads the dialect's cheap change
counter; only when it moved does it read the log entries after the last one seen and hand the
changed scope keys and collections to every callback registered with :meth:`Database.on_change`
(None: drop everything). This store's own entries are skipped: its writers update the caches
themselves. The log is pruned to its last :data:`LOG_KEEP` entries; a reader that fell further
behind drops everything.

On the event loop (a backend given ``loop_connections``, code under :func:`memdesk.runtime.aio.run`): each
operation gets a connection of its own (:mod:`.loop_sessions`), so reads of concurrent operations
overlap, each waiting on the loop; writers, and a :meth:`Database.sync` that must read the change log,
still take :attr:`Database.lock` one at a time (a thread or one greenlet: :class:`memdesk.runtime.aio.Lock`).
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from datetime import datetime
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from ..runtime import aio
from ..errors import ConfigError, EmbeddingMismatchError, InvalidInputError, StoreError
from .base import EmbeddingInfo
from .dialect import Dialect
from .loop_sessions import LoopConnections, LoopSessions, SessionLock
from .schema import TABLES, marks

log = logging.getLogger(__name__)

_UNSET: Any = object()

LOG_KEEP = 100_000
"""Change-log entries kept; older ones are pruned (a reader further behind drops all its caches)."""
LOG_READ = 10_000
"""Change-log entries read at once; a reader with more to catch up on drops all its caches instead."""
_PRUNE_EVERY = 256  # write transactions between two looks at the log's length


@dataclass(frozen=True)
class Changes:
    """What other connections changed: the exact scope keys of records and the collections."""

    scope_keys: frozenset[str]
    collections: frozenset[str]


def check_info(info: Any) -> EmbeddingInfo:
    if not isinstance(info, EmbeddingInfo):
        raise InvalidInputError(f"expected EmbeddingInfo, got {type(info).__name__}")
    if not info.model_id or info.dim <= 0:
        raise InvalidInputError(f"invalid embedding info {info!r}: needs a model id and a positive dim")
    return info


class Database:
    """A driver connection, its lock, its transactions and the change counter last seen."""

    def __init__(self, dialect: Dialect, busy_timeout_ms: int, loop_connections: LoopConnections | None = None) -> None:
        if isinstance(busy_timeout_ms, bool) or not isinstance(busy_timeout_ms, int) or busy_timeout_ms < 0:
            raise ConfigError(f"busy_timeout_ms must be a non-negative integer, got {busy_timeout_ms!r}")
        self.dialect = dialect
        self.busy_timeout_ms = busy_timeout_ms
        self.sessions = None if loop_connections is None else LoopSessions(loop_connections, self._check_open)
        self._mutex: Any = threading.RLock() if self.sessions is None else aio.Lock()
        self.lock: Any = self._mutex if self.sessions is None else SessionLock(self.sessions, self._mutex)
        self._generation = 0  # moves whenever every cache is dropped (see cached_info)
        self.conn: Any = None
        self.version = -1  # the change counter last seen (see sync)
        self.log_seen = 0  # the last change_log id taken into account
        self._info: EmbeddingInfo | None = _UNSET
        self._rewriting: bool = _UNSET
        self._listeners: list[Callable[[Changes | None], None]] = []
        self._writes = 0
        self._logging = False  # the change log exists (set once the migrations ran: start_log)

    # -- connection --------------------------------------------------------------------------
    @property
    def on_loop(self) -> bool:
        """True when this call's connection is lent from the loop's pool (see the module)."""
        return self.sessions is not None and self.sessions.active()

    def _check_open(self) -> None:
        if self.conn is None:
            raise StoreError("the store is closed")

    def connection(self) -> Any:
        self._check_open()
        if self.on_loop:
            conn = self.sessions.current()  # type: ignore[union-attr]
            if conn is None:
                raise StoreError("a store connection was used outside read(), tx() or the lock on the event loop")
            return conn
        return self.conn

    def close(self) -> None:
        """Close the connection and the loop connections (idempotent); later calls raise StoreError."""
        with self._mutex:
            try:
                if self.sessions is not None:
                    self.sessions.connections.close()
            finally:
                if self.conn is not None:
                    try:
                        self.conn.close()
                    finally:
                        self.conn = None
                self.invalidate()

    @contextmanager
    def read(self, what: str) -> Iterator[Any]:
        """The connection, with driver errors raised as memdesk ones: under the lock, or on the event
        loop this operation's own connection (reads of concurrent operations overlap)."""
        if self.on_loop:
            self.sessions.enter()  # type: ignore[union-attr]
            try:
                yield from self._errors_as_ours(self.connection(), what)
            finally:
                self.sessions.exit()  # type: ignore[union-attr]
            return
        with self.lock:
            yield from self._errors_as_ours(self.connection(), what)

    def _errors_as_ours(self, conn: Any, what: str) -> Iterator[Any]:
        try:
            yield conn
        except self.dialect.db_error as e:
            raise self.dialect.store_error(e, what) from e

    @contextmanager
    def tx(self, what: str) -> Iterator[Any]:
        """One write transaction (see :meth:`Dialect.write_transaction`).

        The change-log entries it adds are this store's own (its writers update the caches after
        the commit), so they are marked seen, unless someone else wrote since this store last
        looked: then the next :meth:`sync` reads the log, theirs and these together."""
        with self.lock:
            conn = self.connection()
            if not self._logging:  # migrations, before the change log exists (or an old layout: see start_log)
                with self.dialect.write_transaction(conn, what) as version:
                    yield conn
                if version is not None and version == self.version + 1:  # only this store wrote
                    self.version = version
                return
            with self.dialect.write_transaction(conn, what) as version:
                before = self._log_max(conn)
                yield conn
                after = self._log_max(conn)
                self._writes += 1
                if self._writes % _PRUNE_EVERY == 0:
                    self._prune(conn, after)
            own = before == self.log_seen and (version is None or version == self.version + 1)
            if own:
                self.log_seen = after
                if version is not None:
                    self.version = version
            else:
                self.version = -1  # the next sync reads the log

    @staticmethod
    def _log_max(conn: Any) -> int:
        row = conn.execute("SELECT MAX(id) FROM change_log").fetchone()
        return int(row[0]) if row is not None and row[0] is not None else 0

    def _prune(self, conn: Any, last: int) -> None:
        p = self.dialect.param
        floor = last - LOG_KEEP
        row = conn.execute("SELECT floor FROM change_floor").fetchone()
        if floor > (int(row[0]) if row is not None else 0) + LOG_KEEP // 4:
            conn.execute(f"DELETE FROM change_log WHERE id <= {p}", (floor,))
            conn.execute(f"UPDATE change_floor SET floor = {p}", (floor,))

    # -- change detection --------------------------------------------------------------------
    def on_change(self, callback: Callable[[Changes | None], None]) -> None:
        """Call ``callback(changes)`` when another connection changed what this one may have cached
        (``None``: anything may have changed)."""
        self._listeners.append(callback)

    def invalidate(self) -> None:
        """Drop every cache (anything may have changed)."""
        self._notify(None)

    def _notify(self, changes: Changes | None) -> None:
        if changes is None:
            self._info = self._rewriting = _UNSET
            self._generation += 1
        for callback in self._listeners:
            callback(changes)

    def start_log(self, conn: Any) -> None:
        """Take the database as it is now as seen (a store just opened has nothing cached). A store
        opened with fewer migrations than memdesk has (tests of old layouts) may lack the change log:
        then any change by another connection drops every cache."""
        self.version = self.dialect.read_version(conn)
        names = {r[0] for r in conn.execute("SELECT name FROM migrations").fetchall()}
        self._logging = "0004_change_log" in names
        if self._logging:
            self.log_seen = self._log_max(conn)

    @property
    def change_logged(self) -> bool:
        """Whether this database has the change log (every store's but tests of old layouts)."""
        return self._logging

    def erase_changes(self, conn: Any, keys: Sequence[str], collections: Sequence[str] = ()) -> None:
        """Inside a write transaction: delete the change log's entries naming these scope keys and
        collections (a forgotten scope leaves no trace there) and log "everything" instead, so other
        stores, which may not have read the deleted entries yet, drop their caches."""
        if not self._logging or not (keys or collections):
            return
        for column, values in (("scope_key", keys), ("collection", collections)):
            for cond, params in self.dialect.id_chunks(column, list(values)):
                conn.execute(f"DELETE FROM change_log WHERE {cond}", params)
        conn.execute("INSERT INTO change_log (scope_key, collection) VALUES (NULL, NULL)")

    def sync(self, conn: Any) -> None:
        """Tell the caches what other connections changed since the last check: one read of the
        change counter when nothing did. The counter seen moves only once the caches were told (an
        operation on the event loop that reads it meanwhile catches up too, under the lock)."""
        version = self.dialect.read_version(conn)
        if version == self.version:
            return
        with self.lock:
            if version == self.version:  # another operation caught up meanwhile
                return
            self._catch_up(conn)
            self.version = version

    def _catch_up(self, conn: Any) -> None:
        if not self._logging:
            self.invalidate()
            return
        p = self.dialect.param
        row = conn.execute("SELECT floor FROM change_floor").fetchone()
        if row is not None and int(row[0]) > self.log_seen:  # pruned past what this store saw
            log.debug("change log pruned past this store's last look: dropping the caches")
            self.log_seen = self._log_max(conn)
            self.invalidate()
            return
        rows = conn.execute(
            f"SELECT id, scope_key, collection FROM change_log WHERE id > {p} ORDER BY id LIMIT {p}",
            (self.log_seen, LOG_READ + 1),
        ).fetchall()
        if not rows:
            return
        if len(rows) > LOG_READ:
            log.debug("more than %d changes since this store's last look: dropping the caches", LOG_READ)
            self.log_seen = self._log_max(conn)
            self.invalidate()
            return
        self.log_seen = int(rows[-1][0])
        if any(scope is None and collection is None for _, scope, collection in rows):
            self.invalidate()
            return
        self._notify(
            Changes(
                scope_keys=frozenset(r[1] for r in rows if r[1] is not None),
                collections=frozenset(r[2] for r in rows if r[2] is not None),
            )
        )

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
        info = self._info
        if info is _UNSET:
            generation = self._generation
            info = self.read_info(conn)
            if generation == self._generation:  # not dropped while it was read (another operation on the loop)
                self._info = info
        return info

    def rewriting(self, conn: Any) -> bool:
        """True while ``memdesk reembed`` has rewritten some vectors and not yet switched the model
        (read once per change of the database)."""
        rewriting = self._rewriting
        if rewriting is _UNSET:
            generation = self._generation
            rewriting = conn.execute("SELECT 1 FROM meta WHERE key = 'reembed_model'").fetchone() is not None
            if generation == self._generation:
                self._rewriting = rewriting
        return rewriting

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
        """Record the model/dim; EmbeddingMismatchError if another one is recorded and vectors exist.

        Already recorded: a read only, no write transaction (opening a store never waits for, or blocks,
        another process's writer)."""
        info = check_info(info)
        with self.lock:
            with self.read("set_embedding_info") as conn:
                if self.read_info(conn) == info:
                    self._info = info
                    return
            with self.tx("set_embedding_info") as conn:  # re-read inside: another opener may have written it
                current = self.read_info(conn)
                changed = current != info
                if changed:
                    if current is not None and self.has_vectors(conn):
                        raise EmbeddingMismatchError(current.model_id, current.dim, info.model_id, info.dim)
                    self.write_info(conn, info)
                    self.dialect.set_vector_dim(conn, info.dim)
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
