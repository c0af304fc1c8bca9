"""HNSW build parameters on bench_ann.py's vectors: build time and recall@10 by efSearch, faiss alone.

The scope's vectors and the held-out queries are made exactly as ``bench_ann.py`` makes them (same
caches, same seed); each ``M,efConstruction`` pair is built as the store builds its graph
(``faiss.IndexHNSWFlat``, inner product) on ONE thread, then each query is searched alone at several
efSearch (p50 in ms, recall@10 of numpy's exact top-10). No database: it compares graphs cheaply at a
smaller size before one store-level run at the size that matters (``bench_ann.py``).

    OMP_NUM_THREADS=1 python bench/bench_hnsw_params.py --n 200000 --configs 32,40 32,100 32,200 48,200 \\
        --vectors CACHE [CACHE ...] --out bench/results/ann/hnsw-params-2e5.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bench_ann import DEFAULT_CACHE, real_vectors, scope_vectors, top_ids  # noqa: E402 - after the sys.path line
from bench.benchinfo import machine_info, measured_at, write_result  # noqa: E402


def main() -> None:
    import faiss

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--configs", nargs="+", default=["32,40", "32,100", "32,200", "48,200"], help="M,efConstruction pairs")
    ap.add_argument("--ef", type=int, nargs="+", default=[16, 32, 64, 128, 256])
    ap.add_argument("--vectors", nargs="+", default=[str(DEFAULT_CACHE)], help="evaluation embedding caches (MiniLM)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    faiss.omp_set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    real = real_vectors([Path(v) for v in args.vectors])
    order = rng.permutation(len(real))
    queries, rest = real[order[: args.queries]], real[order[args.queries :]]
    vectors = scope_vectors(rest, args.n, rng)
    del real, rest
    truth = [set(top_ids(vectors, q, 10)) for q in queries]
    runs = []
    for config in args.configs:
        m, efc = (int(x) for x in config.split(","))
        index = faiss.IndexHNSWFlat(vectors.shape[1], m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = efc
        t0 = time.perf_counter()
        index.add(vectors)
        row: dict[str, object] = {"M": m, "ef_construction": efc, "build_s": round(time.perf_counter() - t0, 1)}
        for ef in args.ef:
            params = faiss.SearchParametersHNSW(efSearch=ef)
            times, found = [], []
            for q, t in zip(queries, truth):
                t1 = time.perf_counter()
                _, f = index.search(q.reshape(1, -1), 10, params=params)
                times.append(time.perf_counter() - t1)
                found.append(len(t & set(f[0].tolist())) / 10)
            row[f"ef{ef}"] = {"p50_ms": round(1000 * float(np.median(times)), 2), "recall_at_10": round(float(np.mean(found)), 4)}
        print(json.dumps(row), flush=True)
        runs.append(row)
        del index
    result = {
        "n": args.n,
        "real_vectors_in_scope": int(min(len(order) - args.queries, args.n)),
        "queries": args.queries,
        "threads": 1,
        "runs": runs,
        "measured_at": measured_at(),
        "machine": machine_info(numpy=np.__version__, faiss=faiss.__version__),
    }
    write_result(args.out, result)


if __name__ == "__main__":
    main()
