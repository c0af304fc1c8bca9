"""Many tenants: does a search cost the same whatever the number of scopes in the store? (issue 14)

A store holds ``--scopes`` exact scopes (``Scope(user_id=f"user{i}")``) of ``--per-scope`` semantic
records each (random unit 384-d vectors: latency does not depend on what the vectors mean; recall is
measured elsewhere). In the same run, a store holding one scope of ``--per-scope`` records is the
floor. Measured through ``Memory.search`` with the packaged MiniLM embedder (the query embedding is
included, as the issue's target says), default k/K, all three memory types:

* ``warm_p50_ms``: repeated searches of already searched scopes; its two halves, measured apart on
  the same queries: ``embed_p50_ms`` (the query embedding alone) and ``warm_retrieve_p50_ms`` (the
  retriever alone, the query vectors embedded beforehand);
* ``cold_p50_ms``: the first search of a scope this process never searched (its vectors are loaded);
* ``every_scope_ms_per_scope``: every scope searched once, query vectors embedded beforehand (the
  retriever path alone), total time / scopes;
* ``after_other_commit_p50_ms``: the next search of a warm scope right after another process committed
  a write to another scope (per-scope change detection: only that scope is reloaded);
* ``rss_mb``: the process's resident memory after every scope was searched, with ``--cache-rows``.

Two phases, so that only the timing holds the quiet lock:

    nice python bench/bench_tenants.py build --backend sqlite --scopes 100000 --per-scope 20 --db /tmp/store-tenants/a.db
    flock /work/coord/quiet.lock python bench/bench_tenants.py measure --backend sqlite --scopes 100000 \\
        --per-scope 20 --db /tmp/store-tenants/a.db --out bench/results/tenants/sqlite-1e5x20.json

``--backend postgres --db postgresql://... --floor-db postgresql://...`` runs the same against PostgreSQL
(two databases that exist; the floor is a database of its own). Its result also holds the EXPLAIN ANALYZE
plans of a warm tenant's search (``explain``: the query vector shortened to ``[q]``), so it shows which
index PostgreSQL used.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # steadier numbers on a small shared machine (before numpy loads)

import argparse  # noqa: E402
import json  # noqa: E402
import multiprocessing  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from benchinfo import machine_info, measured_at, write_result  # noqa: E402

from memdesk.conversation.memory import Memory  # noqa: E402
from memdesk.conversation.raw import RawTurnProcessor  # noqa: E402
from memdesk.embed import MiniLMEmbedder  # noqa: E402
from memdesk.eval.metrics import percentile  # noqa: E402
from memdesk.records import MemoryType, Scope, SemanticRecord  # noqa: E402
from memdesk.store import EmbeddingInfo, open_store  # noqa: E402

DIM = 384
BATCH = 5000
TOPICS = ["garden", "bees", "sailing", "the new job", "her sister", "the trip to Porto", "cooking", "chess"]


def url_of(backend: str, db: str) -> str:
    return f"sqlite:///{db}" if backend == "sqlite" else db


def scope_of(i: int) -> Scope:
    return Scope(user_id=f"user{i}")


def build(url: str, scopes: int, per_scope: int, info: EmbeddingInfo, seed: int = 0) -> float:
    """Fill an empty store (records written in batches of BATCH); returns seconds."""
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    with open_store(url) as store:
        store.set_embedding_info(info)
        if store.count() == scopes * per_scope:
            return 0.0
        if store.count():
            raise SystemExit(f"{url} holds a different data set: delete it first")
        total = scopes * per_scope
        for start in range(0, total, BATCH):
            n = min(BATCH, total - start)
            recs = [
                SemanticRecord(
                    scope=scope_of((start + j) // per_scope),
                    fact=f"note {(start + j) % per_scope} about {TOPICS[(start + j) % len(TOPICS)]}",
                )
                for j in range(n)
            ]
            v = rng.standard_normal((n, DIM)).astype(np.float32)
            store.write(recs, v / np.linalg.norm(v, axis=1, keepdims=True))
            if start % (BATCH * 40) == 0:
                print(f"  {start + n}/{total} records, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return time.perf_counter() - started


def _other_writer(url: str, scope_index: int, done: Any) -> None:
    """Another process: commit one record to another scope, then say so."""
    with open_store(url) as store:
        v = np.zeros((1, DIM), np.float32)
        v[0, scope_index % DIM] = 1.0
        store.write([SemanticRecord(scope=scope_of(scope_index), fact="written by another process")], v)
    done.set()


def timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def measure(url: str, floor_url: str, scopes: int, cache_rows: int, seed: int, budget_s: float) -> dict[str, Any]:
    import psutil

    rng = np.random.default_rng(seed)
    embedder = MiniLMEmbedder()
    queries = [f"what did they say about {t}?" for t in TOPICS] + [f"tell me about {t} again" for t in TOPICS]
    qvecs = embedder.embed(queries)
    out: dict[str, Any] = {}

    with Memory(open_store(floor_url, cache_max_rows=cache_rows), embedder, RawTurnProcessor()) as floor:
        s = scope_of(0)
        for q in queries:
            floor.search(q, scope=s)
        out["floor_warm_p50_ms"] = round(percentile([timed(lambda q=q: floor.search(q, scope=s)) for q in queries * 10], 50), 2)

    store = open_store(url, cache_max_rows=cache_rows)
    mem = Memory(store, embedder, RawTurnProcessor())
    try:
        picks = rng.choice(scopes, size=min(scopes, 400), replace=False)
        warm_set, cold_set = picks[:50], picks[50:]
        cold = [timed(lambda i=i: mem.search(queries[i % len(queries)], scope=scope_of(int(i)))) for i in cold_set]
        out["cold_p50_ms"] = round(percentile(cold, 50), 2)
        out["cold_p95_ms"] = round(percentile(cold, 95), 2)
        for i in warm_set:
            mem.search(queries[0], scope=scope_of(int(i)))
        warm = [timed(lambda i=i, q=q: mem.search(q, scope=scope_of(int(i)))) for q in queries for i in warm_set[:20]]
        out["warm_p50_ms"] = round(percentile(warm, 50), 2)
        out["warm_p95_ms"] = round(percentile(warm, 95), 2)
        out["warm_vs_floor"] = round(out["warm_p50_ms"] / out["floor_warm_p50_ms"], 2)
        # the two halves of a warm search: the query embedding alone, and the retriever alone (query vectors
        # embedded beforehand), on the same queries and scopes
        out["embed_p50_ms"] = round(percentile([timed(lambda q=q: embedder.embed([q])) for q in queries * 20], 50), 2)
        retrieve = [
            timed(lambda i=i, j=j: mem.retriever.retrieve(qvecs[j], scope_of(int(i))))
            for j in range(len(queries)) for i in warm_set[:20]
        ]  # fmt: skip
        out["warm_retrieve_p50_ms"] = round(percentile(retrieve, 50), 2)

        ctx = multiprocessing.get_context("spawn")
        after = []
        for n in range(15):
            done = ctx.Event()
            p = ctx.Process(target=_other_writer, args=(url, int(picks[-1 - n]), done))
            p.start()
            done.wait(120)
            p.join(60)
            i = int(warm_set[n % len(warm_set)])
            after.append(timed(lambda i=i: mem.search(queries[1], scope=scope_of(i))))
        out["after_other_commit_p50_ms"] = round(percentile(after, 50), 2)
        out["after_other_commit_vs_warm"] = round(out["after_other_commit_p50_ms"] / out["warm_p50_ms"], 2)

        started = time.perf_counter()
        searched = 0
        for i in range(scopes):
            mem.retriever.retrieve(qvecs[i % len(qvecs)], scope_of(i))
            searched += 1
            if time.perf_counter() - started > budget_s:
                break
        elapsed = time.perf_counter() - started
        out["every_scope_searched"] = searched
        out["every_scope_ms_per_scope"] = round(1000 * elapsed / searched, 3)
        out["every_scope_total_s"] = round(elapsed, 1)
        out["rss_mb"] = round(psutil.Process().memory_info().rss / 2**20)
        if hasattr(store, "explain_search"):  # PostgreSQL searching in SQL: show the plan of a tenant's search
            i = int(warm_set[0])
            out["explain"] = [
                re.sub(r"'\[[-0-9.e, ]{40,}\]'", "'[q]'", line)
                for line in store.explain_search(qvecs[0], scope_of(i), MemoryType.SEMANTIC, 20).splitlines()
            ]
        cache = getattr(store._search, "cache", None)  # type: ignore[attr-defined]  # PostgreSQL's SQL search has none
        out["cache_rows_held"] = cache.cached_rows if cache is not None else 0
    finally:
        mem.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("phase", choices=["build", "measure"])
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--db", required=True, help="SQLite file, or a postgresql:// URL")
    ap.add_argument("--floor-db", default=None, help="Default: the --db path/URL with '-floor' (SQLite) appended")
    ap.add_argument("--scopes", type=int, default=100_000)
    ap.add_argument("--per-scope", type=int, default=20)
    ap.add_argument("--cache-rows", type=int, default=200_000)
    ap.add_argument("--budget-s", type=float, default=420.0, help="Time for 'every scope once' before it stops")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    info = EmbeddingInfo(model_id=MiniLMEmbedder().model_id, dim=DIM)
    url = url_of(args.backend, args.db)
    if args.backend == "postgres" and not args.floor_db:
        raise SystemExit("--backend postgres needs --floor-db (another database: the one-scope floor)")
    floor_url = url_of(args.backend, args.floor_db or args.db + "-floor")
    if args.phase == "build":
        seconds = build(url, args.scopes, args.per_scope, info)
        build(floor_url, 1, args.per_scope, info)
        print(json.dumps({"built": url, "seconds": round(seconds, 1)}))
        return
    result = {
        "benchmark": "tenants",
        "backend": args.backend,
        "scopes": args.scopes,
        "records_per_scope": args.per_scope,
        "cache_max_rows": args.cache_rows,
        "vectors": "random unit 384-d (latency only); queries embedded by the packaged MiniLM",
        **measure(url, floor_url, args.scopes, args.cache_rows, args.seed, args.budget_s),
        "targets": {"warm_p50_ms": "<= 10 and <= 1.5x floor", "cold": "<= 2x warm",
                    "every_scope_ms_per_scope": "<= 10", "after_other_commit": "<= 2x warm"},
        "measured_at": measured_at(),
        "machine": machine_info(),
        "command": "python bench/bench_tenants.py " + " ".join(sys.argv[1:]),
    }  # fmt: skip
    write_result(args.out, result)


if __name__ == "__main__":
    main()
