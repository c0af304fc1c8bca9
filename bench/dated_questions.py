"""The questions that carry a time expression, read with and without the time bonus: which gain and which lose.

For each question of the headline categories whose text has a time expression (``memdesk.retrieval.question_time``), the
default read path's evidence is built twice on an evaluation run's typed store, with ``time_weight`` 0 and the
shipped value, and the gold-turn recall (and, for LongMemEval, session recall@10) compared.

    python bench/dated_questions.py longmemeval /tmp/memdesk-eval/longmemeval
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from memdesk.eval import metrics as M
from memdesk.retrieval.question_time import TIME_WEIGHT, question_windows
from memdesk.records import Scope
from memdesk.retrieval.retrieve import Retriever, Serializer
from retrieval_replay import open_run, reader


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("benchmark", choices=["locomo", "longmemeval"])
    ap.add_argument("run_dir", type=Path)
    args = ap.parse_args()
    ds, done, store, embedder = open_run(args.benchmark, args.run_dir)
    ser = Serializer(group_by_anchor=True)
    weights = (0.0, TIME_WEIGHT)
    memories = {w: reader(store, embedder, Retriever.fused(store, time_weight=w, serializer=ser), ser) for w in weights}
    rows = []
    try:
        for q in ds.questions:
            if q.conversation_id not in done or not q.retrieval_scored or q.category not in ds.headline_categories:
                continue
            windows = question_windows(q.question, q.question_time)
            if not windows:
                continue
            conv = ds.conversations[q.conversation_id]
            row = {"id": q.id, "category": q.category, "windows": [w.label for w in windows]}
            for w, memory in memories.items():
                prov = [list(h.record.provenance) for h in memory.evidence(q.question, scope=Scope(user_id=q.conversation_id), asked_at=q.question_time).hits]
                session = M.session_recall(q.evidence_sessions, prov[:10], lambda i: conv.session_of.get(i, i))
                row[str(w)] = {"recall": M.evidence_recall(q.evidence_ids, prov), "session@10": session and session["fraction"]}
            rows.append(row)
    finally:
        store.close()
    off, on = (str(w) for w in weights)
    changed = [r for r in rows if r[off] != r[on]]
    for key in ("recall", "session@10"):
        print(json.dumps({"metric": key, "dated_questions": len(rows),
                          "gain": sum(1 for r in rows if (r[on][key] or 0) > (r[off][key] or 0)),
                          "lose": sum(1 for r in rows if (r[on][key] or 0) < (r[off][key] or 0))}))  # fmt: skip
    for r in changed:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
