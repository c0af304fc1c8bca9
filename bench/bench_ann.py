"""Big-scope benchmark: exact vs HNSW search of one SQLite scope of real MiniLM vectors.

Vectors: the real all-MiniLM-L6-v2 vectors of an evaluation embedding cache (default: the LoCoMo one,
``embedding_cache(key, vector)``, as ``memdesk eval locomo`` writes it under ``<run>/work/``).
``--queries`` of them are held out as queries; the rest go into the scope, and when they are fewer
than ``--n`` the scope is filled with normalized sums of two random distinct real vectors (MiniLM
mean-pools its tokens, so the sum is close to the embedding of the two sentences joined). Every
vector is made from the real ones that way; none is random.

It measures, through ``SQLiteStore.search`` (k=10, one memory type):
  * exact: the in-process numpy scan (``ann_min_rows=None``), cold first search and warm p50/p95;
  * HNSW (``ann_min_rows`` = the default, met by the scope): the first search (loads the rows, starts
    the background build, answers exactly), the build, the search that attaches the graph and writes
    its file, then warm p50/p95 and recall@k of the exact top-k at several ``efSearch``, the file's
    size, the process's peak RSS;
  * a restart: a new store's first search, which reads the graph file (no rebuild: checked);
  * in memory only (no database): exact p50 at smaller sizes, to place ``DEFAULT_ANN_MIN_ROWS``.

    nice -n 10 python bench/bench_ann.py [--n 100000] [--queries 200] [--out bench/results/ann/sqlite-1e5.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.benchinfo import machine_info, measured_at, write_result  # noqa: E402 - after the sys.path line
from memdesk.records import MemoryType, Scope, SemanticRecord  # noqa: E402
from memdesk.store import DEFAULT_ANN_MIN_ROWS, EmbeddingInfo, SQLiteStore  # noqa: E402
from memdesk.store.ann import DEFAULT_EF_CONSTRUCTION, DEFAULT_EF_SEARCH  # noqa: E402
from memdesk.store.vector_index import VectorIndex  # noqa: E402

SCOPE = Scope(user_id="bench")
MT = MemoryType.SEMANTIC
DEFAULT_CACHE = Path("/work/coord/cache/locomo-embeddings.sqlite")


def real_vectors(paths: list[Path]) -> np.ndarray:
    """The distinct vectors of the caches, each cache in key order, the first cache first."""
    blobs: dict[bytes, None] = {}
    for path in paths:
        with sqlite3.connect(path) as conn:
            blobs.update((r[0], None) for r in conn.execute("SELECT vector FROM embedding_cache ORDER BY key"))
    m = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), -1).copy()
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def log_phase(out: dict[str, Any], name: str) -> None:
    """Progress on stdout, and the load average when each phase ended (the machine is shared)."""
    load = [round(x, 2) for x in os.getloadavg()]
    out.setdefault("load_average_by_phase", {})[name] = load
    print(f"{time.strftime('%H:%M:%S')} {name} load={load} rss_mb={peak_rss_mb()}", flush=True)


def peak_rss_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def scope_vectors(real: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` vectors: the real ones first, then normalized sums of two distinct real ones."""
    if n <= len(real):
        return real[:n].copy()
    a = rng.integers(0, len(real), n - len(real))
    b = (a + rng.integers(1, len(real), n - len(real))) % len(real)
    mixed = real[a] + real[b]
    mixed /= np.linalg.norm(mixed, axis=1, keepdims=True)
    return np.ascontiguousarray(np.concatenate([real, mixed]), dtype=np.float32)


def pct(xs: list[float], q: float) -> float:
    return round(1000 * float(np.percentile(np.array(xs), q)), 3)


def searches(store: SQLiteStore, queries: np.ndarray, k: int) -> tuple[list[float], list[list[str]]]:
    times, ids = [], []
    for q in queries:
        t0 = time.perf_counter()
        hits = store.search(q, SCOPE, MT, k)
        times.append(time.perf_counter() - t0)
        ids.append([h.record.id for h in hits])
    return times, ids


def recall(got: list[list[str]], truth: list[list[str]], k: int) -> float:
    return round(float(np.mean([len(set(a) & set(b)) / k for a, b in zip(got, truth)])), 4)


def first_search(store: SQLiteStore, query: np.ndarray, k: int) -> float:
    t0 = time.perf_counter()
    store.search(query, SCOPE, MT, k)
    return round(time.perf_counter() - t0, 2)


