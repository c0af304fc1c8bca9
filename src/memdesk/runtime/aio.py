"""How memdesk is asynchronous without a second copy of its logic.

memdesk's pipeline (``Memory``, the processors, the retriever, ``RemoteMemory``) is written once, as plain
synchronous code. :func:`run` runs such a call on the event loop inside a greenlet (the technique SQLAlchemy's
asyncio extension uses): the code runs unchanged until it reaches an I/O seam, and there

* a part that does its I/O through :func:`io` (the OpenAI-compatible chat model and embedder, ``RemoteMemory``'s
  HTTP client) hands the event loop its *async* implementation (``openai.AsyncOpenAI``, ``httpx2.AsyncClient``)
  and the greenlet waits, holding no thread, until the awaited result is back;
* a part that only has blocking code (the rule processor, the packaged ONNX embedder, SQLite) is called through
  :func:`offload`, in a worker thread (``asyncio.to_thread``), so CPU work and blocking I/O stay off the loop.

Outside :func:`run` (plain synchronous use) :func:`io` calls the synchronous implementation and :func:`offload`
calls the function directly: the same code path, with no event loop and no greenlet.

Several operations on one loop share its thread, so a ``threading.RLock`` cannot keep them apart;
:class:`Lock` can (the PostgreSQL store's lock: its queries go through psycopg's async API under :func:`run`).

A part says it may run on the event loop (its blocking work goes through :func:`io` or :func:`offload`) with an
``async_ready`` attribute that is true; :func:`loop_safe` reads it. :class:`Offloaded` wraps any other part so that
each of its method calls is offloaded.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import threading
import weakref
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

from greenlet import getcurrent, greenlet

from ..errors import UsageError

T = TypeVar("T")


class _LoopGreenlet(greenlet):
    """A greenlet running synchronous memdesk code on behalf of an event loop task (its ``driver``)."""

    def __init__(self, fn: Callable[..., Any], driver: greenlet) -> None:
        super().__init__(fn, driver)
        self.driver = driver


def active() -> bool:
    """True inside :func:`run`: the current code may hand awaitables to the event loop."""
    return isinstance(getcurrent(), _LoopGreenlet)


def await_(awaitable: Awaitable[T]) -> T:
    """Wait for ``awaitable`` on the event loop from synchronous code running under :func:`run`."""
    current = getcurrent()
    if not isinstance(current, _LoopGreenlet):
        raise RuntimeError("memdesk.runtime.aio.await_() outside memdesk.runtime.aio.run()")
    return current.driver.switch(awaitable)


async def run(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run the synchronous ``fn(*args, **kwargs)`` on the event loop, awaiting its I/O seams (see the module)."""
    child = _LoopGreenlet(fn, getcurrent())
    # the greenlet runs in a copy of the caller's context: tracing spans nest under the caller's
    child.gr_context = contextvars.copy_context()
    result = child.switch(*args, **kwargs)
    while not child.dead:
        try:
            value = await result
        except BaseException:
            result = child.throw(*sys.exc_info())
        else:
            result = child.switch(value)
    return result  # type: ignore[return-value]


def io(sync: Callable[[], T], asynchronous: Callable[[], Awaitable[T]]) -> T:
    """One I/O operation with two implementations: the async one under :func:`run`, else the sync one."""
    if active():
        return await_(asynchronous())
    return sync()


