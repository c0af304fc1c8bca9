"""PostgreSQL through psycopg's async API for store code running under :func:`memdesk.runtime.aio.run`.

The store's SQL is written once, against psycopg's synchronous ``Connection``. Under ``aio.run``
(``AsyncMemory``) :class:`~memdesk.store.database.Database` hands that code a :class:`LoopConnection`
instead: the same methods the store calls (``execute``, ``cursor``, ``transaction``, ``fetch*``,
``executemany``, iteration), each awaiting a ``psycopg.AsyncConnection`` through :func:`memdesk.runtime.aio.await_`.
The greenlet waits for PostgreSQL's answer holding no thread, and other operations on the loop run
meanwhile.

Each operation on the loop gets a connection of its own, lent by :class:`LoopConnections`: a small
pool per event loop (psycopg's async connections and asyncio's primitives cannot cross loops),
opened on demand and configured by the store (time zone, lock timeout, search path, the pgvector
adapters) like its synchronous connection. A connection that comes back inside a transaction,
broken or closed is closed instead of kept. memdesk's own pool rather than ``psycopg_pool``'s
``AsyncConnectionPool``, measured (``bench/experiments/pg_pool.py``, ``bench/results/experiments/pg_pool.json``):
the same throughput (lend + ``SELECT 1`` + return: 1,184 vs 1,206 calls/s alone, 1,754 vs 1,685 at 8 at once),
but an ``AsyncConnectionPool`` runs a scheduler and worker tasks on its loop, and an application's loop often ends
before the store is closed (an ``AsyncMemory`` used from ``asyncio.run``): its pool then leaves 5 pending tasks and
5 "Task was destroyed" warnings, where this one leaves none (its idle connections are finished without the loop).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, Sequence

from ..runtime import aio
from ..errors import ConfigError

from psycopg.pq import TransactionStatus

DEFAULT_POOL_SIZE = 10
"""Async connections one store keeps open per event loop (operations beyond it wait for one)."""


class LoopCursor:
    """A ``psycopg.AsyncCursor`` with ``psycopg.Cursor``'s synchronous methods (see the module)."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    def execute(self, query: Any, params: Any = None) -> "LoopCursor":
        aio.await_(self._cursor.execute(query, params))
        return self

    def executemany(self, query: Any, rows: Sequence[Sequence[Any]]) -> None:
        aio.await_(self._cursor.executemany(query, rows))

    def fetchone(self) -> Any:
        return aio.await_(self._cursor.fetchone())

    def fetchmany(self, size: int = 0) -> list[Any]:
        return aio.await_(self._cursor.fetchmany(size))

    def fetchall(self) -> list[Any]:
        return aio.await_(self._cursor.fetchall())

    def __iter__(self) -> Iterator[Any]:
        # a client-side cursor holds the whole result once execute returned: one await, not one per row
        return iter(self.fetchall())

    @contextmanager
    def copy(self, statement: str) -> Iterator["LoopCopy"]:
        """``psycopg.Cursor.copy``: a ``COPY ... FROM STDIN`` fed row by row (:mod:`.pg_copy`)."""
        manager = self._cursor.copy(statement)
        copy = aio.await_(manager.__aenter__())
        try:
            yield LoopCopy(copy)
        except BaseException as e:
            if not aio.await_(manager.__aexit__(type(e), e, e.__traceback__)):
                raise
        else:
            aio.await_(manager.__aexit__(None, None, None))

    @property
    def rowcount(self) -> int:
        return int(self._cursor.rowcount)

    @property
    def description(self) -> Any:
        return self._cursor.description


class LoopCopy:
    """A ``psycopg.AsyncCopy`` with ``psycopg.Copy``'s synchronous ``set_types`` and ``write_row``."""

    def __init__(self, copy: Any) -> None:
        self._copy = copy

    def set_types(self, types: Sequence[int | str]) -> None:
        self._copy.set_types(types)

    def write_row(self, row: Sequence[Any]) -> None:
        aio.await_(self._copy.write_row(row))


