"""Offline retrieval quality and speed of MAC's reasoning bank (no chat model).

For BBH (bank: the fixed seeded half of each of the 27 tasks; queries: the other half) and MATH-500
(bank: the 12,000 MATH problems disjoint from MATH-500; queries: MATH-500), it reports the fraction
of the top-k retrieved memories that come from the query's own task/subject, for

- ``minilm``: the query text embedded with all-MiniLM-L6-v2 (int8 ONNX) against the bank's problem
  embeddings (MAC's offline fallback: without a chat model there are no tags), and
- ``bm25``: Okapi BM25 over the problem texts.

It also times, on the MATH bank: query embedding (single query, and batched per query), and exact
cosine top-k search per query through the SQLite store's collection search (warm in-memory index,
what retrieval uses) and through a bare numpy matrix-vector product (single and batched).

It also measures approximate search through an :class:`~memdesk.store.ivf.IVFIndex` of the MATH
bank for several (nlist, nprobe): build time, single-query search time (ids only, and with payload
decode through :class:`VectorRetriever`), recall@k against exact search and the MATH-500
same-subject@k fraction. ``--only ivf`` measures just that (with the exact search figures beside
it, under the same load) and writes ``search_ivf.{json,md}``, leaving ``retrieval.*`` alone.

The banks are cached in a SQLite file under ``runs/reasoning-cache/`` (gitignored): embedding the
12k MATH problems takes a minute or two on 2 cores and is done once.

Usage: python bench/bench_reasoning_retrieval.py [--data-dir DIR] [--cache DIR] [--out DIR] [--k 5]
                                                 [--only all|speed|ivf|report]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np
from benchinfo import machine_info, measured_at, write_result

from memdesk.embed import MiniLMEmbedder
from memdesk.eval.metrics import percentile as pct
from memdesk.runtime.datapaths import require_data_dir
from memdesk.reasoning.bank import MemoryBank
from memdesk.reasoning.bank_builder import BankBuilder, BuildConfig
from memdesk.reasoning.datasets import get_benchmark
from memdesk.reasoning.harness import ReasoningHarness
from memdesk.reasoning.solved_examples import MemoryFormat
from memdesk.reasoning.example_retrieval import BM25Retriever, VectorRetriever
from memdesk.reasoning.tags import ProblemRepresentation
from memdesk.store import open_store
from memdesk.store.ivf import default_nlist
from memdesk.store.vector_index import top_indices

REPO = Path(__file__).resolve().parents[1]
IVF_CONFIGS = [(None, 4), (None, 8), (None, 16), (256, 8)]
"""(nlist, nprobe) of the IVF rows; None: the default nlist, about sqrt(bank size)."""


def build_bank(store, embedder, bench_name: str, data_dir: Path) -> tuple[MemoryBank, dict]:
    bench = get_benchmark(bench_name)
    bank_items, eval_items = bench.load_bank(data_dir), bench.load_eval(data_dir)
    name = f"bench-{bench_name}-problem"
    t0 = time.perf_counter()
    report = BankBuilder(store, embedder, progress=True).build(
        name, bench_name, bank_items, eval_items, BuildConfig(formats=[MemoryFormat.LONG], batch_size=256)
    )
    info = {
        "bank": name,
        "bank_items": len(bank_items),
        "bank_size": report.bank_size,
        "eval_items": len(eval_items),
        "added_this_run": report.added,
        "build_seconds_this_run": round(time.perf_counter() - t0, 1),
        "dropped_overlap": report.dropped_overlap,
        "load_average_after_build": [round(x, 2) for x in os.getloadavg()] if report.added else None,
    }
    return MemoryBank(store, name), info


def quality(bench_name: str, bank: MemoryBank, embedder, data_dir: Path, ks: list[int]) -> list[dict]:
    bench = get_benchmark(bench_name)
    queries = bench.load_eval(data_dir)
    examples = bank.all()
    groups = [e.group for e in examples]
    out = []
    for label, retriever in (
        ("minilm (query text vs problem embeddings)", VectorRetriever(bank, embedder, ProblemRepresentation())),
        ("bm25 (problem text)", BM25Retriever(examples)),
    ):
        harness = ReasoningHarness(bench, None, retriever, progress=True)
        for k in sorted(ks, reverse=True):
            q = harness.retrieval_quality(queries, k, groups).model_dump()
            q["retriever"] = label
            out.append(q)
    return sorted(out, key=lambda q: (q["retriever"], q["k"]))


def _timed(fn, items, rounds: int) -> tuple[float, float, float, float]:
    """(best per-round median, median, p90 and mean over all rounds) in ms of ``fn(item)``."""
    medians, every = [], []
    for _ in range(rounds):
        times = []
        for item in items:
            t0 = time.perf_counter()
            fn(item)
            times.append(time.perf_counter() - t0)
        medians.append(statistics.median(times))
        every += times
    return 1000 * min(medians), 1000 * statistics.median(every), 1000 * pct(every, 90), 1000 * statistics.fmean(every)


def speed(store, bank: MemoryBank, embedder, data_dir: Path, k: int, rounds: int = 9, n_single: int = 500) -> dict:
    """Timings on the MATH bank. The machine is shared, so each search figure is measured over
    ``rounds`` rounds: the best round's median (least disturbed), and median/p90/mean over all rounds."""
    queries = [p.question for p in get_benchmark("math500").load_eval(data_dir)]
    load = [round(x, 2) for x in os.getloadavg()]
    embedder.embed(queries[:4])  # warm the session
    embed_single = _timed(lambda q: embedder.embed([q]), queries[:n_single], 2)
    batched = []
    for _ in range(2):
        t0 = time.perf_counter()
        qv = embedder.embed(queries)
        batched.append((time.perf_counter() - t0) / len(queries))

    bank.search_ids(qv[0], k)  # warm the store's index
    search_store = _timed(lambda v: bank.search_ids(v, k), list(qv), rounds)
    search_payload = _timed(lambda v: bank.search(v, k), list(qv), rounds)
    # the same vectors as a bare matrix: the floor of exact search with numpy here
    matrix = _bank_matrix(store, bank, embedder.dim)
    search_numpy = _timed(lambda v: top_indices(matrix @ v, k), list(qv), rounds)
    np_batched = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        scores = qv @ matrix.T
        np.argpartition(-scores, k - 1, axis=1)[:, :k]
        np_batched.append((time.perf_counter() - t0) / len(qv))

    return {
        "bank_vectors": int(matrix.shape[0]),
        "dim": int(matrix.shape[1]),
        "k": k,
        "queries": len(qv),
        "rounds": rounds,
        "load_average_at_start": load,
        "embed_single_query_ms": {**stats(embed_single), "rounds": 2},
        "embed_batched_per_query_ms": 1000 * min(batched),
        "search_store_ids_ms": stats(search_store),
        "search_store_with_payload_decode_ms": stats(search_payload),
        "search_numpy_single_ms": stats(search_numpy),
        "search_numpy_batched_per_query_ms": 1000 * min(np_batched),
        "ivf": ivf_rows(bank, embedder, data_dir, qv, k, rounds),
    }


