"""A connection of its own for each operation on the event loop (a backend with loop connections).

Under :func:`memdesk.runtime.aio.run` every operation runs in its own greenlet on the loop's one thread.
:class:`LoopSessions` lends each greenlet a connection (:class:`LoopConnections`, e.g. the
PostgreSQL pool of :mod:`.pg_loop`) from its first :meth:`~memdesk.store.database.Database.read`,
``tx`` or lock until the last one ends, so statements of two operations never interleave on one
connection, nor inside one transaction. :class:`SessionLock` is then the database's lock: an
:class:`memdesk.runtime.aio.Lock` (one thread, or one greenlet, at a time) taken after the greenlet's
connection, so a holder of the lock never waits for a connection and the pool cannot deadlock
against it.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from greenlet import getcurrent

from ..runtime import aio


class LoopConnections(Protocol):
    """Connections lent to operations running under :func:`memdesk.runtime.aio.run`."""

    def lend(self) -> Any:
        """A connection of the running loop (waits on the loop while none is free)."""
        ...

    def give_back(self, conn: Any) -> None: ...

    def close(self) -> None:
        """Close every connection (the running loop's awaited, other loops' dropped)."""
        ...


class LoopSessions:
    """Which connection each greenlet on the loop holds, and how many of its reads/transactions use it."""

    def __init__(self, connections: LoopConnections, check_open: Callable[[], object]) -> None:
        self.connections = connections
        self._check_open = check_open
        self._leases: dict[Any, list[Any]] = {}  # greenlet -> [connection, depth]

    @staticmethod
    def active() -> bool:
        """True when the caller runs under ``aio.run`` (its connection comes from here)."""
        return aio.active()

    def current(self) -> Any | None:
        lease = self._leases.get(getcurrent())
        return None if lease is None else lease[0]

    def enter(self) -> None:
        """Lend this greenlet a connection, or count one more use of the one it has (no-op off the loop)."""
        if not aio.active():
            return
        me = getcurrent()
        lease = self._leases.get(me)
        if lease is None:
            self._check_open()
            lease = self._leases[me] = [self.connections.lend(), 0]
        lease[1] += 1

    def exit(self) -> None:
        if not aio.active():
            return
        me = getcurrent()
        lease = self._leases[me]
        lease[1] -= 1
        if lease[1] == 0:
            del self._leases[me]
            self.connections.give_back(lease[0])


class SessionLock:
    """The database's lock when it has loop sessions: the greenlet's connection, then the lock."""

    def __init__(self, sessions: LoopSessions, lock: aio.Lock) -> None:
        self._sessions = sessions
        self._lock = lock

    def __enter__(self) -> "SessionLock":
        self._sessions.enter()
        try:
            self._lock.acquire()
        except BaseException:
            self._sessions.exit()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._lock.release()
        finally:
            self._sessions.exit()


__all__ = ["LoopConnections", "LoopSessions", "SessionLock"]
