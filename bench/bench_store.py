"""Store benchmark: exact top-k search latency, SQLite vs PostgreSQL, on one large scope.

For each size (random unit vectors, 384-d, all in one scope) it measures:
  * ingest: ``put`` in batches of 1000 (seconds per 1000 records), SQLite and PostgreSQL;
  * cold first search: a freshly opened store loads the scope's vectors into its numpy cache
    (SQLite, and PostgreSQL with ``search="memory"``);
  * warm search p50/p95 through ``Store.search``: SQLite's numpy cache; PostgreSQL's cache
    (``search="memory"``); PostgreSQL's default ``search="sql"``, exact (pgvector
    ``ORDER BY vector <#> q, id LIMIT k`` under the scope's b-tree), then after
    ``index_large_scopes`` through the scope's own partial HNSW index (build time, recall@k);
    the EXPLAIN ANALYZE plan of both SQL searches is in the results;
  * agreement: whether each exact method returned the brute-force top-k ids.

PostgreSQL: ``--postgres-url`` (or MEMDESK_BENCH_POSTGRES_URL), else a throwaway pgserver.

    OPENBLAS_NUM_THREADS=1 python bench/bench_store.py [--sizes 20000 100000] [--queries 50] [--out bench/results/store.json]

(One BLAS thread gives steadier numbers on a small shared machine; the JSON records the setting.)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # for tests.pg_server (the throwaway server the tests use)

from benchinfo import write_result  # noqa: E402 - after the sys.path line
from memdesk.records import MemoryType, Scope, SemanticRecord  # noqa: E402 - after the sys.path line
from memdesk.store import EmbeddingInfo, SQLiteStore  # noqa: E402 - after the sys.path line
from memdesk.store.postgres import PostgresStore  # noqa: E402 - after the sys.path line

DIM = 384
SCOPE = Scope(user_id="bench")


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal((n, DIM)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def pct(xs: list[float], q: float) -> float:
    return round(1000 * float(np.percentile(np.array(xs), q)), 2)


def fill(store: Any, vectors: np.ndarray) -> float:
    """Put every vector as a record of SCOPE, 1000 per call; seconds per 1000."""
    started = time.perf_counter()
    for start in range(0, len(vectors), 1000):
        chunk = vectors[start : start + 1000]
        recs = [SemanticRecord(id=f"r{start + i}", scope=SCOPE, fact=f"fact {start + i}") for i in range(len(chunk))]
        store.write(recs, chunk)
    return (time.perf_counter() - started) / (len(vectors) / 1000)


def timed_searches(store: Any, queries: np.ndarray, k: int) -> tuple[list[float], list[list[str]]]:
    times, ids = [], []
    for q in queries:
        t0 = time.perf_counter()
        hits = store.search(q, SCOPE, MemoryType.SEMANTIC, k)
        times.append(time.perf_counter() - t0)
        ids.append([h.record.id for h in hits])
    return times, ids


def cold_then_warm(store: Any, queries: np.ndarray, k: int, truth: list[list[str]], prefix: str, out: dict[str, Any]) -> None:
    """The first search timed (cold), then every query (warm): ``out[prefix + "_cold_first_search_s"]``,
    ``_warm_p50_ms``, ``_warm_p95_ms`` and ``_exact`` (the warm hits equal ``truth``)."""
    t0 = time.perf_counter()
    store.search(queries[0], SCOPE, MemoryType.SEMANTIC, k)
    out[f"{prefix}_cold_first_search_s"] = round(time.perf_counter() - t0, 3)
    times, ids = timed_searches(store, queries, k)
    out[f"{prefix}_warm_p50_ms"], out[f"{prefix}_warm_p95_ms"] = pct(times, 50), pct(times, 95)
    out[f"{prefix}_exact"] = ids == truth


def plan_of(store: PostgresStore, query: np.ndarray, k: int) -> list[str]:
    """EXPLAIN ANALYZE of one search, the query vector's literal abbreviated."""
    plan = store.explain_search(query, SCOPE, MemoryType.SEMANTIC, k)
    return [re.sub(r"'\[[^\]]*\]'::vector", "'[query]'::vector", line) for line in plan.splitlines()]


def run_size(n: int, n_queries: int, k: int, pg_url: str, workdir: Path) -> dict[str, Any]:
    rng = np.random.default_rng(n)
    vectors = unit(rng, n)
    queries = unit(rng, n_queries)
    scores = queries @ vectors.T
    truth = [[f"r{i}" for i in np.argsort(-s, kind="stable")[:k]] for s in scores]
    info = EmbeddingInfo(model_id="bench", dim=DIM)
    out: dict[str, Any] = {"n": n}

    db = workdir / f"bench-{n}.db"
    with SQLiteStore(db) as s:
        s.set_embedding_info(info)
        out["sqlite_put_s_per_1000"] = round(fill(s, vectors), 3)
    with SQLiteStore(db) as s:
        cold_then_warm(s, queries, k, truth, "sqlite", out)

    schema = f"bench_{n}"
    with PostgresStore(pg_url, schema=schema) as s:
        s.set_embedding_info(info)
        out["pg_put_s_per_1000"] = round(fill(s, vectors), 3)
        s.db.connection().execute(f"ANALYZE {schema}.semantic_memory")
    with PostgresStore(pg_url, schema=schema, search="memory") as s:  # the in-process cache, as SQLite
        cold_then_warm(s, queries, k, truth, "pg_cache", out)
    with PostgresStore(pg_url, schema=schema) as s:  # the default: search in SQL (pgvector)
        timed_searches(s, queries[:2], k)  # warm the server's buffers
        times, ids = timed_searches(s, queries, k)
        out["pg_sql_exact_p50_ms"], out["pg_sql_exact_p95_ms"] = pct(times, 50), pct(times, 95)
        out["pg_sql_exact"] = ids == truth
        out["pg_sql_exact_plan"] = plan_of(s, queries[0], k)
        t0 = time.perf_counter()
        s.index_large_scopes(min_rows=1)  # this scope's partial HNSW index (m=16, ef_construction=64)
        out["pg_hnsw_build_s"] = round(time.perf_counter() - t0, 1)
        timed_searches(s, queries[:2], k)
        times, ids = timed_searches(s, queries, k)
        out["pg_hnsw_p50_ms"], out["pg_hnsw_p95_ms"] = pct(times, 50), pct(times, 95)
        out["pg_hnsw_recall_at_k"] = round(float(np.mean([len(set(a) & set(b)) / k for a, b in zip(ids, truth)])), 4)
        out["pg_hnsw_plan"] = plan_of(s, queries[0], k)
        s.db.connection().execute(f"DROP SCHEMA {schema} CASCADE")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000])
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--postgres-url", default=os.environ.get("MEMDESK_BENCH_POSTGRES_URL"))
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "store.json"))
    args = ap.parse_args()

    server = None
    url = args.postgres_url
    if not url:
        from tests.pg_server import start_server

        server = start_server()
        url = server.fresh_database()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            results = [run_size(n, args.queries, args.k, url, Path(tmp)) for n in args.sizes]
    finally:
        if server is not None:
            server.stop()
    report = {
        "dim": DIM,
        "k": args.k,
        "queries": args.queries,
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus, Python {platform.python_version()}",
        "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],  # a shared machine: read the numbers with it
        "postgres": "pgserver (PostgreSQL 16 + pgvector 0.6)" if server is not None else "user server",
        "results": results,
    }
    write_result(args.out, report)


if __name__ == "__main__":
    main()
