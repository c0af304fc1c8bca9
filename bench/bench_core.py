"""Core benchmark: ingest throughput and query-path latency on one LoCoMo conversation.

Measures, in one run and on the same utterances:
  * the embedder's own throughput (utterances/s, embedding each utterance's text in batches of 64),
  * ingest throughput through ``Memory.add`` (route + extract + embed + SQLite write), same batches,
  * query-path latency (embed query + the read path: fused by default, see --read, its question-time windows read
    against the conversation's last message; serialize + token count)
    over the conversation's questions, p50/p95, plus the part of it that is not embedding.
Targets (issue #2): ingest >= 90% of the embedder's throughput; query-path p50 <= 12 ms.

    python bench/bench_core.py [--views full|compact] [--read fused|engram] [--data DIR] [--conversation conv-26]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchinfo import write_result
from memdesk.conversation.base import RoutedExtraction
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.files import read_conversations
from memdesk.conversation.memory import Memory
from memdesk.conversation.router import RuleRouter
from memdesk.runtime.datapaths import default_data_dir
from memdesk.embed import MiniLMEmbedder
from memdesk.eval.metrics import percentile as pct
from memdesk.factory import build_retriever
from memdesk.records import Scope
from memdesk.settings import Settings
from memdesk.store import open_store


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=None)
    ap.add_argument("--conversation", default="conv-26")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3, help="Embedder/ingest passes; the best is kept.")
    ap.add_argument(
        "--views",
        choices=["full", "compact"],
        default="full",
        help="full: the default RuleExtractor (sentence, whole-turn and reply-in-context views); "
        "compact: sentence views only (RuleExtractor(context_views='none', turn_views=False)).",
    )
    ap.add_argument(
        "--read",
        choices=["fused", "engram"],
        default="fused",
        help="Read path: fused (the default Memory.open() builds: dense + stemmed BM25, per-type calibration, "
        "900-token budget) or engram (the paper's per-type top-20, K=25).",
    )
    ap.add_argument("--out", default=None, help="Default: bench/results/core-<views>.json (-engram for --read engram)")
    args = ap.parse_args()

    path = default_data_dir(args.data) / "locomo" / "locomo_dev5.json"
    conv = next(c for c in read_conversations(path) if c.id == args.conversation)
    messages = conv.messages
    texts = [m.text() for m in messages]
    qas = [q for s in json.loads(path.read_text()) if s["sample_id"] == args.conversation for q in s["qa"]]
    questions = [q["question"] for q in qas]
    asked_at = max(m.timestamp for m in messages if m.timestamp is not None)  # as the harness: after the last session

    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])  # load the model outside the timings

    embed_rates, ingest_rates, same_text_rates, records_per_utt = [], [], [], 0.0
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        for i in range(0, len(texts), args.batch):
            embedder.embed(texts[i : i + args.batch])
        embed_rates.append(len(texts) / (time.perf_counter() - t0))

        with tempfile.TemporaryDirectory() as tmp:
            store = open_store(f"sqlite:///{tmp}/bench.db")
            extractor = RuleExtractor() if args.views == "full" else RuleExtractor(context_views="none", turn_views=False)
            retriever = build_retriever(Settings(retrieval=args.read), store)
            mem = Memory(
                store, embedder, RoutedExtraction(RuleRouter(), extractor), retriever=retriever,
                serializer=retriever.serializer,
            )
            scope = Scope(user_id="bench", run_id=args.conversation)
            t0 = time.perf_counter()
            n_rec = 0
            for i in range(0, len(messages), args.batch):
                n_rec += len(mem.add(messages[i : i + args.batch], scope=scope).records)
            ingest_rates.append(len(messages) / (time.perf_counter() - t0))
            records_per_utt = n_rec / len(messages)

            # the embedder alone on exactly the texts ingest embedded, in the same batch shapes
            record_texts = [r.embed_text() for r in mem.get_all(scope=scope)]
            per_batch = max(1, round(args.batch * records_per_utt))
            t0 = time.perf_counter()
            for i in range(0, len(record_texts), per_batch):
                embedder.embed(record_texts[i : i + per_batch])
            same_text_rates.append(len(messages) / (time.perf_counter() - t0))

            # query path, on the last ingested store
            for q in questions[:10]:
                mem.evidence(q, scope=scope, asked_at=asked_at)  # warm caches (the fused path builds its per-scope index here)
            total_ms, embed_ms, rest_ms, tokens = [], [], [], []
            for q in questions:
                t0 = time.perf_counter()
                vec = embedder.embed([q])[0]
                t1 = time.perf_counter()
                hits = mem.retriever.retrieve(vec, scope, query_text=q, asked_at=asked_at)  # with the time bonus
                ev = mem.serializer.serialize(hits)
                t2 = time.perf_counter()
                total_ms.append((t2 - t0) * 1000)
                embed_ms.append((t1 - t0) * 1000)
                rest_ms.append((t2 - t1) * 1000)
                tokens.append(ev.tokens)
            n_records = store.count()
            mem.close()

    embed_rate = max(embed_rates)
    suffix = "" if args.read == "fused" else f"-{args.read}"
    out = args.out or str(Path(__file__).parent / "results" / f"core-{args.views}{suffix}.json")
    ingest_rate = max(ingest_rates)
    result = {
        "conversation": args.conversation,
        "views": args.views,
        "read_path": args.read,
        "utterances": len(messages),
        "records": n_records,
        "records_per_utterance": round(records_per_utt, 3),
        "embedder": embedder.model_id,
        "embedder_utterances_per_s": round(embed_rate, 1),
        "ingest_utterances_per_s": round(ingest_rate, 1),
        "ingest_vs_embedder": round(ingest_rate / embed_rate, 3),
        "embedder_on_record_texts_utterances_per_s": round(max(same_text_rates), 1),
        "ingest_vs_embedder_on_record_texts": round(ingest_rate / max(same_text_rates), 3),
        "queries": len(questions),
        "query_path_ms": {"p50": round(pct(total_ms, 50), 2), "p95": round(pct(total_ms, 95), 2)},
        "query_embed_ms": {"p50": round(pct(embed_ms, 50), 2), "p95": round(pct(embed_ms, 95), 2)},
        "query_search_merge_serialize_ms": {"p50": round(pct(rest_ms, 50), 2), "p95": round(pct(rest_ms, 95), 2)},
        "evidence_tokens_median": statistics.median(tokens),
        "targets": {"ingest_vs_embedder": ">= 0.90", "query_path_p50_ms": "<= 12"},
        "machine": {"python": platform.python_version(), "cpu_count": __import__("os").cpu_count(), "platform": platform.platform()},
        "command": "python bench/bench_core.py " + " ".join(sys.argv[1:]),
    }
    write_result(out, result)


if __name__ == "__main__":
    main()
