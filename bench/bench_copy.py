"""``memdesk copy`` SQLite -> PostgreSQL at 10^5 and 10^6 records: wall time, rows/s and peak memory.

The source is written straight through the store API (no embedder): ``--records`` semantic records with random
384-d unit vectors over ``--scopes`` users (each record's ADD history entry comes with it), one raw message per
ten records. The copy is the real command line (``memdesk copy SRC DST --json``, verification included: both
databases are read again and compared by counts and checksums) run as a child process, so its peak RSS is the
copy's alone (``getrusage(RUSAGE_CHILDREN)``). PostgreSQL is a throwaway pgserver (PostgreSQL 16 + pgvector) unless
``--postgres-url`` names a server.

    nice -n 10 python bench/bench_copy.py --records 100000 --out bench/results/copy/copy-1e5.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource  # noqa: F401 - the child reads its own peak
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.benchinfo import machine_info, measured_at, write_result  # noqa: E402
from memdesk.records import RawMessage, Scope, SemanticRecord  # noqa: E402
from memdesk.store import EmbeddingInfo, open_store  # noqa: E402

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
CHILD = """import resource, sys
from memdesk.cli.app import main
sys.argv = ["memdesk", *sys.argv[1:]]
try:
    main()
finally:
    print("PEAK_KB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""
WORDS = ["river", "piano", "lamp", "garden", "ticket", "violet", "engine", "harbor", "cedar", "plum"]


def build_source(path: Path, n: int, scopes: int, dim: int, batch: int = 5000) -> float:
    """Write the source database; returns the seconds it took."""
    rng = np.random.default_rng(7)
    start = time.perf_counter()
    store = open_store(f"sqlite:///{path}", cache_max_rows=None, ann_min_rows=None)
    try:
        store.set_embedding_info(EmbeddingInfo(model_id="bench-random", dim=dim))
        for lo in range(0, n, batch):
            ids = range(lo, min(n, lo + batch))
            records = [
                SemanticRecord(id=f"r{i:07d}", scope=Scope(user_id=f"u{i % scopes:04d}"), speaker="Ana", ingest_time=T0,
                               fact=f"fact {i}: {WORDS[i % 10]} {WORDS[(i // 10) % 10]}", provenance=[f"m{i}"])
                for i in ids
            ]  # fmt: skip
            vectors = rng.standard_normal((len(records), dim)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            messages = [
                RawMessage(id=f"m{i}", scope=r.scope, speaker="Ana", role="user", content=r.fact, timestamp=T0,
                           ingest_time=T0, route_mask=2)
                for i, r in zip(ids, records) if i % 10 == 0
            ]  # fmt: skip
            store.write(records, vectors, messages=messages)
    finally:
        store.close()
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--scopes", type=int, default=100)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--postgres-url", default=None)
    ap.add_argument("--workdir", default=None, help="Where the SQLite source goes (default: a temporary folder).")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    server = None
    if args.postgres_url is None:
        from tests.pg_server import start_server

        server = start_server()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-copy-"))
    try:
        src = work / f"source-{args.records}.db"
        src.unlink(missing_ok=True)
        build_s = build_source(src, args.records, args.scopes, args.dim)
        print(f"source: {args.records} records in {build_s:.1f} s ({src.stat().st_size / 1e6:.0f} MB)", file=sys.stderr)
        dst = args.postgres_url or server.fresh_database()
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, "copy", f"sqlite:///{src}", dst, "--json"],
            capture_output=True, text=True, env={**os.environ, "TQDM_DISABLE": "1"},
        )
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"copy failed: {proc.stderr[-2000:]}")
        peak_kb = int(proc.stderr.rsplit("PEAK_KB ", 1)[1].split()[0])
        result = json.loads(proc.stdout)
        rows = sum(result["destination"]["counts"].values())
        row = {
            "records": args.records, "scopes": args.scopes, "dim": args.dim,
            "source_bytes": src.stat().st_size, "build_seconds": round(build_s, 1),
            "copy_seconds_with_verification": round(wall, 1),
            "records_per_second": round(args.records / wall, 1), "rows_per_second": round(rows / wall, 1),
            "peak_rss_mb": round(peak_kb / 1024, 1), "counts": result["destination"]["counts"],
            "written": result["written"], "verified": result["source"] == result["destination"],
        }  # fmt: skip
        print(row, file=sys.stderr)
    finally:
        if server is not None:
            server.stop()
        if args.workdir is None:
            for f in work.glob("*"):
                f.unlink()
            work.rmdir()
    import psycopg

    write_result(args.out, {"measured_at": measured_at(), "command": " ".join(sys.argv), "result": row,
                            "machine": machine_info(psycopg=psycopg.__version__, numpy=np.__version__)})


if __name__ == "__main__":
    main()