def offload(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Call blocking ``fn`` in a worker thread under :func:`run` (the loop stays free), else directly."""
    if active():
        # to_thread copies the context of the task that awaits it; run fn in this greenlet's context instead
        # (the caller's spans and other context variables)
        context = contextvars.copy_context()
        return await_(asyncio.to_thread(context.run, fn, *args, **kwargs))
    return fn(*args, **kwargs)


def sleep(seconds: float, sync_sleep: Callable[[float], None]) -> None:
    """``asyncio.sleep`` under :func:`run` (unless ``sync_sleep`` is an injected fake), else ``sync_sleep``."""
    import time

    if active() and sync_sleep is time.sleep:
        await_(asyncio.sleep(seconds))
    else:
        sync_sleep(seconds)


class PerLoop:
    """One resource per running event loop (an async HTTP client's pool or a semaphore cannot cross loops)."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._items: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self) -> Any:
        loop = asyncio.get_running_loop()
        with self._lock:
            item = self._items.get(loop)
            if item is None:
                item = self._items[loop] = self._factory()
            return item

    def pop_all(self) -> list[Any]:
        with self._lock:
            items = list(self._items.values())
            self._items.clear()
            return items


class Lock:
    """A reentrant lock held by one thread or, under :func:`run`, by one greenlet (one operation on the loop).

    Greenlets on the event loop share its thread, so a ``threading.RLock`` would let two of them in at
    once; this lock tells them apart, and a greenlet that must wait awaits on the loop (the loop stays
    free). Threads wait as on any lock. A thread that would wait for a greenlet of its own loop (blocking
    code called on the event loop while an async operation holds the lock) raises
    :class:`~memdesk.errors.UsageError` instead of hanging.
    """

    def __init__(self) -> None:
        self._mutex = threading.Condition(threading.Lock())
        self._owner: Any = None  # the greenlet holding the lock (every thread has its own main greenlet)
        self._owner_thread = 0
        self._depth = 0
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def acquire(self) -> None:
        me = getcurrent()
        on_loop = isinstance(me, _LoopGreenlet)
        while True:
            with self._mutex:
                if self._owner is None or self._owner is me:
                    self._owner, self._owner_thread = me, threading.get_ident()
                    self._depth += 1
                    return
                if not on_loop:
                    if self._owner_thread == threading.get_ident():
                        raise UsageError(
                            "blocking memdesk call on the event loop while an async call holds the same store: "
                            "await the AsyncMemory method instead"
                        )
                    self._mutex.wait()
                    continue
                loop = asyncio.get_running_loop()
                waiter = (loop, loop.create_future())
                self._waiters.append(waiter)
            try:
                await_(waiter[1])
            except BaseException:  # cancelled: leave the queue, or pass on a wake-up already sent here
                with self._mutex:
                    if waiter in self._waiters:
                        self._waiters.remove(waiter)
                    elif self._owner is None:
                        self._wake_next()
                raise

    def _wake_next(self) -> None:
        """Wake the longest-waiting greenlet (under the mutex): it retries; the lock's next release wakes the next."""
        while self._waiters:
            loop, future = self._waiters.pop(0)
            if not loop.is_closed():
                loop.call_soon_threadsafe(_wake, future)
                return

    def release(self) -> None:
        with self._mutex:
            if self._owner is not getcurrent():
                raise RuntimeError("memdesk.runtime.aio.Lock released by a thread or greenlet that does not hold it")
            self._depth -= 1
            if self._depth:
                return
            self._owner, self._owner_thread = None, 0
            self._mutex.notify_all()  # waiting threads retry
            self._wake_next()

    def __enter__(self) -> "Lock":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def loop_safe(part: Any) -> bool:
    """Whether ``part`` may be called on the event loop (it declares ``async_ready``)."""
    return bool(getattr(part, "async_ready", False))


class Offloaded:
    """A part whose method calls run in a worker thread under :func:`run` (attributes pass through).

    Used for parts that are not :func:`loop_safe`: their work is CPU (the rule extractor, ONNX inference) or
    blocking I/O (SQLite), and must not hold up the event loop.
    """

    async_ready = True

    def __init__(self, part: Any) -> None:
        object.__setattr__(self, "_part", part)

    @property
    def wrapped(self) -> Any:
        return self._part

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._part, name)
        if not callable(value) or name.startswith("__"):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            return offload(_materialized, value, args, kwargs)

        call.__name__ = name
        call.__doc__ = getattr(value, "__doc__", None)
        return call

    def __repr__(self) -> str:
        return f"Offloaded({self._part!r})"


def _materialized(fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """``fn(*args, **kwargs)``, with a returned generator run to a list in the same (worker) thread."""
    result = fn(*args, **kwargs)
    return list(result) if isinstance(result, Iterator) else result


def for_loop(part: T) -> T:
    """``part`` itself when it is :func:`loop_safe`, else the part :class:`Offloaded`."""
    if part is None or loop_safe(part):
        return part
    return Offloaded(part)  # type: ignore[return-value]
