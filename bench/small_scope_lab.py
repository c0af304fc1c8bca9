"""Precision@1, MRR@10 and extractive-answer accuracy on small scopes: read-path variants on chats of your own.

Reads chats in the bring-your-own-evaluation format (``/work/CHATS_FORMAT.md``, e.g.
``bench/data/readpath/dev.jsonl``: one chat per line, questions with gold message ids and accepted answers),
ingests each chat once into ``<work>/chats.db`` (user_id = chat id; rules processor, packaged MiniLM; reused
when it exists), then replays each read-path config of :mod:`bench.retrieval_replay` (``fused``, ``engram``,
``engram-untyped`` = plain cosine, ``fused:<option>=<value>``...) over every question:

    python bench/small_scope_lab.py bench/data/readpath/dev.jsonl --work /tmp/28r-chats \
        --configs engram-untyped,fused

A hit is gold when its record's provenance holds one of the question's gold message ids. Reported by scope
size (records stored under the chat: 1-15, 16-60, 61+): precision@1 (the first hit is gold), MRR@10 of the first
gold hit, and the extractive answer's accuracy (an ``accept`` substring in the answer, lower-cased).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_replay import config_of, emit, reader  # noqa: E402

from memdesk.conversation.memory import Memory  # noqa: E402
from memdesk.embed import MiniLMEmbedder  # noqa: E402
from memdesk.eval import metrics as M  # noqa: E402
from memdesk.eval.cache import CachingEmbedder  # noqa: E402
from memdesk.eval.chat_run import MRR_CUTOFF, records_bucket  # noqa: E402
from memdesk.records import Message, Scope  # noqa: E402
from memdesk.store import open_store  # noqa: E402

BUCKETS = ("1-15", "16-60", "61+")  # the scope sizes of memdesk eval chats (records stored)


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def ingest(chats: list[dict], work: Path) -> None:
    """Store every chat not stored yet (the store file is reused)."""
    work.mkdir(parents=True, exist_ok=True)
    done_file = work / "ingested.json"
    done = set(json.loads(done_file.read_text())) if done_file.exists() else set()
    memory = Memory.open(database_url=f"sqlite:///{work / 'chats.db'}", embedder="minilm", processor="rules")
    try:
        for chat in chats:
            if chat["id"] in done:
                continue
            messages = [
                Message(id=m["id"], role=m["role"], speaker=m.get("speaker"), content=m["content"],
                        timestamp=datetime.fromisoformat(m["time"].replace("Z", "+00:00")))
                for m in chat["messages"]
            ]
            memory.add(messages, scope=Scope(user_id=chat["id"]))
            done.add(chat["id"])
            done_file.write_text(json.dumps(sorted(done)))
    finally:
        memory.close()


def replay(chats: list[dict], work: Path, config: str, show: bool = False) -> dict:
    store = open_store(f"sqlite:///{work / 'chats.db'}")
    embedder = CachingEmbedder(MiniLMEmbedder(), work / "embeddings.sqlite")
    make, search_args = config_of(config)
    memory = reader(store, embedder, *make(store))
    rows: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    try:
        for chat in chats:
            scope = Scope(user_id=chat["id"])
            size = len(memory.get_all(scope=scope))
            for q in chat["questions"]:
                asked = datetime.fromisoformat(q["asked_at"].replace("Z", "+00:00"))
                ans = memory.answer(q["question"], scope=scope, asked_at=asked, **search_args)
                ranked = [list(h.record.provenance) for h in ans.evidence.hits]
                rank = M.first_gold_rank(q["gold_message_ids"], ranked)
                right = M.accepted(ans.answer, q["accept"])
                rows[records_bucket(size)].append((M.precision_at_1(q["gold_message_ids"], ranked) or 0.0,
                                                   M.reciprocal_rank(q["gold_message_ids"], ranked, MRR_CUTOFF) or 0.0,
                                                   float(right)))  # fmt: skip
                if show and (rank != 1 or not right):
                    first = ans.evidence.hits[0] if ans.evidence.hits else None
                    print(f"  [{config}] {q['id']} rank={rank} right={right} {q['question']!r}\n"
                          f"      answer: {ans.answer[:140]}\n"
                          f"      first : {first.record.text()[:120] if first else None} ({first.why if first else ''})", file=sys.stderr)
    finally:
        store.close()

    def summary(values):
        n = len(values)
        return {"n": n, "p@1": round(sum(v[0] for v in values) / n, 3), "mrr@10": round(sum(v[1] for v in values) / n, 3),
                "answer": round(sum(v[2] for v in values) / n, 3)}

    out = {"config": config, "all": summary([v for vs in rows.values() for v in vs])}
    out.update({label: summary(rows[label]) for label in BUCKETS if rows.get(label)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("chats", type=Path)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--configs", default="engram-untyped,fused")
    ap.add_argument("--show", action="store_true", help="print each miss to stderr")
    ap.add_argument("--out", type=Path, default=None, help="append one JSON line per config here")
    args = ap.parse_args()
    chats = load(args.chats)
    ingest(chats, args.work)
    emit((replay(chats, args.work, config, args.show) for config in args.configs.split(",")), args.out)


if __name__ == "__main__":
    main()
