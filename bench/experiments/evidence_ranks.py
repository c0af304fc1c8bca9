"""Where the gold evidence ranks on the default read path, with no budget: how far below the cut the misses are.

Reopens an evaluation run's typed store (as ``bench/retrieval_replay.py`` does), ranks every record of each
question's scope with the fused path (candidates and K unbounded, no token budget), and reports, for the gold turns
of one category, the share whose first record lies within the first N hits.

    python bench/experiments/evidence_ranks.py locomo /tmp/memdesk-eval/locomo --category multi-hop
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from memdesk.records import Scope
from memdesk.retrieval.retrieve import Retriever, Serializer
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for retrieval_replay
from retrieval_replay import open_run, reader  # noqa: E402 - after the sys.path line


CUTS = (10, 20, 30, 40, 60, 100, 200, 500)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("benchmark", choices=["locomo", "longmemeval"])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--category", default="multi-hop")
    args = ap.parse_args()
    ds, done, store, embedder = open_run(args.benchmark, args.run_dir)
    retriever = Retriever.fused(store, k=100_000, K=100_000, token_budget=10**9)
    memory = reader(store, embedder, retriever, Serializer(group_by_anchor=True))
    ranks = []
    try:
        for q in ds.questions:
            if q.category != args.category or not q.retrieval_scored or q.conversation_id not in done:
                continue
            first: dict[str, int] = {}
            for i, hit in enumerate(memory.search(q.question, scope=Scope(user_id=q.conversation_id), asked_at=q.question_time)):
                for turn in hit.record.provenance:
                    first.setdefault(turn, i)
            ranks.extend(first.get(g, 10**9) for g in q.evidence_ids)
    finally:
        store.close()
    r = np.array(ranks)
    print(json.dumps({"category": args.category, "gold_turns": len(ranks),
                      "within": {str(c): round(float((r < c).mean()), 3) for c in CUTS},
                      "never": round(float((r >= 10**9).mean()), 3)}))  # fmt: skip


if __name__ == "__main__":
    main()
