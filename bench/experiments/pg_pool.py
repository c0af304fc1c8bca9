"""memdesk's per-event-loop async pool (store/pg_loop.py) against psycopg_pool's AsyncConnectionPool.

Measures, on a throwaway pgserver database: (1) lend + ``SELECT 1`` + give back, ``--calls`` times at concurrency
1 and 8 (calls/s, median of ``--repeats``); (2) what each leaves behind when its event loop ends without the pool
being closed (as happens when an application drops an ``AsyncMemory`` whose loop has finished): asyncio tasks
still pending and warnings logged. The reason memdesk keeps its own pool is in docs/architecture.md.

    nice python bench/experiments/pg_pool.py --out bench/results/experiments/pg_pool.json
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.benchinfo import machine_info, measured_at, write_result  # noqa: E402


async def _calls(get, put, calls: int, concurrency: int) -> float:
    gate = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with gate:
            conn = await get()
            try:
                await (await conn.execute("SELECT 1")).fetchone()
            finally:
                await put(conn)

    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(calls)))
    return calls / (time.perf_counter() - start)


def _ours(dsn: str, size: int):
    import psycopg

    from memdesk.store.pg_loop import _Pool

    return _Pool(lambda: psycopg.AsyncConnection.connect(dsn, autocommit=True), size)


async def _measure(kind: str, dsn: str, calls: int, concurrency: int) -> float:
    if kind == "memdesk":
        pool = _ours(dsn, 10)
        try:
            return await _calls(pool.get, pool.put, calls, concurrency)
        finally:
            await pool.close()
    from psycopg_pool import AsyncConnectionPool

    async with AsyncConnectionPool(dsn, min_size=1, max_size=10, kwargs={"autocommit": True}) as pool:
        return await _calls(pool.getconn, pool.putconn, calls, concurrency)


def _left_behind(kind: str, dsn: str) -> dict:
    """Open a pool on a loop, use it once, end the loop without closing the pool: what remains?"""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(level=logging.WARNING)
    logging.getLogger("asyncio").addHandler(handler)
    logging.getLogger("psycopg").addHandler(handler)
    loop = asyncio.new_event_loop()
    pending = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if kind == "memdesk":
                pool = _ours(dsn, 10)

                async def use() -> None:
                    await pool.put(await pool.get())
            else:
                from psycopg_pool import AsyncConnectionPool

                pool = AsyncConnectionPool(dsn, min_size=1, max_size=10, open=False, kwargs={"autocommit": True})

                async def use() -> None:
                    await pool.open()
                    await pool.putconn(await pool.getconn())
            loop.run_until_complete(use())
            pending = sum(1 for t in asyncio.all_tasks(loop) if not t.done())
        finally:
            loop.close()
            if kind == "memdesk":
                pool.discard()  # what LoopConnections.close() does for a loop that is gone
            del pool
            gc.collect()
    logging.getLogger("asyncio").removeHandler(handler)
    logging.getLogger("psycopg").removeHandler(handler)
    return {"pending_tasks_when_the_loop_ended": pending,
            "warnings_logged": len(records) + len(caught),
            "examples": sorted({r.getMessage()[:120] for r in records} | {str(w.message)[:120] for w in caught})[:3]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import pgserver

    with tempfile.TemporaryDirectory() as root:
        server = pgserver.get_server(Path(root) / "pgdata", cleanup_mode="delete")
        dsn = server.get_uri()
        rows = []
        for concurrency in (1, 8):
            for kind in ("memdesk", "psycopg_pool"):
                runs = [asyncio.run(_measure(kind, dsn, args.calls, concurrency)) for _ in range(args.repeats)]
                rows.append({"pool": kind, "concurrency": concurrency, "calls_per_s": round(statistics.median(runs), 1)})
                print(rows[-1], flush=True)
        leftovers = {kind: _left_behind(kind, dsn) for kind in ("memdesk", "psycopg_pool")}
        print(leftovers, flush=True)
        server.cleanup()
    result = {"measured_at": measured_at(), "command": "bench/experiments/pg_pool.py " + " ".join(sys.argv[1:]),
              "machine": machine_info(), "results": rows, "loop_ended_without_close": leftovers}
    if args.out:
        write_result(args.out, result)


if __name__ == "__main__":
    main()
