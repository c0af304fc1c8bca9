"""HTTP API benchmark: what serving memdesk over HTTP costs on top of calling Memory in process.

One SQLite store, the packaged MiniLM embedder and the rule processor (the embedded default). A real uvicorn
server on a loopback port; clients use one keep-alive HTTP connection each (httpx2). Measured:
  * add: one LoCoMo turn per request, HTTP vs ``Memory.add`` in process (same store, other scope);
  * search: LoCoMo questions against the ingested conversation, HTTP vs ``Memory.search``;
  * concurrent writers: N client threads adding turns at once; throughput, and whether every message
    was stored (the check is exact: message ids are compared).

    python bench/bench_server.py [--turns 200] [--queries 200] [--writers 4] [--out bench/results/server.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2
import uvicorn
from benchinfo import free_port, machine_info, measured_at, write_result

from memdesk.conversation.files import read_conversations
from memdesk.runtime.datapaths import default_data_dir
from memdesk.eval.metrics import percentile
from memdesk.conversation.memory import build_memory
from memdesk.server import ApiKeys, create_app
from memdesk.settings import Settings

KEY = "bench-key-0123456789abcdef"


def summary_ms(xs: list[float]) -> dict[str, float]:
    return {"n": len(xs), "p50_ms": round(percentile(xs, 50) * 1000, 2), "p95_ms": round(percentile(xs, 95) * 1000, 2),
            "mean_ms": round(statistics.fmean(xs) * 1000, 2)}


def timed(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=200)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--out", default="bench/results/server.json")
    args = ap.parse_args()

    locomo = default_data_dir() / "locomo" / "locomo_dev5.json"
    conv = read_conversations(str(locomo))[0]
    turns = conv.messages[: args.turns]
    questions = [q["question"] for q in json.loads(Path(locomo).read_text())[0]["qa"]][: args.queries]

    tmp = tempfile.mkdtemp(prefix="memdesk-bench-server-")
    memory = build_memory(Settings(database_url=f"sqlite:///{tmp}/bench.db"))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(memory, api_keys=ApiKeys([KEY])), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {KEY}"}
    memory.embedder.embed(["warm up"])

    def body(m) -> dict[str, Any]:
        return m.model_dump(mode="json", exclude_none=True)

    try:
        with httpx2.Client(base_url=base, headers=headers, timeout=120) as http:
            http_add = [timed(lambda m=m: http.post("/v1/memories", json={"run_id": "http", "messages": [body(m)]})
                              .raise_for_status()) for m in turns]
            direct_add = [timed(lambda m=m: memory.add(m, scope={"run_id": "direct"})) for m in turns]
            http_search = [timed(lambda q=q: http.post("/v1/memories/search", json={"run_id": "http", "query": q})
                                 .raise_for_status()) for q in questions]
            direct_search = [timed(lambda q=q: memory.search(q, scope={"run_id": "direct"})) for q in questions]

        def writer(w: int) -> list[float]:
            with httpx2.Client(base_url=base, headers=headers, timeout=120) as http:
                return [timed(lambda m=m, i=i: http.post("/v1/memories", json={
                    "run_id": "crowd", "messages": [{**body(m), "id": f"w{w}-{i}"}]}).raise_for_status())
                    for i, m in enumerate(turns[w:: args.writers])]

        t0 = time.perf_counter()
        with ThreadPoolExecutor(args.writers) as pool:
            per_writer = list(pool.map(writer, range(args.writers)))
        wall = time.perf_counter() - t0
        expected = {f"w{w}-{i}" for w in range(args.writers) for i in range(len(turns[w:: args.writers]))}
        stored = {m.id for m in memory.messages(scope={"run_id": "crowd"})}
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        memory.close()

    result = {
        "measured_at": measured_at(),
        "machine": machine_info(uvicorn=uvicorn.__version__),
        "setup": {"store": "sqlite", "embedder": memory.embedder.model_id, "processor": "rules",
                  "conversation": conv.id, "turns": len(turns), "queries": len(questions)},
        "add_one_turn": {"http": summary_ms(http_add), "in_process": summary_ms(direct_add)},
        "search": {"http": summary_ms(http_search), "in_process": summary_ms(direct_search)},
        "concurrent_writers": {
            "writers": args.writers, "requests": sum(len(x) for x in per_writer), "wall_s": round(wall, 2),
            "requests_per_s": round(sum(len(x) for x in per_writer) / wall, 1),
            "latency": summary_ms([x for xs in per_writer for x in xs]),
            "messages_expected": len(expected), "messages_stored": len(stored & expected), "lost": len(expected - stored),
        },
        "command": "python bench/bench_server.py " + " ".join(
            f"--{k} {v}" for k, v in vars(args).items() if k != "out"),
    }
    write_result(args.out, result)


if __name__ == "__main__":
    main()