def stats(t: tuple[float, float, float, float]) -> dict:
    return dict(zip(("best", "median", "p90", "mean"), t))


class _CachedEmbedder:
    """The bench's embedder with the MATH-500 query vectors already computed (same model id), so
    retrieval-quality passes over several retrievers embed each query once."""

    def __init__(self, embedder, texts: list[str], vectors: np.ndarray) -> None:
        self.model_id, self.dim = embedder.model_id, embedder.dim
        self._inner = embedder
        self._cache = {t: v for t, v in zip(texts, vectors)}

    def embed(self, texts) -> np.ndarray:
        texts = list(texts)
        if all(t in self._cache for t in texts):
            return np.stack([self._cache[t] for t in texts])
        return self._inner.embed(texts)


def _timed_interleaved(fns: dict[str, object], items, rounds: int) -> dict[str, dict]:
    """:func:`_timed` of several functions, interleaved round by round so that a load change on the
    shared machine hits them all alike: {label: stats}."""
    medians: dict[str, list[float]] = {label: [] for label in fns}
    every: dict[str, list[float]] = {label: [] for label in fns}
    for _ in range(rounds):
        for label, fn in fns.items():
            times = []
            for item in items:
                t0 = time.perf_counter()
                fn(item)  # type: ignore[operator]
                times.append(time.perf_counter() - t0)
            medians[label].append(statistics.median(times))
            every[label] += times
    return {
        label: stats((1000 * min(medians[label]), 1000 * statistics.median(every[label]),
                      1000 * pct(every[label], 90), 1000 * statistics.fmean(every[label])))
        for label in fns
    }  # fmt: skip


