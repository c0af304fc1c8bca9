"""A search right after an add to the same scope: the scope index extended with the new records vs rebuilt.

An agent adds each turn and searches on the next one. The fused read path keeps a per-scope index (records,
stemmed BM25, vectors, per-type moments); before 2026-12-03 any write to the scope made the next search rebuild it
from every record. Now a write of new records extends it (``ScopeIndexCache``; ``Store.additions_since``).
This script ingests one LoCoMo conversation (rules + packaged MiniLM, SQLite), then runs an agent loop: add one
message of our own, then search a question of our own, alternating the two policies turn by turn (the same
store, load and sizes for both), and reports the search's latency after an add, p50 / p95, per policy.

    python bench/search_after_add.py [--data DIR] [--conversation conv-26] [--turns 60]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from benchinfo import machine_info, measured_at, write_result
from memdesk.conversation.files import read_conversations
from memdesk.runtime.datapaths import default_data_dir
from memdesk.eval.metrics import percentile as pct
from memdesk.conversation.memory import build_memory
from memdesk.records import Message, Scope
from memdesk.retrieval.scope_cache import ScopeIndexCache
from memdesk.settings import Settings

SAID = [
    "I repotted the fern and moved it to the kitchen window.",
    "My brother Teo is flying in from Porto on Friday.",
    "We booked a cabin by the lake for the second week of August.",
    "I switched to the early shift, so I start at six now.",
    "The bakery on Elm Street closed, I need a new place for rye bread.",
    "I finished the watercolour course and started a pottery one.",
]
ASKED = [
    "Where is the fern now?",
    "When is Teo arriving?",
    "What are the summer plans?",
    "What time does the shift start?",
    "Where to buy bread now?",
    "Which course comes after watercolour?",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=None)
    ap.add_argument("--conversation", default="conv-26")
    ap.add_argument("--turns", type=int, default=60)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "search-after-add.json"))
    args = ap.parse_args()
    path = default_data_dir(args.data) / "locomo" / "locomo_dev5.json"
    conv = next(c for c in read_conversations(path) if c.id == args.conversation)

    extend = {"on": True}
    plain = ScopeIndexCache._extended
    ScopeIndexCache._extended = lambda self, *a: plain(self, *a) if extend["on"] else None  # type: ignore[method-assign]

    timings: dict[str, list[float]] = {"extended": [], "rebuilt": []}
    with tempfile.TemporaryDirectory() as tmp:
        mem = build_memory(Settings(database_url=f"sqlite:///{tmp}/bench.db"))
        scope = Scope(user_id="bench", run_id=args.conversation)
        for i in range(0, len(conv.messages), 64):
            mem.add(conv.messages[i : i + 64], scope=scope)
        mem.evidence(ASKED[0], scope=scope)  # the first search builds the index
        start_records = mem.store.count(scope)
        for turn in range(args.turns):
            extend["on"] = turn % 2 == 0
            mem.add([Message(role="user", speaker="Sam", content=SAID[turn % len(SAID)])], scope=scope)
            t0 = time.perf_counter()
            mem.evidence(ASKED[turn % len(ASKED)], scope=scope)
            timings["extended" if extend["on"] else "rebuilt"].append((time.perf_counter() - t0) * 1000)
        warm = []
        for q in ASKED * 5:  # no write in between: the index as it is
            t0 = time.perf_counter()
            mem.evidence(q, scope=scope)
            warm.append((time.perf_counter() - t0) * 1000)
        end_records = mem.store.count(scope)
        mem.close()

    result = {
        "conversation": args.conversation,
        "records": [start_records, end_records],
        "turns": args.turns,
        "search_after_add_ms": {
            name: {"p50": round(statistics.median(ms), 2), "p95": round(pct(ms, 95), 2), "n": len(ms)} for name, ms in timings.items()
        },
        "search_without_a_write_ms": {"p50": round(statistics.median(warm), 2), "p95": round(pct(warm, 95), 2), "n": len(warm)},
        "measured_at": measured_at(),
        "machine": machine_info(),
        "command": "python bench/search_after_add.py",
    }
    write_result(args.out, result)


if __name__ == "__main__":
    main()
