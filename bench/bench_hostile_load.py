"""Availability under hostile load (issue 29): an attacker tenant floods `memdesk serve` while a victim tenant works.

One real `memdesk serve` process (the CLI: uvicorn h11, the default limits, packaged MiniLM + rule processor) on a
SQLite file or a PostgreSQL database (a throwaway pgserver, or ``--postgres-url``), loopback only. Two tenant keys.

* **victim** (one client): a bounded loop of: add one message (``wait: true``), search; every third round also add
  one message with ``wait: false`` and poll ``GET /v1/messages`` until it is processed (its *deferred delay*).
* **attacker** (``--attackers`` threads per kind, its own key), during the flood phase only:
  - ``sync``: adds of 50 messages with ``wait: true``;
  - ``deferred``: adds of 100 messages with ``wait: false`` (the worker's backlog);
  - ``long-url``: ``GET /v1/messages?x=<1 MB>`` (refused by the HTTP parser's header limit);
  - ``unknown-field``: a search whose body has a 1 MB unknown field (422, its message cut);
  - ``no-key-body``: a 32 MiB body with no key (401, unread).

Phases: ``alone`` (the victim only) then ``flood`` (the victim and the attacker), ``--seconds`` each. Reported per
phase: the victim's add / search p50/p99, its deferred delay p50/max, its errors (any non-2xx; must be 0); the
attacker's requests by kind and status with their latency; then, after the server drained its queue and stopped,
lost messages (acknowledged with 201/202 but not in the raw log) and the victim's messages still pending.

    python bench/bench_hostile_load.py --backend sqlite [--seconds 30] [--attackers 2]
    python bench/bench_hostile_load.py --backend postgres [--postgres-url URL]
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
from benchinfo import free_port, machine_info, measured_at, write_result
from serve_harness import REPO, database, start_server

from memdesk.eval.metrics import percentile
from memdesk.conversation.memory import build_memory
from memdesk.records import Scope
from memdesk.settings import Settings
from memdesk.tenants import Tenant

ADMIN = "hostile-bench-admin-key-0123456789"
THINGS = ["a pottery class", "the dentist", "a trip to Porto", "a new bike", "the allotment", "a chess club"]


def summary(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {"n": 0}
    return {"n": len(xs), "p50_ms": round(percentile(xs, 50) * 1000, 1), "p99_ms": round(percentile(xs, 99) * 1000, 1),
            "max_ms": round(max(xs) * 1000, 1)}  # fmt: skip


class Victim(threading.Thread):
    def __init__(self, url: str, key: str, stop_at: float, phase: str, max_rounds: int = 10_000) -> None:
        super().__init__(daemon=True)
        self.url, self.key, self.stop_at, self.phase, self.max_rounds = url, key, stop_at, phase, max_rounds
        self.lat: dict[str, list[float]] = {"add": [], "search": [], "deferred": []}
        self.acked: list[str] = []
        self.errors: list[str] = []

    def call(self, http: httpx2.Client, kind: str, method: str, path: str, **kw: Any) -> httpx2.Response | None:
        t = time.perf_counter()
        try:
            r = http.request(method, path, **kw)
        except httpx2.HTTPError as e:
            self.errors.append(f"{kind} {type(e).__name__}: {e}")
            return None
        if kind in self.lat:
            self.lat[kind].append(time.perf_counter() - t)
        if not 200 <= r.status_code < 300:
            self.errors.append(f"{kind} {r.status_code}: {r.text[:200]}")
            return None
        return r

    def run(self) -> None:
        with httpx2.Client(base_url=self.url, headers={"X-API-Key": self.key}, timeout=120) as http:
            for i in range(self.max_rounds):
                if time.monotonic() >= self.stop_at:
                    return
                mid = f"{self.phase}-v{i}"
                body = {"messages": [{"id": mid, "content": f"I went to {THINGS[i % len(THINGS)]} on day {i}."}]}
                if self.call(http, "add", "POST", "/v1/memories", json=body) is not None:
                    self.acked.append(mid)
                self.call(http, "search", "POST", "/v1/memories/search", json={"query": "Where did I go?"})
                if i % 3 == 0:
                    self.deferred(http, f"{self.phase}-d{i}")

    def deferred(self, http: httpx2.Client, mid: str) -> None:
        t = time.perf_counter()
        body = {"messages": [{"id": mid, "content": "I booked a table for Friday."}], "wait": False}
        if self.call(http, "deferred-add", "POST", "/v1/memories", json=body) is None:
            return
        self.acked.append(mid)
        for _ in range(6000):  # at most ~5 minutes
            r = self.call(http, "poll", "GET", "/v1/messages")
            if r is not None and any(m["id"] == mid and not m["pending"] for m in r.json()):
                self.lat["deferred"].append(time.perf_counter() - t)
                return
            time.sleep(0.05)
        self.errors.append(f"deferred {mid}: still pending after ~5 minutes")


class Attacker(threading.Thread):
    def __init__(self, kind: str, n: int, url: str, key: str, stop_at: float, max_rounds: int = 100_000) -> None:
        super().__init__(daemon=True)
        self.kind, self.n, self.url, self.key, self.stop_at, self.max_rounds = kind, n, url, key, stop_at, max_rounds
        self.statuses: Counter[str] = Counter()
        self.lat: list[float] = []
        self.acked: list[str] = []

    def run(self) -> None:
        headers = {"X-API-Key": self.key} if self.kind != "no-key-body" else {}
        with httpx2.Client(base_url=self.url, headers=headers, timeout=120) as http:
            for i in range(self.max_rounds):
                if time.monotonic() >= self.stop_at:
                    return
                t = time.perf_counter()
                try:
                    r = self.request(http, i)
                    status = str(r.status_code)
                except httpx2.HTTPError as e:
                    status = type(e).__name__
                self.lat.append(time.perf_counter() - t)
                self.statuses[status] += 1
                if status == "429":
                    time.sleep(0.05)

    def request(self, http: httpx2.Client, i: int) -> httpx2.Response:
        if self.kind in ("sync", "deferred"):
            size = 50 if self.kind == "sync" else 100
            ids = [f"a-{self.kind}{self.n}-{i}-{j}" for j in range(size)]
            body = {"messages": [{"id": m, "content": f"Flood message {m}: I like {THINGS[j % len(THINGS)]}."}
                                 for j, m in enumerate(ids)], "wait": self.kind == "sync"}  # fmt: skip
            r = http.post("/v1/memories", json=body)
            if r.status_code in (201, 202):
                self.acked += ids
            return r
        if self.kind == "long-url":
            return raw_get(self.url, "/v1/messages?x=" + "a" * 1_000_000, self.key)
        if self.kind == "unknown-field":
            return http.post("/v1/memories/search", json={"query": "x", "z" * 1_000_000: 1})
        body = b"x" * (32 << 20)  # no-key-body
        return http.post("/v1/memories", content=body, headers={"content-type": "application/json"})


class RawReply:
    """The status of a reply read off a socket (httpx refuses to send a 1 MB URL)."""

    def __init__(self, status_code: int) -> None:
        self.status_code = status_code


def raw_get(base: str, target: str, key: str) -> RawReply:
    """``GET target`` over a plain socket; the status code, or ``closed`` (0) when the server hung up instead."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        try:
            sock.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {key}\r\n\r\n".encode())
        except OSError:  # refused while we were still sending
            pass
        head = sock.recv(64)
    parts = head.split(b" ")
    return RawReply(int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0)