def ivf_rows(bank: MemoryBank, embedder, data_dir: Path, qv: np.ndarray, k: int, rounds: int) -> dict:
    """IVF on the MATH bank for each of :data:`IVF_CONFIGS`, beside exact search on the same query
    vectors; every search time is measured in one interleaved loop (see :func:`_timed_interleaved`)."""
    problems = get_benchmark("math500").load_eval(data_dir)
    cached = _CachedEmbedder(embedder, [p.question for p in problems], qv)
    groups = [e.group for e in bank.all()]

    def harness_for(retriever: VectorRetriever) -> ReasoningHarness:
        return ReasoningHarness(get_benchmark("math500"), None, retriever)

    exact = VectorRetriever(bank, cached, ProblemRepresentation())
    exact_q = harness_for(exact).retrieval_quality(problems, k, groups)
    ids, _, matrix = bank.items.export()
    exact_sets = [{ids[r] for r in top_indices(matrix @ v, k).tolist()} for v in qv]

    builds: dict[int, dict] = {}
    indexes = {}
    for nlist in sorted({n or default_nlist(len(ids)) for n, _ in IVF_CONFIGS}):
        times, kmeans = [], []
        for _ in range(3):
            t0 = time.perf_counter()
            index = bank.ivf_index(nlist=nlist, seed=0)
            times.append(time.perf_counter() - t0)
            kmeans.append(index.build_seconds)
        indexes[nlist] = index
        sizes = index.list_sizes
        builds[nlist] = {
            "nlist": index.nlist,
            "export_and_build_s": round(min(times), 3),
            "kmeans_and_layout_s": round(min(kmeans), 3),
            "list_sizes": {"min": min(sizes), "median": statistics.median(sizes), "max": max(sizes)},
        }
    bank.search_ids(qv[0], k)  # warm the store's index
    fns: dict[str, object] = {"exact ids": lambda v: bank.search_ids(v, k), "exact decode": lambda v: exact.search(v, k)}
    rows = []
    for nlist_opt, nprobe in IVF_CONFIGS:
        index = indexes[nlist_opt or default_nlist(len(ids))]
        retriever = VectorRetriever(bank, cached, ProblemRepresentation(), index=index, nprobe=nprobe)
        found = [{h.id for h in index.search(v, k, nprobe)} for v in qv]
        sizes = index.list_sizes
        q = harness_for(retriever).retrieval_quality(problems, k, groups)
        fns[f"{retriever.name} ids"] = lambda v, i=index, n=nprobe: i.search(v, k, n)
        fns[f"{retriever.name} decode"] = lambda v, r=retriever: r.search(v, k)
        rows.append({
            "nlist": index.nlist,
            "nprobe": nprobe,
            "retriever": retriever.name,
            "vectors_scanned_mean": round(statistics.fmean(sum(sizes[c] for c in index.probed_lists(v, nprobe)) for v in qv), 1),
            f"recall_at_{k}": statistics.fmean(len(f & e) / k for f, e in zip(found, exact_sets)),
            f"same_subject_at_{k}": q.same_group_at_k,
            "top1_same_subject": q.top1_same_group,
        })  # fmt: skip
    timed = _timed_interleaved(fns, list(qv), rounds)
    for row in rows:
        row["search_ids_ms"] = timed[f"{row['retriever']} ids"]
        row["search_with_payload_decode_ms"] = timed[f"{row['retriever']} decode"]
    return {
        "k": k,
        "exact_same_subject_at_k": exact_q.same_group_at_k,
        "exact_top1_same_subject": exact_q.top1_same_group,
        "exact_search_ids_ms": timed["exact ids"],
        "exact_search_with_payload_decode_ms": timed["exact decode"],
        "builds": builds,
        "rows": rows,
    }


def _bank_matrix(store, bank: MemoryBank, dim: int) -> np.ndarray:
    """The bank's stored vectors, in insertion order."""
    return store.collection(bank.name).export()[2]


