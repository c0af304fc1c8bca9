"""Load test of `memdesk serve` over loopback: many concurrent clients, mixed add/search over many tenants.

``--servers`` real `memdesk serve` processes (the CLI, uvicorn, the embedded default: packaged MiniLM + rule
processor) on one SQLite file or one PostgreSQL database (a throwaway pgserver, or ``--postgres-url``).
``--clients`` threads, each with its own keep-alive connection (httpx2) to one server (round robin) and an admin
key, run for ``--seconds``: each request is an add (one
message written for this benchmark, with a unique id, to a tenant drawn from ``--tenants`` user ids) with
probability ``--add-share``, else a search of a tenant that already holds something. Reported: requests and
adds per second, p50/p95/p99 latency per kind, errors (any non-2xx or transport failure), and lost messages:
after the run the server is stopped and every acknowledged message id is looked for in the database's raw log
(``Memory.messages`` of its tenant); one missing is a lost message. With several servers, one acknowledged add in
ten is read back at once through the *next* server (``GET /v1/messages``): a miss there is a stale read (another
server did not see the write on its next request).

    python bench/bench_serve_load.py --backend sqlite [--clients 32] [--seconds 60] [--tenants 10000] \
        [--out bench/results/serve-load/sqlite.json]
    python bench/bench_serve_load.py --backend postgres [--servers 2] [--postgres-url URL] ...
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx2
from benchinfo import free_port, machine_info, measured_at, write_result
from serve_harness import REPO, database, start_server

from memdesk.eval.metrics import percentile
from memdesk.conversation.memory import build_memory
from memdesk.records import Scope
from memdesk.settings import Settings

KEY = "load-test-admin-key-0123456789"
PEOPLE = ["Ana", "Ben", "Chidi", "Dana", "Emre", "Farah", "Goran", "Hana"]
THINGS = ["a pottery class", "the dentist", "a trip to Porto", "a new bike", "the allotment", "a chess club",
          "a job interview", "the book club", "a sourdough starter", "a half marathon"]
WHEN = ["yesterday", "last week", "on Saturday", "this morning", "two days ago"]
QUESTIONS = ["What did I sign up for?", "When is the dentist?", "Where did I travel?", "What am I training for?",
             "Which club did I join?"]


class Client(threading.Thread):
    def __init__(self, n: int, urls: list[str], args: argparse.Namespace, stop_at: float, shared: dict[str, Any]) -> None:
        super().__init__(daemon=True)
        self.n, self.args, self.stop_at, self.shared = n, args, stop_at, shared
        self.url, self.other = urls[n % len(urls)], urls[(n + 1) % len(urls)]  # its server, and the next one
        self.rng = random.Random(args.seed * 1000 + n)
        self.lat: dict[str, list[float]] = {"add": [], "search": []}
        self.acked: list[tuple[str, str]] = []  # (tenant, message id)
        self.errors: list[str] = []
        self.cross_reads = 0
        self.stale_reads = 0

    def run(self) -> None:
        headers = {"Authorization": f"Bearer {KEY}"}
        with httpx2.Client(base_url=self.url, headers=headers, timeout=120) as http, \
                httpx2.Client(base_url=self.other, headers=headers, timeout=120) as other:
            i = 0
            while time.monotonic() < self.stop_at:
                filled = self.shared["filled"]
                if not filled or self.rng.random() < self.args.add_share:
                    kind, tenant = "add", f"u{self.rng.randrange(self.args.tenants)}"
                    mid = f"c{self.n}-m{i}"
                    text = f"I went to {self.rng.choice(THINGS)} {self.rng.choice(WHEN)} with {self.rng.choice(PEOPLE)}."
                    body = {"user_id": tenant, "messages": [{"id": mid, "content": text}]}
                    path = "/v1/memories"
                else:
                    kind, tenant = "search", self.rng.choice(filled)
                    body = {"user_id": tenant, "query": self.rng.choice(QUESTIONS)}
                    path = "/v1/memories/search"
                t = time.perf_counter()
                try:
                    r = http.post(path, json=body)
                    ok = 200 <= r.status_code < 300
                    if not ok:
                        self.errors.append(f"{kind} {r.status_code}: {r.text[:200]}")
                except httpx2.HTTPError as e:
                    ok = False
                    self.errors.append(f"{kind} {type(e).__name__}: {e}")
                self.lat[kind].append(time.perf_counter() - t)
                if ok and kind == "add":
                    self.acked.append((tenant, mid))
                    filled.append(tenant)  # list.append is atomic: other clients may now search it
                    if self.other != self.url and self.rng.random() < 0.1:
                        self.read_back(other, tenant, mid)
                i += 1


    def read_back(self, other: httpx2.Client, tenant: str, mid: str) -> None:
        """The message just acknowledged by this client's server, read at once through another server."""
        self.cross_reads += 1
        try:
            r = other.get("/v1/messages", params={"user_id": tenant})
            if r.status_code != 200 or mid not in {m["id"] for m in r.json()}:
                self.stale_reads += 1
        except httpx2.HTTPError as e:
            self.errors.append(f"read-back {type(e).__name__}: {e}")


