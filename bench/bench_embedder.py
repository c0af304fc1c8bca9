"""Throughput and latency of the MiniLM ONNX embedder on short conversational utterances.

Usage: python bench/bench_embedder.py [--n 512] [--threads N] [--queries 50]
Prints load time, sentences/s at micro-batch 32 and single-query latency (median and p90 of N calls),
with the CPU seconds this process used and the load average, since a shared machine skews wall time.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from memdesk.embed import MiniLMEmbedder

_SUBJECTS = ["I", "my sister", "our team", "the new manager", "my doctor", "we", "my landlord", "the kids"]
_VERBS = ["moved to", "started learning", "booked a trip to", "stopped eating", "signed up for", "complained about"]
_OBJECTS = [
    "Lisbon last spring", "the violin after work", "a pottery class on Tuesdays", "gluten since January",
    "the half marathon in October", "the noisy neighbours upstairs", "a vegan cooking course", "Kyoto in April",
]
_TAILS = [
    "and honestly it has been one of the best decisions so far this year",
    "because the old routine was getting really boring and stressful",
    "although nobody else in the family thinks it is a good idea at all",
    "so please remind me about it next week when we talk again",
    "which means I will need to reorganise my whole schedule around it",
]


def utterances(n: int, seed: int = 0) -> list[str]:
    """n synthetic utterances of roughly 15-25 words."""
    rng = random.Random(seed)
    return [
        f"{rng.choice(_SUBJECTS).capitalize()} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_TAILS)}."
        for _ in range(n)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=512, help="sentences for the throughput run")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads")
    parser.add_argument("--queries", type=int, default=50, help="single-query calls for the latency run")
    args = parser.parse_args()

    emb = MiniLMEmbedder(intra_op_threads=args.threads)
    t0 = time.perf_counter()
    emb.load()
    load_s = time.perf_counter() - t0

    texts = utterances(args.n)
    words = statistics.mean(len(t.split()) for t in texts)
    emb.embed(texts[:64])  # warm-up
    t0, c0 = time.perf_counter(), time.process_time()
    emb.embed(texts)
    batch_s, batch_cpu = time.perf_counter() - t0, time.process_time() - c0

    queries = utterances(args.queries, seed=1)
    emb.embed_one(queries[0])
    lat = []
    c0 = time.process_time()
    for q in queries:
        t0 = time.perf_counter()
        emb.embed_one(q)
        lat.append((time.perf_counter() - t0) * 1000)
    query_cpu_ms = (time.process_time() - c0) * 1000 / len(queries)
    lat.sort()
    print(f"model={emb.model_id} threads={emb.intra_op_threads} load={load_s:.2f}s")
    print(
        f"batched: {args.n / batch_s:.0f} sentences/s, {args.n / batch_cpu:.0f} per CPU-second "
        f"(micro-batch {emb.micro_batch_size}, {words:.1f} words avg)"
    )
    print(
        f"single query: median {statistics.median(lat):.2f} ms, p90 {lat[int(0.9 * (len(lat) - 1))]:.2f} ms, "
        f"{query_cpu_ms:.2f} CPU-ms each"
    )
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