def markdown(result: dict) -> str:
    lines = [
        "# MAC reasoning bank: offline retrieval quality and speed",
        "",
        (
            f"Quality measured {result['quality_measured_at']}, speed {result['measured_at']}, on {result['machine']['cpus']} CPU cores ({result['machine']['platform']}; "
            f"shared machine, load average {result['machine']['load_average_at_end']} at the end), "
            f"embedder `{result['embedder']}`. No chat model: queries and bank entries are embedded as problem text "
            "(MAC's offline fallback); the tag retriever needs a chat model and is not measured here."
        ),
        "",
        "## Same-group fraction of the top-k memories",
        "",
        "Fraction of the k retrieved memories that come from the query's own BBH task (27 tasks) or MATH subject (7 subjects).",
        "",
        "| bench | retriever | k | queries | same group | top-1 same group | random 1/G | random (bank prior) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for bench, qs in result["quality"].items():
        for q in qs:
            lines.append(
                f"| {bench} | {q['retriever']} | {q['k']} | {q['n_queries']} | {100 * q['same_group_at_k']:.1f}% | "
                f"{100 * q['top1_same_group']:.1f}% | {100 * q['random_uniform']:.1f}% | {100 * q['random_bank_prior']:.1f}% |"
            )
    for blas, s in result["speed_math_bank"].items():
        lines += [
            "",
            f"## Speed on the MATH bank, {blas} ({s['bank_vectors']} vectors, {s['dim']}-d, k={s['k']}, {s['queries']} MATH-500 queries)",
            "",
            (
                f"Searches: {s['rounds']} rounds over the queries (embedding: 2); 'best' is the least disturbed "
                f"round's median. Load average at the start: {s['load_average_at_start']} on {result['machine']['cpus']} cores."
            ),
            "",
            "| stage (single query) | best-round median | median | p90 | mean |",
            "|---|---|---|---|---|",
        ]
        for label, key in (
            ("query embedding (MiniLM)", "embed_single_query_ms"),
            ("vector search via the store (ids)", "search_store_ids_ms"),
            ("vector search via the store + payload decode", "search_store_with_payload_decode_ms"),
            ("bare numpy matmul + argpartition", "search_numpy_single_ms"),
        ):
            t = s[key]
            lines.append(f"| {label} | {t['best']:.3f} ms | {t['median']:.3f} ms | {t['p90']:.3f} ms | {t['mean']:.3f} ms |")
        lines += [
            "",
            (f"Batched, per query: embedding all 500 in one call (default micro-batch 32) {s['embed_batched_per_query_ms']:.2f} ms; "
            f"bare numpy search of all 500 at once {s['search_numpy_batched_per_query_ms']:.4f} ms."),
            "",
            (
                f"The paper's target for top-k vector search is 0.10 ms per query. Exact float32 search over "
                f"{s['bank_vectors']} x {s['dim']} reads {s['bank_vectors'] * s['dim'] * 4 / 1e6:.0f} MB per query: here one "
                f"query takes {s['search_store_ids_ms']['best']:.2f} ms through the store "
                f"({s['search_numpy_single_ms']['best']:.2f} ms bare numpy), "
                f"{'within' if s['search_store_ids_ms']['best'] <= 0.1 else 'above'} the target; batched search takes "
                f"{s['search_numpy_batched_per_query_ms']:.3f} ms per query. Embedding the query costs "
                f"{s['embed_single_query_ms']['best'] / max(s['search_store_ids_ms']['best'], 1e-9):.0f}x the search. "
                "Long p90s (several ms) come from the shared machine: a multi-threaded BLAS matvec waits for a "
                "busy core's timeslice; with OPENBLAS_NUM_THREADS=1 the search is slower at best but steadier."
            ),
            "",
        ]
        if s.get("ivf"):
            lines += ivf_markdown(s["ivf"], s, "###")
    lines += [
        "## Banks",
        "",
    ]
    for bench, info in result["banks"].items():
        lines.append(
            f"- {bench}: `{info['bank']}` {info['bank_size']} entries from {info['bank_items']} bank items, "
            f"{info['eval_items']} eval items, {len(info['dropped_overlap'])} dropped for overlap."
        )
    emb = result["embedding_seconds"]
    emb_text = "; ".join(f"{b}: {v}" for b, v in emb.items()) if isinstance(emb, dict) else str(emb)
    lines += [
        "",
        f"Building the banks (MiniLM embeddings of every problem, batches of 256; cached afterwards): {emb_text}."
        + "".join(
            f" Load average after building {b}: {info['load_average_after_build']}."
            for b, info in result["banks"].items()
            if info.get("load_average_after_build")
        ),
        "",
    ]
    lines += ["## BBH per task (minilm, k=5)", "", "| task | same group |", "|---|---|"]
    per = next(q for q in result["quality"]["bbh"] if q["k"] == 5 and q["retriever"].startswith("minilm"))["per_group"]
    for task, v in sorted(per.items(), key=lambda kv: -kv[1]):
        lines.append(f"| {task} | {100 * v:.1f}% |")
    return "\n".join(lines) + "\n"


def ivf_markdown(ivf: dict, s: dict, level: str = "##") -> list[str]:
    """The IVF rows of one speed measurement ``s`` (with the exact figures it was measured beside)."""
    k = ivf["k"]
    exact_ids, exact_dec = ivf["exact_search_ids_ms"], ivf["exact_search_with_payload_decode_ms"]
    lines = [
        f"{level} Approximate search: IVF index of the MATH bank ({s['bank_vectors']} vectors, k={k})",
        "",
        (
            "Spherical k-means into `nlist` lists, vectors stored contiguously per list; a query probes the `nprobe` "
            "lists with the nearest centroids (`memdesk.store.ivf.IVFIndex`, `memdesk eval reasoning --search ivf`). "
            f"Times: single query, {s['rounds']} rounds over the {s['queries']} MATH-500 query vectors; 'best' is the least "
            "disturbed round's median; all searches of a table are timed in one loop, interleaved round by round, "
            f"so load changes hit them alike. Recall@{k}: fraction of the exact top-{k} found. Same subject@{k}: as in the quality "
            "table, through `VectorRetriever` with the index."
        ),
        "",
        f"| search | vectors scanned (mean) | ids only: best / median / p90 | with payload decode: best / median | recall@{k} | same subject@{k} | top-1 same subject |",
        "|---|---|---|---|---|---|---|",
        (
            f"| exact (store) | {s['bank_vectors']} | {exact_ids['best']:.3f} / {exact_ids['median']:.3f} / {exact_ids['p90']:.3f} ms | "
            f"{exact_dec['best']:.3f} / {exact_dec['median']:.3f} ms | 1.000 | "
            f"{100 * ivf['exact_same_subject_at_k']:.1f}% | {100 * ivf['exact_top1_same_subject']:.1f}% |"
        ),
    ]
    for r in ivf["rows"]:
        t, d = r["search_ids_ms"], r["search_with_payload_decode_ms"]
        lines.append(
            f"| IVF nlist={r['nlist']} nprobe={r['nprobe']} | {r['vectors_scanned_mean']:.0f} | "
            f"{t['best']:.3f} / {t['median']:.3f} / {t['p90']:.3f} ms | {d['best']:.3f} / {d['median']:.3f} ms | "
            f"{r[f'recall_at_{k}']:.3f} | {100 * r[f'same_subject_at_{k}']:.1f}% | {100 * r['top1_same_subject']:.1f}% |"
        )
    lines += ["", "Index builds (best of 3; seed 0):", ""]
    for b in ivf["builds"].values():
        ls = b["list_sizes"]
        lines.append(
            f"- nlist={b['nlist']}: {b['export_and_build_s']:.2f} s with the vector export from the store "
            f"(k-means and layout alone {b['kmeans_and_layout_s']:.2f} s); list sizes min {ls['min']}, median {ls['median']:g}, max {ls['max']}."
        )
    return lines + [""]


def ivf_report(result: dict) -> str:
    """search_ivf.md."""
    m = result["machine"]
    lines = [
        "# MAC reasoning bank: approximate (IVF) vector search",
        "",
        (
            f"Measured {result['measured_at']} on {m['cpus']} CPU cores ({m['platform']}; shared machine, load average "
            f"{m['load_average_at_end']} at the end), embedder `{result['embedder']}`, bank `{result['bank']}`. "
            "The paper's target for top-k vector search is 0.10 ms per query. Produced by "
            "`python bench/bench_reasoning_retrieval.py --only ivf`."
        ),
        "",
    ]
    for blas, s in result["speed_math_bank"].items():
        lines += [f"## {blas}", "", f"Load average at the start: {s['load_average_at_start']}.", ""]
        lines += ivf_markdown(s["ivf"], s, "###")
    return "\n".join(lines) + "\n"


def ivf_only(store, bank: MemoryBank, embedder, data_dir: Path, k: int, rounds: int = 9) -> dict:
    """The exact store search and the IVF rows on the MATH bank, under the same load."""
    queries = [p.question for p in get_benchmark("math500").load_eval(data_dir)]
    load = [round(x, 2) for x in os.getloadavg()]
    qv = embedder.embed(queries)
    return {
        "bank_vectors": bank.count(),
        "dim": int(qv.shape[1]),
        "k": k,
        "queries": len(qv),
        "rounds": rounds,
        "load_average_at_start": load,
        "ivf": ivf_rows(bank, embedder, data_dir, qv, k, rounds),
    }


def open_cache(args: argparse.Namespace):
    """The data folder, the embedder, and the SQLite store of the cached banks under ``--cache``."""
    data_dir = require_data_dir(args.data_dir)
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    return data_dir, MiniLMEmbedder(), open_store(f"sqlite:///{cache / 'banks-minilm.db'}")


def threads_key() -> str:
    """The key of this run's timings: the BLAS thread setting they were measured under."""
    return f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'default')}"


