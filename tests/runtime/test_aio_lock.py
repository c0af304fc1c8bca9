"""memdesk.runtime.aio.Lock: one thread, or one greenlet on the event loop, at a time; waiting greenlets do not block the loop."""

from __future__ import annotations

import asyncio
import threading

import pytest

from memdesk.runtime import aio
from memdesk.errors import UsageError


def test_one_greenlet_at_a_time_and_reentrant_for_its_holder():
    lock = aio.Lock()
    inside: list[int] = []
    most = [0]

    def critical(i: int) -> int:
        with lock:
            with lock:
                inside.append(i)
                most[0] = max(most[0], len(inside))
                aio.await_(asyncio.sleep(0.001))  # the loop runs the others meanwhile
                inside.remove(i)
        return i

    async def main():
        return await asyncio.gather(*(aio.run(critical, i) for i in range(8)))

    assert asyncio.run(main()) == list(range(8))
    assert most[0] == 1


@pytest.mark.parametrize("cancel", ["while queued", "after its wake-up"])
def test_a_cancelled_waiter_does_not_strand_the_others(cancel):
    lock = aio.Lock()
    order: list[str] = []
    holding = asyncio.Event()
    release = asyncio.Event()

    def hold() -> None:
        with lock:
            holding.set()
            aio.await_(release.wait())
            order.append("a")

    def take(name: str) -> None:
        with lock:
            order.append(name)

    async def main():
        a = asyncio.ensure_future(aio.run(hold))
        await holding.wait()
        b = asyncio.ensure_future(aio.run(take, "b"))
        c = asyncio.ensure_future(aio.run(take, "c"))
        await asyncio.sleep(0.01)  # b and c queue
        if cancel == "while queued":
            b.cancel()
        release.set()
        await a  # a's release woke b (the longest waiting) ...
        if cancel == "after its wake-up":
            b.cancel()  # ... which is cancelled before it runs: it must pass the wake-up on to c
        await asyncio.wait_for(c, 30)
        with pytest.raises(asyncio.CancelledError):
            await b

    asyncio.run(main())
    assert order == ["a", "c"]


def test_threads_and_greenlets_exclude_each_other():
    lock = aio.Lock()
    thread_has_it = threading.Event()
    let_go = threading.Event()
    log: list[str] = []

    def thread_holder() -> None:
        with lock:
            thread_has_it.set()
            let_go.wait(30)
            log.append("thread")

    def on_loop() -> None:
        with lock:
            log.append("greenlet")

    async def main():
        t = threading.Thread(target=thread_holder)
        t.start()
        await asyncio.to_thread(thread_has_it.wait, 30)
        waiting = asyncio.ensure_future(aio.run(on_loop))
        await asyncio.sleep(0.01)
        assert not waiting.done()  # it waits on the loop, which keeps running this coroutine
        let_go.set()
        await waiting
        await asyncio.to_thread(t.join)

    asyncio.run(main())
    assert log == ["thread", "greenlet"]


def test_a_blocking_call_on_the_loop_while_a_greenlet_holds_the_lock_raises_instead_of_hanging():
    lock = aio.Lock()
    entered = asyncio.Event()

    def hold() -> None:
        with lock:
            entered.set()
            aio.await_(asyncio.sleep(0.01))

    async def main():
        task = asyncio.ensure_future(aio.run(hold))
        await entered.wait()
        with pytest.raises(UsageError, match="await the AsyncMemory method"):
            lock.acquire()  # this code runs on the loop itself: waiting would block the greenlet holding it
        await task

    asyncio.run(main())
