"""``AsyncMemory`` and ``AsyncRemoteMemory``: ``Memory``'s and ``RemoteMemory``'s methods, awaitable.

Neither holds logic of its own: every method runs the synchronous method of the same name through
:func:`memdesk.runtime.aio.run`, which awaits the I/O seams on the event loop and sends blocking parts to worker threads
(see :mod:`memdesk.runtime.aio`). The method set is read off the synchronous class, so a method added to ``Memory`` is
awaitable on ``AsyncMemory`` at once::

    async with AsyncMemory.open() as mem:
        await mem.add("I moved to Lisbon last month.", scope=Scope(user_id="ana"))
        hits = await mem.search("Where does Ana live?", scope=Scope(user_id="ana"))

    async with AsyncRemoteMemory("http://127.0.0.1:8000", api_key="...") as remote:
        hits = await remote.search("Where does Ana live?", scope=Scope(user_id="ana"))
"""

from __future__ import annotations

import copy
import functools
import inspect
from typing import Any

from ..runtime import aio
from ..conversation.memory import Memory
from .remote import RemoteMemory

#: Memory's parts that AsyncMemory runs in worker threads unless they are loop-safe (see memdesk.runtime.aio).
PARTS = ("store", "embedder", "processor", "retriever", "serializer", "_answerer")
_NOT_AWAITED = {"open", "close"}


def _awaitable(name: str, method: Any) -> Any:
    @functools.wraps(method)
    async def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return await aio.run(getattr(self._sync, name), *args, **kwargs)

    call.__doc__ = f"Awaitable :meth:`{method.__qualname__}`.\n\n{inspect.getdoc(method) or ''}"
    return call


def _with_awaitable_methods(sync_cls: type):
    """Class decorator: an awaitable method for every public method of ``sync_cls``."""

    def decorate(cls: type) -> type:
        for name, method in inspect.getmembers(sync_cls, inspect.isfunction):
            if name.startswith("_") or name in _NOT_AWAITED or name in cls.__dict__:
                continue
            setattr(cls, name, _awaitable(name, method))
        return cls

    return decorate


class _AsyncFacade:
    _sync: Any  # the synchronous object whose methods are awaited
    _view: Any  # the object attributes are read from

    async def close(self) -> None:
        await aio.run(self._sync.close)

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __getattr__(self, name: str) -> Any:
        # attributes (embedder, store, settings of the parts) read through; methods are defined on the class
        if name.startswith("__") or name in ("_sync", "_view"):
            raise AttributeError(name)
        return getattr(self._view, name)


@_with_awaitable_methods(Memory)
class AsyncMemory(_AsyncFacade):
    """:class:`~memdesk.Memory` with awaitable methods (same arguments, results and exceptions).

    ``AsyncMemory(memory)`` wraps a Memory you built; ``AsyncMemory(store, embedder, processor, ...)`` takes
    Memory's own arguments; :meth:`open` builds one from settings. Parts that are not loop-safe (the rule
    processor, the packaged ONNX embedder, SQLite and the retriever over it) are called in worker threads; the
    chat model and the OpenAI-compatible embedder await their HTTP calls on the loop, and the PostgreSQL store its
    queries (psycopg's async API, a connection per concurrent call; the retriever over it offloads only its CPU
    work). :meth:`close` closes those connections.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) == 1 and not kwargs and isinstance(args[0], Memory):
            memory = args[0]
        else:
            memory = Memory(*args, **kwargs)
        self._view = self.memory = memory
        twin = copy.copy(memory)  # the same parts (and caches), each behind its loop-safe face
        memory.answerer  # noqa: B018 - build the default answerer once, on the original
        for attr in PARTS:
            if hasattr(memory, attr):
                setattr(twin, attr, aio.for_loop(getattr(memory, attr)))
        self._sync = twin

    @classmethod
    def open(cls, settings: Any = None, **overrides: Any) -> "AsyncMemory":
        """An AsyncMemory built from settings, as :meth:`Memory.open` builds a Memory."""
        return cls(Memory.open(settings, **overrides))


@_with_awaitable_methods(RemoteMemory)
class AsyncRemoteMemory(_AsyncFacade):
    """:class:`~memdesk.RemoteMemory` with awaitable methods, over ``httpx2.AsyncClient``.

    ``http_client``: an ``httpx2.AsyncClient`` to use (yours to close); by default one is made per event loop.
    """

    def __init__(
        self, base_url: str, *, api_key: str | None = None, timeout_s: float = 60.0, http_client: Any = None
    ) -> None:
        self._sync = self._view = RemoteMemory(
            base_url, api_key=api_key, timeout_s=timeout_s, async_http_client=http_client
        )

    @classmethod
    def wrap(cls, remote: RemoteMemory) -> "AsyncRemoteMemory":
        """Awaitable methods over an existing RemoteMemory (its clients and key)."""
        facade = cls.__new__(cls)
        facade._sync = facade._view = remote
        return facade