def write_report(out: Path, stem: str, result: dict, report) -> None:
    """``result`` as ``<stem>.json`` and ``report(result)`` as ``<stem>.md`` under ``out``, the report printed."""
    out.mkdir(parents=True, exist_ok=True)
    write_result(out / f"{stem}.json", result, echo=False)
    text = report(result)
    (out / f"{stem}.md").write_text(text, encoding="utf-8")
    print(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--cache", default=str(REPO / "runs" / "reasoning-cache"))
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "reasoning"))
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--only", choices=["all", "speed", "ivf", "report"], default="all",
                        help="'speed' re-measures the timings and keeps the quality numbers of the last retrieval.json; "
                             "'ivf' measures exact vs IVF search on the MATH bank into search_ivf.{json,md}; "
                             "'report' rewrites retrieval.md from retrieval.json")
    args = parser.parse_args()
    out = Path(args.out)
    if args.only == "ivf":
        run_ivf(args, out)
        return
    previous = json.loads((out / "retrieval.json").read_text()) if (out / "retrieval.json").exists() else None
    if args.only in ("speed", "report") and previous is None:
        parser.error(f"--only {args.only} needs an earlier retrieval.json in --out")
    if args.only == "report":
        (out / "retrieval.md").write_text(markdown(previous), encoding="utf-8")
        return
    data_dir, embedder, store = open_cache(args)
    try:
        banks, quality_out, emb_seconds = {}, {}, {}
        for bench_name in ("bbh", "math500"):
            bank, info = build_bank(store, embedder, bench_name, data_dir)
            banks[bench_name] = info
            if info["added_this_run"]:
                emb_seconds[bench_name] = f"{info['build_seconds_this_run']} s for {info['added_this_run']} problems"
            if args.only == "all":
                quality_out[bench_name] = quality(bench_name, bank, embedder, data_dir, sorted({1, args.k, 10}))
        if args.only == "speed":
            quality_out = previous["quality"]
            emb_seconds = emb_seconds or previous.get("embedding_seconds")
        blas = threads_key()
        speed_out = dict(previous.get("speed_math_bank", {})) if previous and args.only == "speed" else {}
        speed_out = {k: v for k, v in speed_out.items() if k.startswith("OPENBLAS")}  # older layout: drop
        speed_out[blas] = speed(store, MemoryBank(store, banks["math500"]["bank"]), embedder, data_dir, args.k)
    finally:
        store.close()
    import onnxruntime

    result = {
        "measured_at": measured_at(),
        "machine": machine_info(onnxruntime=onnxruntime.__version__),
        "embedder": embedder.model_id,
        "banks": banks,
        "embedding_seconds": emb_seconds or "cached (see an earlier run)",
        "quality": quality_out,
        "speed_math_bank": speed_out,
    }  # fmt: skip
    if args.only == "speed":
        result["quality_measured_at"] = previous.get("quality_measured_at", previous["measured_at"])
    else:
        result["quality_measured_at"] = result["measured_at"]
    write_report(out, "retrieval", result, markdown)


def run_ivf(args: argparse.Namespace, out: Path) -> None:
    """``--only ivf``: search_ivf.json gains (or replaces) the entry of this OPENBLAS_NUM_THREADS setting."""
    data_dir, embedder, store = open_cache(args)
    path = out / "search_ivf.json"
    previous = json.loads(path.read_text()) if path.exists() else {}
    try:
        bank = MemoryBank(store, "bench-math500-problem")
        if bank.manifest() is None:  # not cached yet: build it (embeds 12k problems once)
            bank, _ = build_bank(store, embedder, "math500", data_dir)
        blas = threads_key()
        speed_out = dict(previous.get("speed_math_bank", {}))
        speed_out[blas] = ivf_only(store, bank, embedder, data_dir, args.k)
    finally:
        store.close()
    result = {
        "measured_at": measured_at(),
        "machine": machine_info(numpy=np.__version__),
        "embedder": embedder.model_id,
        "bank": bank.name,
        "speed_math_bank": speed_out,
    }  # fmt: skip
    write_report(out, "search_ivf", result, ivf_report)


if __name__ == "__main__":
    main()