def check_log(database_url: str, victim_ids: list[str], attacker_ids: list[str]) -> dict[str, int]:
    memory = build_memory(Settings.load(database_url=database_url))
    try:
        victim = {m.id: m for m in memory.messages(scope=Scope(user_id="victim"))}
        attacker = {m.id for m in memory.messages(scope=Scope(user_id="attacker"))}
        return {
            "victim_acknowledged": len(victim_ids), "victim_lost": len(set(victim_ids) - set(victim)),
            "victim_still_pending": sum(1 for m in victim.values() if m.pending),
            "attacker_acknowledged": len(attacker_ids), "attacker_lost": len(set(attacker_ids) - attacker),
        }  # fmt: skip
    finally:
        memory.close()


def run_phase(url: str, keys: dict[str, str], phase: str, seconds: float, attackers: int) -> dict[str, Any]:
    stop_at = time.monotonic() + seconds
    victim = Victim(url, keys["victim"], stop_at, phase)
    flood: list[Attacker] = []
    if phase == "flood":
        for kind in ("sync", "deferred", "long-url", "unknown-field", "no-key-body"):
            flood += [Attacker(kind, n, url, keys["attacker"], stop_at) for n in range(attackers)]
    for t in [victim, *flood]:
        t.start()
    for t in [victim, *flood]:
        t.join()
    by_kind: dict[str, Any] = {}
    for a in flood:
        entry = by_kind.setdefault(a.kind, {"statuses": Counter(), "lat": []})
        entry["statuses"].update(a.statuses)
        entry["lat"] += a.lat
    return {
        "victim": {k: summary(v) for k, v in victim.lat.items()}, "victim_errors": len(victim.errors),
        "victim_error_examples": victim.errors[:5],
        "attacker": {k: {"statuses": dict(v["statuses"]), "latency": summary(v["lat"])} for k, v in by_kind.items()},
        "_acked": (victim.acked, [m for a in flood for m in a.acked]),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--postgres-url", default=os.environ.get("MEMDESK_BENCH_POSTGRES_URL"))
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--attackers", type=int, default=2, help="attacker threads per kind of attack")
    ap.add_argument("--out", default=None, help="Default: bench/results/hostile-load/<backend>.json")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memdesk-hostile-"))
    with database(args.backend, args.postgres_url, work) as database_url:
        setup = build_memory(Settings.load(database_url=database_url))
        try:
            keys = {who: setup.store.create_key(Tenant(user_id=who)).key for who in ("victim", "attacker")}
        finally:
            setup.close()
        port = free_port()
        server = start_server(database_url, port, work / "serve.log", ADMIN)
        url = f"http://127.0.0.1:{port}"
        phases: dict[str, Any] = {}
        try:
            for phase in ("alone", "flood"):
                phases[phase] = run_phase(url, keys, phase, args.seconds, args.attackers)
                print(phase, {k: v for k, v in phases[phase].items() if k != "_acked"}, flush=True)
            drain_started = time.monotonic()
            with httpx2.Client(base_url=url, headers={"X-API-Key": keys["attacker"]}, timeout=120) as http:
                for _ in range(3600):  # until the attacker's backlog is processed (bounded: ~1 hour)
                    if not any(m["pending"] for m in http.get("/v1/messages").json()):
                        break
                    time.sleep(1)
            drained_s = time.monotonic() - drain_started
        finally:
            server.terminate()
            server.wait(timeout=120)
        acked_v = [m for p in phases.values() for m in p["_acked"][0]]
        acked_a = [m for p in phases.values() for m in p["_acked"][1]]
        log = check_log(database_url, acked_v, acked_a)
    for p in phases.values():
        del p["_acked"]
    result = {
        "measured_at": measured_at(),
        "machine": machine_info(),
        "command": "python bench/bench_hostile_load.py " + " ".join(sys.argv[1:]),
        "setup": {"backend": args.backend, "server": "memdesk serve (uvicorn h11, default limits)", "seconds": args.seconds,
                  "attackers_per_kind": args.attackers, "embedder": "packaged MiniLM (int8 ONNX)", "processor": "rules"},
        "phases": phases,
        "attacker_backlog_drained_s": round(drained_s, 1),
        "log": log,
    }  # fmt: skip
    out = args.out or str(REPO / "bench" / "results" / "hostile-load" / f"{args.backend}.json")
    write_result(out, result)


if __name__ == "__main__":
    main()
