"""LongMemEval_S knowledge-update questions: does the evidence hold the session with the latest value?

Each knowledge-update question of the dev file has two or more answer sessions: an earlier one with the old value
and a later one with the value that holds now. Every haystack is ingested once with the default ``Memory``
(offline rules, packaged MiniLM, SQLite), the supersession closing what later memories replace; the question's
evidence block is then read three ways from the same store:

* ``before``: superseded memories weighted like current ones (``superseded_weight=1``): the read path as it was
  before facts superseded each other (the records are the same);
* ``after``: the default (``superseded_weight=0.5``: current facts first, superseded ones still findable);
* ``drop``: superseded memories left out (``superseded_weight=None``).

Per reading: ``latest``: the share of questions whose evidence holds a record from the latest answer session;
``latest_first``: the share where a record of the latest answer session ranks above every record of the older
answer sessions; ``older``: the share whose evidence holds a record of an older answer session; the median
evidence tokens. The supersession's own counts (records closed per haystack) are reported beside them.

    python bench/knowledge_update.py --work /tmp/ku [--cache EMBEDDINGS.sqlite] [--limit N] \\
        --out bench/results/longmemeval/knowledge_update.json

The stores are kept in ``--work``: a second run reads the fully ingested ones again without ingesting.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchinfo import machine_info, measured_at, write_result

from memdesk.embed import MiniLMEmbedder
from memdesk.eval.cache import CachingEmbedder
from memdesk.eval.run import load_dataset
from memdesk.conversation.memory import build_memory
from memdesk.records import Scope
from memdesk.settings import Settings
from memdesk.store import open_store

READINGS = {"before": 1.0, "after": 0.5, "drop": None}


def _session_rank(hits: list, session_of: dict[str, str], sessions: set[str]) -> int | None:
    """The rank of the first hit whose record comes from one of ``sessions`` (None: none does)."""
    for rank, hit in enumerate(hits):
        if any(session_of.get(m) in sessions for m in hit.record.provenance):
            return rank
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", required=True, help="folder for the stores (kept: a second run reads them again)")
    ap.add_argument("--data", default=None, help="longmemeval_s_dev.json.gz (default: the data folder's)")
    ap.add_argument("--cache", default=None, help="an embedding cache to start from (copied into --work)")
    ap.add_argument("--limit", type=int, default=None, help="the first N knowledge-update questions only")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    cache = work / "embeddings.sqlite"
    if args.cache and not cache.exists():
        shutil.copyfile(args.cache, cache)
    dataset = load_dataset("longmemeval", args.data)
    conversations = dataset.conversations
    questions = [q for q in dataset.questions if q.category == "knowledge-update" and q.retrieval_scored]
    questions = questions[: args.limit] if args.limit else questions
    embedder = CachingEmbedder(MiniLMEmbedder(), cache)
    settings = Settings.load(database_url="sqlite:///:memory:")
    rows: list[dict[str, Any]] = []
    ingest_s = 0.0
    try:
        for n, q in enumerate(questions, 1):
            conv = conversations[q.conversation_id]
            times = {s: conv.session_times.get(s) for s in q.evidence_sessions}
            if len(times) < 2 or any(t is None for t in times.values()):
                print(f"{q.id}: fewer than two dated answer sessions, skipped", file=sys.stderr)
                continue
            latest = max(times, key=lambda s: times[s])  # type: ignore[arg-type,return-value]
            older = set(times) - {latest}
            path, done = work / f"{q.id}.db", work / f"{q.id}.ingested"
            fresh = not done.exists()
            if fresh:  # an ingest cut short leaves a partial store: start it over
                for leftover in work.glob(f"{q.id}.db*"):
                    leftover.unlink()
            store = open_store(f"sqlite:///{path}")
            memory = build_memory(settings, store=store, embedder=embedder)
            scope = Scope(user_id=q.id)
            try:
                if fresh:
                    start = time.perf_counter()
                    sessions: dict[str, list] = {}
                    for m in conv.messages:
                        sessions.setdefault(conv.session_of.get(m.id or "", ""), []).append(m)
                    for batch in sessions.values():
                        memory.add(batch, scope=scope)
                    ingest_s += time.perf_counter() - start
                    done.touch()
                records = memory.get_all(scope=scope, filters={"include_superseded": True})
                row: dict[str, Any] = {
                    "id": q.id, "records": len(records),
                    "superseded": sum(r.superseded_by is not None for r in records),
                    "latest_session_superseded": sum(
                        r.superseded_by is not None and conv.session_of.get(r.provenance[0]) == latest for r in records
                    ),
                    "older_sessions_superseded": sum(
                        r.superseded_by is not None and conv.session_of.get(r.provenance[0]) in older for r in records
                    ),
                }  # fmt: skip
                for name, weight in READINGS.items():
                    memory.retriever.superseded_weight = weight
                    evidence = memory.evidence(q.question, scope=scope)
                    new = _session_rank(evidence.hits, conv.session_of, {latest})
                    old = _session_rank(evidence.hits, conv.session_of, older)
                    row[name] = {
                        "latest": new is not None, "older": old is not None,
                        "latest_first": new is not None and (old is None or new < old), "tokens": evidence.tokens,
                    }  # fmt: skip
                rows.append(row)
            finally:
                memory.close()
            print(f"[{n}/{len(questions)}] {q.id}: {row['superseded']} of {row['records']} records superseded; "
                  + ", ".join(f"{k} latest={row[k]['latest']} first={row[k]['latest_first']}" for k in READINGS),
                  file=sys.stderr)  # fmt: skip
    finally:
        embedder.close()

    def share(name: str, key: str) -> float:
        return round(sum(r[name][key] for r in rows) / len(rows), 4) if rows else 0.0

    result = {
        "benchmark": "longmemeval_s dev, knowledge-update questions",
        "questions": len(rows),
        "system": "memdesk-default (offline rules, packaged MiniLM, fused read path, SQLite)",
        "readings": {
            name: {
                "superseded_weight": weight,
                "latest": share(name, "latest"),
                "latest_first": share(name, "latest_first"),
                "older": share(name, "older"),
                "median_tokens": statistics.median(r[name]["tokens"] for r in rows) if rows else 0,
            }
            for name, weight in READINGS.items()
        },
        "superseded_records": sum(r["superseded"] for r in rows),
        "questions_with_a_superseded_older_session_record": sum(r["older_sessions_superseded"] > 0 for r in rows),
        "ingest_s": round(ingest_s, 1),
        "rows": rows,
        "measured_at": measured_at(),
        "machine": machine_info(),
        "command": "python bench/knowledge_update.py " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