def exact_in_memory(vectors: np.ndarray, queries: np.ndarray, sizes: list[int], k: int) -> dict[str, float]:
    """Exact p50 (ms) of a bare VectorIndex over the first ``size`` vectors: the cost an index saves."""
    out = {}
    for size in sizes:
        index = VectorIndex.build(vectors.shape[1], [str(i) for i in range(size)], [""] * size, [None] * size, vectors[:size])
        times = []
        for q in queries:
            t0 = time.perf_counter()
            index.top_k(q, k)
            times.append(time.perf_counter() - t0)
        out[str(size)] = pct(times, 50)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(args.seed)
    real = real_vectors([Path(v) for v in args.vectors])
    order = rng.permutation(len(real))
    queries, rest = real[order[: args.queries]], real[order[args.queries :]]
    vectors = scope_vectors(rest, args.n, rng)
    k, info = args.k, EmbeddingInfo(model_id="minilm-bench", dim=vectors.shape[1])
    out: dict[str, Any] = {
        "n": args.n,
        "real_vectors_in_scope": int(min(len(rest), args.n)),
        "mixed_vectors_in_scope": int(max(0, args.n - len(rest))),
        "queries": args.queries,
        "k": k,
        "ann_min_rows": args.ann_min_rows,
        "ef_construction": args.ef_construction,
        "vector_sources": [str(v) for v in args.vectors],
        "exact_in_memory_p50_ms": exact_in_memory(vectors, queries, [s for s in (10_000, 20_000, 50_000, args.n) if s <= args.n], k),
    }
    log_phase(out, "vectors")
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bench-ann-"))
    work.mkdir(parents=True, exist_ok=True)
    db = work / "ann.db"
    del real, rest  # (a later --cold-start run reads the queries and numpy's exact top-k from --work)
    reuse = args.reuse and db.exists()  # the database (and numpy's top-k) an earlier run left in --work
    if reuse:
        for f in (work / "ann.db-ann").glob("*"):  # this run builds the graph
            f.unlink()
        truth_np = json.loads((work / "truth.json").read_text())
        assert np.array_equal(np.load(work / "queries.npy"), queries), "not the queries of that run"
    else:
        np.save(work / "queries.npy", queries)
        truth_np = [[f"r{i}" for i in top_ids(vectors, q, k)] for q in queries]
        (work / "truth.json").write_text(json.dumps(truth_np))
    t0 = time.perf_counter()
    with SQLiteStore(db, ann_min_rows=None) as s:
        if not reuse:
            s.set_embedding_info(info)
        for start in range(0, 0 if reuse else args.n, 5000):
            chunk = vectors[start : start + 5000]
            s.write([SemanticRecord(id=f"r{start + i}", scope=SCOPE, fact=f"fact {start + i}") for i in range(len(chunk))], chunk)
    out["write_s"] = round(time.perf_counter() - t0, 1)
    log_phase(out, "write")
    if args.exact_queries < args.queries:  # the full matrix is not kept past here
        del vectors

    truth: list[list[str]] = []
    if reuse:
        out["write_s"] = "reused"
    else:
        with SQLiteStore(db, ann_min_rows=None) as s:
            out["exact_first_search_s"] = first_search(s, queries[0], k)
            times, truth = searches(s, queries[: args.exact_queries], k)
            out["exact_p50_ms"], out["exact_p95_ms"] = pct(times, 50), pct(times, 95)
            out["exact_queries"] = len(times)
            out["exact_store_equals_numpy_top_k"] = recall(truth, truth_np, k)
    truth = truth + truth_np[len(truth) :]  # the queries not run through the exact store: numpy's top-k
    log_phase(out, "exact")

    options = {"ann_min_rows": args.ann_min_rows, "ann_ef_construction": args.ef_construction}
    with SQLiteStore(db, **options) as s:
        out["hnsw_first_search_s"] = first_search(s, queries[0], k)  # load, start the build, answer exactly
        log_phase(out, "hnsw_first_search")
        t0 = time.perf_counter()
        s._search.ann.wait()  # white-box: the background build
        out["hnsw_build_s"] = round(time.perf_counter() - t0, 1)
        log_phase(out, "hnsw_build")
        out["hnsw_attach_search_s"] = first_search(s, queries[0], k)  # reconcile, attach, write the file
        log_phase(out, "hnsw_attach")
        graph = s._search.cache.loaded(MT.value, ("bench", None, None)).ann  # white-box: to vary efSearch
        out["hnsw_labels"] = graph.labels
        runs = {}
        for ef in args.ef:
            graph.ef_search = ef
            searches(s, queries[:5], k)
            times, ids = searches(s, queries, k)
            runs[str(ef)] = {"p50_ms": pct(times, 50), "p95_ms": pct(times, 95), f"recall_at_{k}": recall(ids, truth, k)}
            log_phase(out, f"hnsw_ef{ef}")
        out["hnsw_by_ef_search"] = runs
        files = list((work / "ann.db-ann").glob("*.hnsw"))
        out["hnsw_file_mb"] = round(sum(f.stat().st_size for f in files) / 2**20, 1)
        graph.ef_search = DEFAULT_EF_SEARCH
    out["peak_rss_mb_so_far"] = peak_rss_mb()

    with SQLiteStore(db, **options) as s:
        out["restart_first_search_s"] = first_search(s, queries[0], k)  # load rows + read the graph file
        out["restart_rebuilt"] = s._search.ann.builds != 0
        times, ids = searches(s, queries, k)
        out["restart_p50_ms"], out[f"restart_recall_at_{k}"] = pct(times, 50), recall(ids, truth, k)
    log_phase(out, "restart")
    (work / "truth.json").write_text(json.dumps(truth))
    if not args.work:
        for f in work.glob("**/*"):
            if f.is_file():
                f.unlink()
    return out


