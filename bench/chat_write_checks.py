"""What the write path stores for chats in the bring-your-own-evaluation format (``docs/eval-chats.md``):
small-talk records, wrong dates and supersession, from the labels: the write half of ``memdesk eval chats``
(its :class:`~memdesk.eval.chat_run.ChatEval` and checks, :mod:`memdesk.eval.chat_checks`), without the questions.

Each chat is added to a fresh SQLite store (the default processor and embedder of ``Memory.open()``, one scope per
chat), message by message, then counted as ``memdesk eval chats`` counts it:

* **small-talk records**: records (current or closed) whose source message is labelled small talk;
* **wrong dates**: records of messages with labelled dates carrying a date that overlaps none of them, out of the
  records checked;
* **supersession**: right after each labelled message, for each ``closes`` item every record of message ``from``
  whose text contains ``contains`` is closed; for each ``keeps`` item at least one such record exists and all are
  current.

Usage::

    python bench/chat_write_checks.py FILE.jsonl [--out RESULT.json] [--show]

``--show`` prints each small-talk record, wrong date and failed supersession item.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from benchinfo import machine_info, measured_at, write_result

from memdesk.conversation.memory import Memory
from memdesk.eval.chat_run import ChatEval, ChatScopeResult
from memdesk.eval.chat_summary import ChatBlock
from memdesk.eval.datasets.chats import load_chats


def show(s: ChatScopeResult) -> None:
    print(s.chat_id)
    for r in s.small_talk_records:
        print(f"  small talk {r.provenance[0]}: {r.text!r}")
    for w in s.wrong_dates:
        print(f"  WRONG DATE {w.message_id} found {w.found} ({w.where}), expected {w.expected}: {w.text!r}")
    for c in s.supersession:
        if not c.ok:
            print(f"  SUPERSESSION after {c.message_id}: records of {c.from_message} containing {c.contains!r} should be "
                  f"{c.expect}; {c.matching} match, {c.current} current")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("--out")
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args(argv)
    chats = load_chats(args.data)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(database_url=f"sqlite:///{tmp}/chats.db")
        try:
            evaluator = ChatEval(mem)
            scopes = []
            for chat in chats.chats:
                scopes.append(evaluator.write_chat(chat))
                if args.show:
                    show(scopes[-1])
        finally:
            mem.close()
    block = ChatBlock.of(scopes, [])
    totals = {
        "messages": block.messages, "records": block.records, "current": sum(s.current_records for s in scopes),
        "records_per_message": block.records_per_message, "small_talk_records": block.small_talk_records,
        "dates_checked": block.dates_checked, "wrong_dates": block.wrong_dates,
        "supersession_items": block.supersession.items, "supersession_right": block.supersession.satisfied,
        "supersession_rate": block.supersession.fraction,
    }  # fmt: skip
    per_chat = {s.chat_id: s.model_dump(exclude={"records_bucket", "messages_bucket"}) for s in scopes}
    result = {"data": args.data, "chats": len(scopes), "totals": totals, "per_chat": per_chat,
              "seconds": round(time.perf_counter() - started, 1), "measured_at": measured_at(), "machine": machine_info()}  # fmt: skip
    write_result(args.out, result if args.out else {"totals": totals}, echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
