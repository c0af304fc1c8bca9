"""``memdesk copy`` SQLite -> PostgreSQL at 10^5 and 10^6 records: wall time, rows/s and peak memory.

Besides the wall time (which on a shared machine mostly measures the load), the CPU seconds of the copy process
(user + system) and of the PostgreSQL server's backends (their reaped children's time, read from the postmaster's
``/proc`` entry: a throwaway pgserver only) are recorded, and the load average is sampled every ``--sample-s``
seconds while the copy runs, with the destination's record count (``--progress FILE`` keeps the samples as JSON
Lines, so a run stopped early still says how far it got and how fast). ``--keep-source`` reuses a source database
already in ``--workdir`` (the same ``--records``), so the same source can be copied by two versions of the code.

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
import threading
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
    use = resource.getrusage(resource.RUSAGE_SELF)
    print("PEAK_KB", use.ru_maxrss, "CPU_S", use.ru_utime + use.ru_stime, file=sys.stderr)
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


def server_cpu_seconds(admin_url: str) -> float | None:
    """CPU seconds the PostgreSQL server's exited backends used so far (the postmaster's reaped children), or None
    where the postmaster is not a local process this one can read."""
    import psycopg

    try:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            data = conn.execute("SHOW data_directory").fetchone()[0]
        pid = int(Path(data, "postmaster.pid").read_text().split()[0])
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime, cstime
    except (OSError, ValueError, IndexError, psycopg.Error):
        return None


class Sampler(threading.Thread):
    """Every ``every`` seconds: the time, the load average and the destination's record count."""

    def __init__(self, dst_url: str, every: float, out: Path | None) -> None:
        super().__init__(daemon=True)
        self.dst_url, self.every, self.out = dst_url, every, out
        self.samples: list[dict] = []
        self.stop = threading.Event()
        self.start_time = time.perf_counter()

    def sample(self) -> None:
        import psycopg

        try:
            with psycopg.connect(self.dst_url, autocommit=True) as conn:
                n = sum(conn.execute(f"SELECT count(*) FROM memdesk.{t}").fetchone()[0]
                        for t in ("episodic_memory", "semantic_memory", "procedural_memory"))  # fmt: skip
        except psycopg.Error:
            n = None  # the schema is not made yet
        row = {"t": round(time.perf_counter() - self.start_time, 1), "load1": round(os.getloadavg()[0], 2),
               "dst_records": n, "at": measured_at()}  # fmt: skip
        self.samples.append(row)
        if self.out is not None:
            with self.out.open("a") as f:
                f.write(json.dumps(row) + "\n")

    def run(self) -> None:
        while not self.stop.wait(self.every):
            self.sample()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--scopes", type=int, default=100)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--postgres-url", default=None)
    ap.add_argument("--workdir", default=None, help="Where the SQLite source goes (default: a temporary folder).")
    ap.add_argument("--out", default=None)
    ap.add_argument("--keep-source", action="store_true", help="Reuse the source in --workdir if it is there.")
    ap.add_argument("--sample-s", type=float, default=30.0, help="Seconds between load and progress samples.")
    ap.add_argument("--progress", default=None, help="A JSON Lines file the samples are appended to.")
    args = ap.parse_args()
    server = None
    if args.postgres_url is None:
        from tests.pg_server import start_server

        server = start_server()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-copy-"))
    try:
        src = work / f"source-{args.records}.db"
        build_s = None
        if not (args.keep_source and src.exists()):
            src.unlink(missing_ok=True)
            build_s = round(build_source(src, args.records, args.scopes, args.dim), 1)
        print(f"source: {args.records} records, built in {build_s} s ({src.stat().st_size / 1e6:.0f} MB)", file=sys.stderr)
        dst = args.postgres_url or server.fresh_database()
        server_cpu0 = None if server is None else server_cpu_seconds(server.admin_url)
        sampler = Sampler(dst, args.sample_s, Path(args.progress) if args.progress else None)
        sampler.start()
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, "copy", f"sqlite:///{src}", dst, "--json"],
            capture_output=True, text=True, env={**os.environ, "TQDM_DISABLE": "1"},
        )
        wall = time.perf_counter() - start
        sampler.stop.set()
        sampler.sample()
        if proc.returncode != 0:
            raise SystemExit(f"copy failed: {proc.stderr[-2000:]}")
        peak_kb = int(proc.stderr.rsplit("PEAK_KB ", 1)[1].split()[0])
        cpu_s = float(proc.stderr.rsplit("CPU_S ", 1)[1].split()[0])
        server_cpu1 = None if server is None else server_cpu_seconds(server.admin_url)
        loads = [x["load1"] for x in sampler.samples]
        result = json.loads(proc.stdout)
        rows = sum(result["destination"]["counts"].values())
        row = {
            "records": args.records, "scopes": args.scopes, "dim": args.dim,
            "source_bytes": src.stat().st_size, "build_seconds": build_s,
            "copy_seconds_with_verification": round(wall, 1),
            "copy_process_cpu_seconds": round(cpu_s, 1),
            "server_cpu_seconds": None if server_cpu0 is None or server_cpu1 is None else round(server_cpu1 - server_cpu0, 1),
            "load1_while_copying": {"mean": round(sum(loads) / len(loads), 1), "max": max(loads), "samples": len(loads)},
            "records_per_second": round(args.records / wall, 1), "rows_per_second": round(rows / wall, 1),
            "peak_rss_mb": round(peak_kb / 1024, 1), "counts": result["destination"]["counts"],
            "written": result["written"], "indexes_built": len(result.get("indexes", [])),
            "verified": result["source"] == result["destination"],
        }  # fmt: skip
        print(row, file=sys.stderr)
    finally:
        if server is not None:
            server.stop()
        if args.workdir is None:
            for f in work.glob("*"):
                f.unlink()
            work.rmdir()
        elif not args.keep_source:
            src.unlink(missing_ok=True)
    import psycopg

    write_result(args.out, {"measured_at": measured_at(), "command": " ".join(sys.argv), "result": row,
                            "machine": machine_info(psycopg=psycopg.__version__, numpy=np.__version__)})


if __name__ == "__main__":
    main()