def top_ids(vectors: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    scores = vectors @ query
    best = np.argpartition(-scores, k)[:k]
    return best[np.argsort(-scores[best], kind="stable")].tolist()


def cold_start(args: argparse.Namespace) -> dict[str, Any]:
    """A new process's first search of the scope a full run left in ``--work`` (open + first search;
    importing faiss, which that search would do, is timed apart before it), whether it rebuilt the
    graph, then warm p50/p95 and recall@k at the default efSearch."""
    work = Path(args.work)
    queries = np.load(work / "queries.npy")
    truth = json.loads((work / "truth.json").read_text())
    k, out = args.k, {"load_average_at_start": [round(x, 2) for x in os.getloadavg()]}
    if args.evict:  # this run's files out of the page cache (only theirs: the machine's other work keeps its pages)
        for f in [work / "ann.db", *(work / "ann.db-ann").glob("*.hnsw")]:
            fd = os.open(f, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        out["page_cache"] = "the database and graph files evicted first (posix_fadvise DONTNEED)"
    t0 = time.perf_counter()
    import faiss  # noqa: F401 - what the first search of a large scope imports, timed apart

    out["faiss_import_s"] = round(time.perf_counter() - t0, 2)
    t0 = time.perf_counter()
    with SQLiteStore(work / "ann.db", ann_min_rows=args.ann_min_rows or None, ann_ef_construction=args.ef_construction) as s:  # 0: exact
        out["open_s"] = round(time.perf_counter() - t0, 3)
        out["first_search_s"] = first_search(s, queries[0], k)
        out["open_and_first_search_s"] = round(time.perf_counter() - t0, 2)
        if s._search.ann is not None:
            out["rebuilt"] = s._search.ann.builds != 0
            out["graph_files_read"] = s._search.ann.reads
        index = s._search.cache.loaded(MT.value, ("bench", None, None))
        out["index"] = type(index).__name__
        times, ids = searches(s, queries, k)
        out["p50_ms"], out["p95_ms"], out[f"recall_at_{k}"] = pct(times, 50), pct(times, 95), recall(ids, truth, k)
    out["peak_rss_mb"] = peak_rss_mb()
    out["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--ef", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--ef-construction", type=int, default=DEFAULT_EF_CONSTRUCTION, help="the store's ann_ef_construction")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ann-min-rows", type=int, default=DEFAULT_ANN_MIN_ROWS, help="0 with --cold-start: exact search")
    ap.add_argument("--vectors", nargs="+", default=[str(DEFAULT_CACHE)], help="evaluation embedding caches (MiniLM)")
    ap.add_argument("--exact-queries", type=int, default=None, help="queries run through the exact store (default: all)")
    ap.add_argument("--work", default=None, help="keep the database and graph file here (for --cold-start)")
    ap.add_argument("--reuse", action="store_true", help="with --work: the database an earlier run wrote there (no write, no exact phase)")
    ap.add_argument("--cold-start", default=None, metavar="NAME", help="only a new process's cold start on --work, added to --out as NAME")
    ap.add_argument("--evict", action="store_true", help="with --cold-start: evict the database and graph files from the page cache first")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "ann" / "sqlite-1e5.json"))
    args = ap.parse_args()
    if args.exact_queries is None:
        args.exact_queries = args.queries
    logging.basicConfig(level=logging.INFO)
    if args.cold_start:
        result = json.loads(Path(args.out).read_text()) if Path(args.out).exists() else {}
        result.setdefault("cold_start", {})[args.cold_start] = cold_start(args)
        write_result(args.out, result)
        return
    started = time.perf_counter()
    result = run(args)
    import faiss

    result["total_s"] = round(time.perf_counter() - started, 1)
    result["measured_at"] = measured_at()
    result["machine"] = machine_info(numpy=np.__version__, faiss=faiss.__version__)
    result["note"] = "2-core shared VM (other sessions' jobs running): latencies are not quiet-machine numbers"
    write_result(args.out, result)


if __name__ == "__main__":
    main()
