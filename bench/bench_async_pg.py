"""AsyncMemory on PostgreSQL: concurrent calls on the event loop (psycopg's async API) vs. in worker threads.

Runs ``get`` and ``add`` (the raw-turn processor, a hashing embedder: no model) ``--calls`` times at each
concurrency, on a throwaway pgserver database (or ``--postgres-url``), two ways: ``loop`` (the store is
async-ready: each call's queries are awaited on a connection of the loop's pool) and ``threads`` (the same
store behind ``aio.Offloaded``, as before: every store call in asyncio's default worker threads, one
synchronous connection under the store lock). Reports calls/s (median of ``--repeats``) and the most
threads the process had while the calls ran.

    flock /work/coord/quiet.lock nice -n 10 python bench/bench_async_pg.py [--out bench/results/async-pg.json]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.benchinfo import machine_info, measured_at, write_result  # noqa: E402
from memdesk import AsyncMemory, Memory, Scope
from memdesk.runtime import aio  # noqa: E402
from memdesk.conversation.raw import RawTurnProcessor  # noqa: E402
from memdesk.embed import HashingEmbedder  # noqa: E402
from memdesk.store.postgres import PostgresStore  # noqa: E402

ANA = Scope(user_id="ana")


async def _timed(amem: AsyncMemory, op: str, ids: list[str], calls: int, concurrency: int) -> tuple[float, int]:
    gate = asyncio.Semaphore(concurrency)
    most = [threading.active_count()]

    async def one(i: int) -> None:
        async with gate:
            if op == "get":
                await amem.get(ids[i % len(ids)], scope=ANA)
            else:
                await amem.add(f"bench note {i} about bees", scope=ANA)
            most[0] = max(most[0], threading.active_count())

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(calls)))
    return calls / (time.perf_counter() - started), most[0]


def run(url: str, mode: str, op: str, calls: int, concurrency: int, repeats: int) -> dict:
    store = PostgresStore(url, async_pool_size=max(1, min(concurrency, 32)))
    mem = Memory(store if mode == "loop" else aio.Offloaded(store), HashingEmbedder(64), RawTurnProcessor())
    ids = [mem.add(f"seed note {i}", scope=ANA).records[0].id for i in range(50)]
    rates, threads = [], 0

    async def main() -> None:
        nonlocal threads
        amem = AsyncMemory(mem)
        await _timed(amem, op, ids, min(calls, 50), concurrency)  # warm: connections, threads
        for _ in range(repeats):
            rate, most = await _timed(amem, op, ids, calls, concurrency)
            rates.append(rate)
            threads = max(threads, most)
        await amem.close()

    asyncio.run(main())
    return {"mode": mode, "op": op, "concurrency": concurrency, "calls_per_s": round(statistics.median(rates), 1),
            "max_threads": threads}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--postgres-url", default=None)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    server = None
    if args.postgres_url is None:
        from tests.pg_server import start_server

        server = start_server()
    try:
        rows = []
        for op in ("get", "add"):
            for c in args.concurrency:
                for mode in ("threads", "loop"):
                    url = args.postgres_url or server.fresh_database()
                    rows.append(run(url, mode, op, args.calls, c, args.repeats))
                    print(rows[-1], file=sys.stderr)
    finally:
        if server is not None:
            server.stop()
    import psycopg

    write_result(args.out, {"measured_at": measured_at(), "command": " ".join(sys.argv), "results": rows,
                            "machine": machine_info(psycopg=psycopg.__version__)})


if __name__ == "__main__":
    main()
