"""Replay the read path of ``memdesk eval chats`` on stores ingested once: fast read-side iteration.

``memdesk eval chats`` ingests every chat (minutes on a loaded machine) before asking its questions. A change
to the read path (ranking, the answerer) does not change what is stored, so this script ingests each chat once
into ``<work>/chats.db`` exactly as the harness does (:class:`memdesk.eval.chat_run.ChatEval`: message by message,
scope ``user_id`` = the chat id, the configured Memory), and then asks the questions again with the current code:

    python bench/chat_replay.py bench/data/chats/heldout2.jsonl --work /tmp/rr-h2 [--show] [--top 4]

It prints precision@1, MRR@10 and extractive-answer accuracy overall and by scope size (records stored), the
numbers ``memdesk eval chats`` reports for the same store, and with ``--show`` every question whose first hit is not
gold or whose answer is wrong, with the first ``--top`` hits and their ``why``. Delete ``<work>`` after a write-side
change (the stores are then stale).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from memdesk.conversation.memory import Memory, build_memory
from memdesk.eval import metrics as M
from memdesk.eval.chat_run import MRR_CUTOFF, ChatEval, records_bucket
from memdesk.eval.datasets.chats import ChatSet, load_chats
from memdesk.retrieval.retrieve import Retriever
from memdesk.settings import Settings

BUCKETS = ("1-15", "16-60", "61+")


def open_work(work: Path) -> Memory:
    """The configured Memory over ``<work>/chats.db`` (the harness's Memory, its database moved there)."""
    work.mkdir(parents=True, exist_ok=True)
    return build_memory(Settings().model_copy(update={"database_url": f"sqlite:///{work / 'chats.db'}"}))


def ingest(memory: Memory, chats: ChatSet, work: Path) -> dict[str, int]:
    """Each chat of ``chats`` not yet in ``<work>/ingested.json`` written into ``memory`` as the harness writes it
    (:meth:`ChatEval.write_chat`); returns chat id -> records stored, for every chat ingested so far."""
    done_file = work / "ingested.json"
    done = json.loads(done_file.read_text()) if done_file.exists() else {}
    runner = ChatEval(memory)
    for chat in chats.chats:
        if chat.id not in done:
            done[chat.id] = runner.write_chat(chat).records
            done_file.write_text(json.dumps(done))
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("chats", type=Path)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--show", action="store_true", help="print each miss with its first hits")
    ap.add_argument("--top", type=int, default=4, help="hits shown per miss")
    ap.add_argument("--only", default=None, help="comma-separated chat ids")
    ap.add_argument("--json", type=Path, default=None, help="write per-question rows here (JSON lines)")
    ap.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                    help="a fused Retriever option changed (JSON value), e.g. --set now_weight=0; repeatable")
    args = ap.parse_args()
    chats = load_chats(args.chats)
    if args.only:
        chats = chats.only([c for c in args.only.split(",") if c])
    args.work.mkdir(parents=True, exist_ok=True)
    if args.set:
        changes = {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.set)}
        fused = Retriever.fused.__func__  # type: ignore[attr-defined]
        Retriever.fused = classmethod(lambda cls, store, **kw: fused(cls, store, **(kw | changes)))  # type: ignore[method-assign]
    memory = open_work(args.work)
    runner = ChatEval(memory)
    rows: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    out = args.json.open("w") if args.json else None
    try:
        done = ingest(memory, chats, args.work)
        for chat in chats.chats:
            bucket = records_bucket(done[chat.id])
            scope = runner.scope_of(chat)
            for q in chat.questions:
                hits = memory.search(q.question, scope=scope, asked_at=q.asked_at)
                ranked = [list(h.record.provenance) for h in hits]
                answer = memory.answer(q.question, scope=scope, question_time=q.asked_at.isoformat(), asked_at=q.asked_at)
                p1 = M.precision_at_1(q.gold_message_ids, ranked) or 0.0
                rr = M.reciprocal_rank(q.gold_message_ids, ranked, MRR_CUTOFF) or 0.0
                right = M.accepted(answer.answer, q.accept)
                rows[bucket].append((p1, rr, float(right)))
                if out:
                    out.write(json.dumps({"id": q.id, "kind": q.kind, "p1": p1, "rr": rr, "right": right}) + "\n")
                if args.show and (p1 < 1 or not right):
                    rank = M.first_gold_rank(q.gold_message_ids, ranked)
                    print(f"\n{q.id} ({q.kind}, {bucket}) rank={rank} right={right} {q.question!r} accept={q.accept}")
                    print(f"   answer: {answer.answer[:200]}")
                    for n, h in enumerate(hits[: args.top]):
                        gold = "*" if set(h.record.provenance) & set(q.gold_message_ids) else " "
                        print(f"   {gold}{n + 1} [{h.record.type}/{h.record.role}] {h.record.text()[:150]!r}\n        {h.why}")
                    if rank and rank > args.top:
                        h = hits[rank - 1]
                        print(f"   *{rank} [{h.record.type}/{h.record.role}] {h.record.text()[:150]!r}\n        {h.why}")
    finally:
        memory.close()
        if out:
            out.close()

    def summary(values: list[tuple[float, float, float]]) -> str:
        n = len(values)
        return (f"n={n} p@1={sum(v[0] for v in values) / n:.3f} mrr@10={sum(v[1] for v in values) / n:.3f} "
                f"answers={sum(v[2] for v in values) / n:.3f}")  # fmt: skip

    print(f"all   {summary([v for vs in rows.values() for v in vs])}")
    for b in BUCKETS:
        if rows.get(b):
            print(f"{b:5} {summary(rows[b])}")


if __name__ == "__main__":
    sys.exit(main())
