"""The time bonus's cost on the query path: the fused read path with and without ``asked_at``, same process, same index.

Ingests one LoCoMo conversation (rules + packaged MiniLM, the default read path), embeds its questions once, then
times ``retrieve`` + serialize for every question three times each way, alternating, and prints the median and p95
in milliseconds. Embedding is left out (it does not depend on ``asked_at``).

    python bench/time_bonus_ab.py [--data DIR] [--conversation conv-26]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

from memdesk.conversation.base import RoutedExtraction
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.files import read_conversations
from memdesk.conversation.memory import Memory
from memdesk.conversation.router import RuleRouter
from memdesk.runtime.datapaths import default_data_dir
from memdesk.embed import MiniLMEmbedder
from memdesk.factory import build_retriever
from memdesk.records import Scope
from memdesk.settings import Settings
from memdesk.store import open_store


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=None)
    ap.add_argument("--conversation", default="conv-26")
    args = ap.parse_args()
    path = default_data_dir(args.data) / "locomo" / "locomo_dev5.json"
    conv = next(c for c in read_conversations(path) if c.id == args.conversation)
    questions = [q["question"] for s in json.loads(path.read_text()) if s["sample_id"] == args.conversation for q in s["qa"]]
    asked = max(m.timestamp for m in conv.messages if m.timestamp is not None)
    embedder = MiniLMEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{tmp}/ab.db")
        retriever = build_retriever(Settings(), store)
        memory = Memory(store, embedder, RoutedExtraction(RuleRouter(), RuleExtractor()), retriever=retriever,
                        serializer=retriever.serializer)  # fmt: skip
        scope = Scope(user_id="ab")
        memory.add(conv.messages, scope=scope)
        vectors = embedder.embed(questions)
        for q, v in zip(questions[:10], vectors):
            retriever.retrieve(v, scope, query_text=q)  # build the scope index outside the timings
        times: dict[str, list[float]] = {"without asked_at": [], "with asked_at": []}
        for _ in range(3):
            for key, at in (("without asked_at", None), ("with asked_at", asked)):
                for q, v in zip(questions, vectors):
                    t0 = time.perf_counter()
                    retriever.serializer.serialize(retriever.retrieve(v, scope, query_text=q, asked_at=at))
                    times[key].append((time.perf_counter() - t0) * 1000)
        memory.close()
    print(json.dumps({k: {"p50_ms": round(statistics.median(v), 2), "p95_ms": round(sorted(v)[int(0.95 * len(v))], 2)}
                      for k, v in times.items()}))  # fmt: skip


if __name__ == "__main__":
    main()