class LoopConnection:
    """A ``psycopg.AsyncConnection`` with the synchronous ``psycopg.Connection`` methods the store uses."""

    def __init__(self, conn: Any) -> None:
        self.async_connection = conn

    # what psycopg.sql's as_string(context) reads
    @property
    def adapters(self) -> Any:
        return self.async_connection.adapters

    @property
    def connection(self) -> Any:
        return self.async_connection

    def cursor(self, *, binary: bool = False) -> LoopCursor:
        return LoopCursor(self.async_connection.cursor(binary=binary))

    def execute(self, query: Any, params: Any = None, *, binary: bool = False) -> LoopCursor:
        return self.cursor(binary=binary).execute(query, params)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A transaction (a savepoint when nested), committed on success, rolled back on an exception."""
        tx = self.async_connection.transaction()
        aio.await_(tx.__aenter__())
        try:
            yield
        except BaseException as e:
            if not aio.await_(tx.__aexit__(type(e), e, e.__traceback__)):
                raise
        else:
            aio.await_(tx.__aexit__(None, None, None))


class _Pool:
    """The async connections of one event loop."""

    def __init__(self, connect: Callable[[], Awaitable[Any]], size: int) -> None:
        self._connect = connect
        self._slots = asyncio.Semaphore(size)
        self._idle: list[Any] = []
        self._closed = False
        self.opened = 0  # connections made so far (for tests and diagnostics)

    async def get(self) -> Any:
        await self._slots.acquire()
        try:
            while self._idle:
                conn = self._idle.pop()
                if not conn.closed:
                    return conn
            conn = await self._connect()
            self.opened += 1
            return conn
        except BaseException:
            self._slots.release()
            raise

    async def put(self, conn: Any) -> None:
        try:
            reusable = not (self._closed or conn.closed or conn.broken)
            if reusable and conn.info.transaction_status != TransactionStatus.IDLE:
                reusable = False  # left inside a transaction (cancelled mid-way): start afresh
            if reusable:
                self._idle.append(conn)
            else:
                await _close(conn)
        finally:
            self._slots.release()

    async def close(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            await _close(conn)

    def discard(self) -> None:
        """Close the idle connections without their event loop (it is not the running one, or none runs)."""
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.pgconn.finish()


async def _close(conn: Any) -> None:
    try:
        await conn.close()
    except Exception:  # a connection being dropped: nothing to recover
        conn.pgconn.finish()


class LoopConnections:
    """Lends each operation under :func:`memdesk.runtime.aio.run` an async connection of its event loop's pool.

    ``connect``: a coroutine function opening one configured ``psycopg.AsyncConnection``.
    """

    def __init__(self, connect: Callable[[], Awaitable[Any]], size: int = DEFAULT_POOL_SIZE) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ConfigError(f"the async connection pool size must be a positive integer, got {size!r}")
        self.size = size
        self._pools = aio.PerLoop(lambda: _Pool(connect, size))

    def lend(self) -> LoopConnection:
        """A connection of the running loop's pool (waits on the loop while all are lent)."""
        return LoopConnection(aio.await_(self._pools.get().get()))

    def give_back(self, conn: LoopConnection) -> None:
        aio.await_(self._pools.get().put(conn.async_connection))

    def opened(self) -> int:
        """Connections the running loop's pool has opened."""
        return int(self._pools.get().opened)

    def close(self) -> None:
        """Close every pool: the running loop's awaited (under ``aio.run``), the others' connections dropped."""
        current = self._pools.get() if aio.active() else None
        for pool in self._pools.pop_all():
            if pool is current:
                aio.await_(pool.close())
            else:
                pool.discard()


__all__ = ["DEFAULT_POOL_SIZE", "LoopConnection", "LoopConnections", "LoopCursor"]
