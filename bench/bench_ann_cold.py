"""Cold start of a big scope from its graph file, without waiting for a real HNSW build.

Building the HNSW graph of 10^6 vectors takes an hour or more on a loaded 2-core machine; what a
restart costs does not depend on how good the graph is, only on its size (the vectors, M = 32 links
per node, the ids) and on the database. This script copies a database that ``bench_ann.py --work``
left (the scope ``bench``, ids ``r0``, ``r1``, ...), makes the same vectors again (same caches, same
seed), and writes the scope's graph file in the store's format with the database's current
change-log stamp, but with **random links** (faiss ``HNSW.fill_with_random_links``) instead of a
built graph. Then:

    python bench/bench_ann.py --cold-start random_links --work <copy> --out <json>

measures a new process's open + first search, which the store serves from that file alone (no rows
loaded). The recall such a graph gives is meaningless and is not reported as a result.

    nice -n 10 python bench/bench_ann_cold.py --from /tmp/store6/ann-1e6 --to /tmp/store6/cold-1e6 \
        --n 1000000 --vectors <the caches bench_ann.py was given>
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bench_ann import MT, real_vectors, scope_vectors  # noqa: E402
from memdesk.store.ann import HNSW_M, HNSWGraph, _digest  # noqa: E402
from memdesk.store.ann_files import write_file  # noqa: E402
from memdesk.store.ann_scopes import LargeScopes  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--from", dest="source", required=True, help="a bench_ann.py --work folder")
    ap.add_argument("--to", required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vectors", nargs="+", required=True)
    args = ap.parse_args()
    import faiss

    source, target = Path(args.source), Path(args.to)
    target.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for name in ("ann.db", "ann.db-wal", "queries.npy", "truth.json"):
        if (source / name).exists():
            shutil.copyfile(source / name, target / name)
    print(f"copied in {time.perf_counter() - t0:.1f} s", flush=True)

    rng = np.random.default_rng(args.seed)  # the same draws as bench_ann.run
    real = real_vectors([Path(v) for v in args.vectors])
    order = rng.permutation(len(real))
    vectors = scope_vectors(real[order[args.queries :]], args.n, rng)
    db = sqlite3.connect(target / "ann.db")
    for i in (0, args.n // 2, args.n - 1):
        (blob,) = db.execute("SELECT vector FROM semantic_memory WHERE id = ?", (f"r{i}",)).fetchone()
        assert blob == vectors[i].astype("<f4").tobytes(), "not the vectors bench_ann.py wrote"
    stamp = int(db.execute("SELECT MAX(id) FROM change_log").fetchone()[0])
    database = str(db.execute("SELECT applied_at FROM migrations ORDER BY rowid LIMIT 1").fetchone()[0])
    model_id = db.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()[0]
    db.close()

    t0 = time.perf_counter()
    index = faiss.IndexHNSWFlat(vectors.shape[1], HNSW_M, faiss.METRIC_INNER_PRODUCT)
    index.storage.add(vectors)
    index.hnsw.fill_with_random_links(args.n)
    index.ntotal = args.n
    graph = HNSWGraph.restore(index, [[f"r{i}"] for i in range(args.n)], [_digest(v) for v in vectors])
    path = LargeScopes(target / "ann.db-ann", min_rows=1).path(MT.value, ("bench", None, None))
    assert path is not None
    path.parent.mkdir(mode=0o700, exist_ok=True)
    write_file(path, graph, model_id, stamp, database)
    print(f"random-link graph file {path.stat().st_size / 2**20:.1f} MB in {time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
