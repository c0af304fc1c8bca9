"""Filtered reads with and without the SQL pushdown: a selective metadata filter over one 20k-record scope.

Every record of one scope has ``metadata={"team": ...}``; 1% are ``"rare"``. For SQLite (a file) and
PostgreSQL (a throwaway pgserver) it times, median of ``--repeats``:

  * ``page_first``: the first page (limit 20) of ``metadata={"team": "rare"}`` through
    :func:`memdesk.store.filtered.page_where` (the filter compiled into the keyset query's WHERE);
  * ``scan_all``: every matching record through :func:`~memdesk.store.filtered.scan_where`;
  * the same two the way they ran before the pushdown (``*_python``): keyset pages of the scope,
    every row decoded and checked with ``RecordFilter.matches`` (the old loop, inlined here);
  * ``search_k10``: :func:`~memdesk.store.filtered.search_where` k=10: on SQLite the filter's SQL gives the
    in-memory index a row mask; PostgreSQL's default SQL search keeps the ask-more loop, so its two
    numbers are the same path; ``search_k10_python``: the ask-more loop over a plain search (before).

    nice -n 10 OPENBLAS_NUM_THREADS=1 python bench/bench_filter_pushdown.py [--n 20000] [--out bench/results/filter_pushdown.json]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # for tests.pg_server (the throwaway server the tests use)

from benchinfo import write_result  # noqa: E402 - after the sys.path line
from memdesk.filters import RecordFilter  # noqa: E402
from memdesk.records import MemoryType, Scope, SemanticRecord  # noqa: E402
from memdesk.store import EmbeddingInfo, SQLiteStore  # noqa: E402
from memdesk.store.base import Page  # noqa: E402
from memdesk.store.filtered import page_where, scan_where, search_where, top_k_passing  # noqa: E402
from memdesk.store.postgres import PostgresStore  # noqa: E402

DIM = 64
SCOPE = Scope(user_id="bench", agent_id="a", run_id="r")
WHERE = RecordFilter(metadata={"team": "rare"})


def old_page(store: Any, where: RecordFilter, limit: int, cursor: str | None = None) -> Page:
    """page_where before the pushdown: plain keyset pages, every row checked in Python."""
    out: list = []
    while True:
        page = store.page(SCOPE, speaker=where.speaker, limit=max(1, limit - len(out)), cursor=cursor)
        out.extend(r for r in page.items if where.matches(r))
        cursor = page.next_cursor
        if cursor is None or len(out) >= limit:
            return Page(items=out, next_cursor=cursor)


def old_scan(store: Any, where: RecordFilter) -> list:
    return [r for t in where.type_list() for r in store.scan(SCOPE, t) if where.matches(r)]


def median_ms(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    fn()  # warm
    times, got = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        got = fn()
        times.append(time.perf_counter() - t0)
    return round(1000 * statistics.median(times), 2), got


def measure(store: Any, n: int, repeats: int, rng: np.random.Generator) -> dict[str, Any]:
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.set_embedding_info(EmbeddingInfo(model_id="bench", dim=DIM))
    for start in range(0, n, 2000):
        recs = [
            SemanticRecord(scope=SCOPE, fact=f"fact {i}", metadata={"team": "rare" if i % 100 == 37 else "common", "i": i})
            for i in range(start, min(n, start + 2000))
        ]
        store.write(recs, vectors[start : start + len(recs)])
    out: dict[str, Any] = {}
    out["page_first_ms"], a = median_ms(lambda: page_where(store, SCOPE, WHERE, limit=20), repeats)
    out["page_first_python_ms"], b = median_ms(lambda: old_page(store, WHERE, 20), repeats)
    out["scan_all_ms"], c = median_ms(lambda: list(scan_where(store, SCOPE, WHERE)), repeats)
    out["scan_all_python_ms"], d = median_ms(lambda: old_scan(store, WHERE), repeats)
    q = vectors[5]
    out["search_k10_ms"], e = median_ms(lambda: search_where(store, q, SCOPE, MemoryType.SEMANTIC, 10, WHERE), repeats)
    old_search = lambda: top_k_passing(lambda n: store.search(q, SCOPE, MemoryType.SEMANTIC, n), WHERE, 10)  # noqa: E731
    out["search_k10_python_ms"], f = median_ms(old_search, repeats)
    same = [r.id for r in a.items] == [r.id for r in b.items] and [r.id for r in c] == [r.id for r in d]
    out["same_results"] = same and [s.record.id for s in e] == [s.record.id for s in f]
    out["matching"] = len(c)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default="bench/results/filter_pushdown.json")
    args = ap.parse_args()
    result: dict[str, Any] = {
        "machine": f"shared 2-core VM under load (a CI run going on), {platform.python_version()}, run with nice -n 10",
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
        "n": args.n, "filter": WHERE.model_dump(exclude_defaults=True), "dim": DIM,
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        with SQLiteStore(Path(tmp) / "bench.db") as s:
            result["sqlite"] = measure(s, args.n, args.repeats, np.random.default_rng(1))
    from tests.pg_server import start_server

    server = start_server()
    try:
        with PostgresStore(server.fresh_database()) as s:
            result["postgres"] = measure(s, args.n, args.repeats, np.random.default_rng(1))
    finally:
        server.stop()
    write_result(args.out, result)


if __name__ == "__main__":
    main()