def summary(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {"n": 0}
    return {"n": len(xs), **{f"p{q}_ms": round(percentile(xs, q) * 1000, 1) for q in (50, 95, 99)}}


def lost_messages(database_url: str, acked: list[tuple[str, str]]) -> int:
    """Acknowledged messages the database's raw log does not hold."""
    memory = build_memory(Settings.load(database_url=database_url))
    try:
        by_tenant: dict[str, set[str]] = {}
        for tenant, mid in acked:
            by_tenant.setdefault(tenant, set()).add(mid)
        missing = 0
        for tenant, ids in by_tenant.items():
            logged = {m.id for m in memory.messages(scope=Scope(user_id=tenant))}
            missing += len(ids - logged)
        return missing
    finally:
        memory.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--postgres-url", default=os.environ.get("MEMDESK_BENCH_POSTGRES_URL"))
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--servers", type=int, default=1, help="memdesk serve processes on the one database")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--tenants", type=int, default=10_000)
    ap.add_argument("--add-share", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="Default: bench/results/serve-load/<backend>.json")
    args = ap.parse_args()
    if args.clients < 1 or args.servers < 1 or args.seconds <= 0 or args.tenants < 1 or not 0 < args.add_share <= 1:
        ap.error("--clients and --tenants must be >= 1, --seconds > 0, --add-share in (0, 1]")
    work = Path(tempfile.mkdtemp(prefix="memdesk-load-"))
    with database(args.backend, args.postgres_url, work) as database_url:
        servers: list[subprocess.Popen] = []
        shared: dict[str, Any] = {"filled": []}
        try:
            urls = []
            for i in range(args.servers):
                port = free_port()
                servers.append(start_server(database_url, port, work / f"serve-{i}.log", KEY))
                urls.append(f"http://127.0.0.1:{port}")
            started = time.monotonic()
            clients = [Client(n, urls, args, started + args.seconds, shared) for n in range(args.clients)]
            for c in clients:
                c.start()
            for c in clients:
                c.join()
            wall = time.monotonic() - started
        finally:
            for server in servers:
                server.terminate()
            for server in servers:
                server.wait(timeout=60)
        acked = [a for c in clients for a in c.acked]
        lost = lost_messages(database_url, acked)
    adds = [x for c in clients for x in c.lat["add"]]
    searches = [x for c in clients for x in c.lat["search"]]
    errors = [e for c in clients for e in c.errors]
    result = {
        "measured_at": measured_at(),
        "machine": machine_info(),
        "command": "python bench/bench_serve_load.py " + " ".join(sys.argv[1:]),
        "setup": {"backend": args.backend, "servers": args.servers, "server": "memdesk serve (uvicorn, one process each)",
                  "clients": args.clients,
                  "seconds": args.seconds, "tenants": args.tenants, "add_share": args.add_share,
                  "embedder": "packaged MiniLM (int8 ONNX)", "processor": "rules", "seed": args.seed},
        "requests": len(adds) + len(searches),
        "requests_per_s": round((len(adds) + len(searches)) / wall, 2),
        "adds_per_s": round(len(adds) / wall, 2),
        "tenants_written": len({t for t, _ in acked}),
        "add": summary(adds),
        "search": summary(searches),
        "errors": len(errors),
        "error_examples": errors[:5],
        "acknowledged_messages": len(acked),
        "lost_messages": lost,
        "cross_server_reads": sum(c.cross_reads for c in clients),
        "stale_cross_server_reads": sum(c.stale_reads for c in clients),
    }
    name = args.backend if args.servers == 1 else f"{args.backend}-{args.servers}-servers"
    write_result(args.out or REPO / "bench" / "results" / "serve-load" / f"{name}.json", result)


if __name__ == "__main__":
    main()
