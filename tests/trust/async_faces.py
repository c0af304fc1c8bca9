"""The awaitable faces as paths of the isolation machine: ``AsyncMemory`` over the served Memory, and
``AsyncRemoteMemory`` with the tenant's key over a real socket.

Each is played through :class:`~tests.trust.faces.MemoryFace`'s calls (same arguments, results and errors as
the synchronous classes they mirror): :class:`Awaited` runs every coroutine method to completion on the face's
own event loop, so one loop (and the per-loop clients and connections the facades keep) serves the whole example.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from memdesk.client.async_api import AsyncMemory, AsyncRemoteMemory
from memdesk.conversation.memory import Memory

from .faces import MemoryFace


class Awaited:
    """A synchronous view of an async facade: ``view.search(...)`` is ``loop.run_until_complete(facade.search(...))``."""

    def __init__(self, facade: Any) -> None:
        self._facade = facade
        self._loop = asyncio.new_event_loop()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._facade, name)
        if inspect.iscoroutinefunction(attr):
            return lambda *args, **kwargs: self._loop.run_until_complete(attr(*args, **kwargs))
        return attr

    def stop(self) -> None:
        """Close the loop (and its worker threads), leaving the facade's object open."""
        self._loop.run_until_complete(self._loop.shutdown_default_executor())
        self._loop.close()

    def close(self) -> None:
        try:
            self._loop.run_until_complete(self._facade.close())
        finally:
            self.stop()


class AsyncMemoryFace(MemoryFace):
    """``AsyncMemory(memory)`` in process, with the tenant's own scope. Closing it leaves the served Memory open."""

    def __init__(self, memory: Memory, user: str) -> None:
        self._awaited = Awaited(AsyncMemory(memory))
        super().__init__(self._awaited, user, banks=None)  # type: ignore[arg-type]  # Memory's methods, awaited

    def close(self) -> None:
        self._awaited.stop()  # the facade's close would close the served Memory's parts


class AsyncRemoteFace(MemoryFace):
    """``AsyncRemoteMemory`` over a real socket with the tenant's key (its reasoning-bank methods too)."""

    def __init__(self, url: str, key: str, user: str) -> None:
        awaited = Awaited(AsyncRemoteMemory(url, api_key=key))
        super().__init__(awaited, user, banks=awaited)  # type: ignore[arg-type]

    def close(self) -> None:
        self.memory.close()
