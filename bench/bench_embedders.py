"""MiniLM (the default) beside nomic-embed-text-v1.5 (``MEMDESK_EMBEDDER=nomic``) in one run: what a user
chooses between (docs/embedders.md).

Each embedder runs in its own fresh process (so cold load and memory are its own) through the same
``Memory`` a user gets (rules processor, fused read path, SQLite):

- cold load: building the embedder and embedding one text, from nothing loaded;
- ingest: messages/s of ``Memory.add`` (one message at a time, as an agent adds them) and texts/s of
  ``embed`` in batches of 32;
- query path: ``embed_query`` alone and the whole ``Memory.search`` (embed + fused retrieval + packing),
  p50 / p95 over single questions;
- memory: the process's peak RSS (ru_maxrss) at the end.

    nice -n 10 python bench/bench_embedders.py [--messages 60] [--queries 40] [--threads 2] [--out bench/results/embedders]

Synthetic utterances of our own (bench_embedder.utterances). CPU seconds and the load average are
recorded too, and each stage's CPU time (all threads of the process): on a shared machine wall
time is inflated by other processes, CPU time much less.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

QUESTIONS = [
    "Where did my sister move to?", "What class does our team take on Tuesdays?", "When is the half marathon?",
    "What did the new manager stop eating?", "Who booked a trip to Kyoto?", "What did my landlord complain about?",
    "Which course did the kids sign up for?", "What instrument did I start learning?",
]  # fmt: skip


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def one(name: str, messages: int, queries: int, threads: int) -> dict:
    """Measure embedder ``name`` in this (fresh) process."""
    from bench_embedder import utterances

    from memdesk.embed import make_embedder
    from memdesk.conversation.memory import build_memory
    from memdesk.records import Scope
    from memdesk.settings import Settings

    cpu0, t0 = time.process_time(), time.perf_counter()
    settings = Settings(embedder=name, embedder_threads=threads)
    emb = make_embedder(settings)
    emb.embed(["warm up the model"])
    cold_s = time.perf_counter() - t0

    cold_cpu = time.process_time() - cpu0
    texts = utterances(64, seed=1)
    t, c = time.perf_counter(), time.process_time()
    emb.embed(texts)
    batch_tps = len(texts) / (time.perf_counter() - t)
    batch_cpu_ms = (time.process_time() - c) * 1000 / len(texts)

    single, single_cpu = [], []
    for i in range(queries):
        t, c = time.perf_counter(), time.process_time()
        getattr(emb, "embed_query", emb.embed)([QUESTIONS[i % len(QUESTIONS)] + f" ({i})"])
        single.append((time.perf_counter() - t) * 1000)
        single_cpu.append((time.process_time() - c) * 1000)

    with tempfile.TemporaryDirectory() as tmp:
        mem = build_memory(settings.model_copy(update={"database_url": f"sqlite:///{tmp}/b.db"}), embedder=emb)
        scope = Scope(user_id="bench")
        t, c = time.perf_counter(), time.process_time()
        for i, text in enumerate(utterances(messages, seed=2)):
            mem.add([{"role": "user", "content": text, "speaker": "Sam"}], scope=scope)
        ingest_mps = messages / (time.perf_counter() - t)
        ingest_cpu_ms = (time.process_time() - c) * 1000 / messages
        records = mem.store.count(scope)
        search, search_cpu = [], []
        for i in range(queries):
            t, c = time.perf_counter(), time.process_time()
            mem.search(QUESTIONS[i % len(QUESTIONS)] + f" #{i}", scope=scope)
            search.append((time.perf_counter() - t) * 1000)
            search_cpu.append((time.process_time() - c) * 1000)
        mem.close()
    return {
        "embedder": name,
        "model_id": emb.model_id,
        "dim": emb.dim,
        "threads": threads,
        "cold_load_s": round(cold_s, 2),
        "cold_load_cpu_s": round(cold_cpu, 2),
        "embed_batch32_texts_per_s": round(batch_tps, 1),
        "embed_batch32_cpu_ms_per_text": round(batch_cpu_ms, 1),
        "embed_query_ms": {"p50": round(statistics.median(single), 1), "p95": round(_pct(single, 0.95), 1)},
        "embed_query_cpu_ms_p50": round(statistics.median(single_cpu), 1),
        "search_ms": {"p50": round(statistics.median(search), 1), "p95": round(_pct(search, 0.95), 1)},
        "search_cpu_ms_p50": round(statistics.median(search_cpu), 1),
        "ingest_messages_per_s": round(ingest_mps, 2),
        "ingest_cpu_ms_per_message": round(ingest_cpu_ms, 1),
        "records": records,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "cpu_s": round(time.process_time() - cpu0, 1),
        "loadavg_1m_end": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--embedders", default="minilm,nomic")
    parser.add_argument("--messages", type=int, default=60)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default=None, help="folder for embedders.json")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.messages, args.queries, args.threads)))
        return
    rows = []
    for name in args.embedders.split(","):
        env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
        cmd = [sys.executable, __file__, "--one", name, "--messages", str(args.messages), "--queries", str(args.queries),
               "--threads", str(args.threads)]  # fmt: skip
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
        rows.append(json.loads(out.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), flush=True)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        result = {"command": "nice -n 10 python bench/bench_embedders.py " + " ".join(sys.argv[1:]), "rows": rows,
                  "cpus": os.cpu_count()}  # fmt: skip
        (Path(args.out) / "embedders.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
