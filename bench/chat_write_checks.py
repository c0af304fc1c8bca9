"""What the write path stores for chats in the bring-your-own-evaluation format (/work/CHATS_FORMAT.md,
``docs/chats-format.md`` once merged): small-talk records, wrong dates and supersession, from the labels.

Each chat is added to a fresh in-memory-free SQLite store (the default processor and embedder of
``Memory.open()``, one scope per chat), then:

* **small-talk records**: records (current or closed) whose source message is labelled small talk;
* **dates**: for each labelled date expression, the records of its message that carry that expression
  (``metadata["time_expressions"]``, and the record's anchor when the expression is its main one): a
  record whose resolved interval does not overlap the labelled date or range is a **wrong date**; a
  labelled expression no record of its message resolved is **missed** (not wrong, but reported);
* **supersession**: for each ``closes`` item, every record of message ``from`` whose text contains
  ``contains`` is closed; for each ``keeps`` item, at least one such record exists and all are current.

Usage::

    python bench/chat_write_checks.py FILE.jsonl [--out RESULT.json] [--show]

``--show`` prints each wrong or missed date, small-talk record and failed supersession item.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

from benchinfo import machine_info, measured_at, write_result
from memdesk.conversation.memory import Memory
from memdesk.records import MemoryRecord, Scope


def interval(label: str) -> tuple[date, date]:
    """A labelled date ``YYYY-MM-DD`` or range ``start/end`` (both inclusive) as [start, end)."""
    start, _, end = label.partition("/")
    a = date.fromisoformat(start)
    b = date.fromisoformat(end) if end else a
    return a, b + timedelta(days=1)


def overlaps(a: tuple[date, date], b: tuple[date, date]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def mention_interval(m: dict, record: MemoryRecord) -> tuple[date, date] | None:
    """The interval a stored time expression resolved to: the anchor's when it is the record's main one."""
    start, end = m.get("start"), m.get("end")
    if start and end:
        return datetime.fromisoformat(start).date(), datetime.fromisoformat(end).date()
    if record.temporal_anchor == m.get("label") and record.event_time is not None:
        return _anchor_interval(m["label"], record.event_time.date())
    return None


def _anchor_interval(label: str, start: date) -> tuple[date, date]:
    if label.startswith("week of"):
        return start, start + timedelta(days=7)
    if label.startswith("weekend of"):
        return start, start + timedelta(days=2)
    if len(label) == 10 and label[4] == "-":
        return start, start + timedelta(days=1)
    if len(label) == 4 and label.isdigit():
        return date(start.year, 1, 1), date(start.year + 1, 1, 1)
    if len(label) == 7 and label[4] == "-" or label.split()[-1].isdigit() and len(label.split()) == 2:
        nxt = date(start.year + (start.month == 12), start.month % 12 + 1, 1)
        return date(start.year, start.month, 1), nxt
    return start, start + timedelta(days=1)


def check_chat(mem: Memory, chat: dict, show: bool) -> dict:
    scope = Scope(user_id=chat["id"])
    for m in chat["messages"]:
        mem.add([{"id": m["id"], "content": m["content"], "role": m["role"], "speaker": m.get("speaker"),
                  "timestamp": m["time"]}], scope=scope)  # fmt: skip
    records = mem.get_all(scope=scope, filters={"include_superseded": True})
    by_message: dict[str, list[MemoryRecord]] = {}
    for r in records:
        by_message.setdefault(r.provenance[0], []).append(r)
    labels = chat.get("labels", {})
    out = {"messages": len(chat["messages"]), "records": len(records),
           "current": sum(r.superseded_by is None for r in records)}  # fmt: skip

    small = [r for mid in labels.get("small_talk", []) for r in by_message.get(mid, [])]
    out["small_talk_messages"] = len(labels.get("small_talk", []))
    out["small_talk_records"] = len(small)
    for r in small if show else []:
        print(f"  small talk {chat['id']} {r.provenance[0]}: {r.text()!r}")

    wrong = missed = dated = 0
    for d in labels.get("dates", []):
        want = interval(d["date"])
        said = d["text"].lower()
        found = False
        for r in by_message.get(d["message_id"], []):
            for m in r.metadata.get("time_expressions", []):
                t = m["text"].lower()
                if t not in said and said not in t:
                    continue
                found = True
                got = mention_interval(m, r)
                if got is not None and not overlaps(got, want):
                    wrong += 1
                    if show:
                        print(f"  WRONG DATE {d['message_id']} {d['text']!r}: {m['label']} (want {d['date']}) in {r.text()!r}")
        dated += 1
        if not found:
            missed += 1
            if show:
                print(f"  missed date {d['message_id']} {d['text']!r} (want {d['date']})")
    out.update(date_labels=dated, wrong_dates=wrong, missed_dates=missed)

    right = total = 0
    for item in labels.get("supersession", []):
        for kind in ("closes", "keeps"):
            for c in item.get(kind, []):
                hits = [r for r in by_message.get(c["from"], []) if c["contains"].lower() in r.text().lower()]
                ok = bool(hits) and all((r.superseded_by is not None) == (kind == "closes") for r in hits)
                total += 1
                right += ok
                if show and not ok:
                    by_id = {r.id: r for r in records}
                    state = [(r.text(), f"closed by {by_id[r.superseded_by].text()!r}" if r.superseded_by in by_id
                              else "closed" if r.superseded_by else "current") for r in hits]  # fmt: skip
                    print(f"  SUPERSESSION {chat['id']} after {item['message_id']} {kind} {c['contains']!r}: {state or 'no record'}")
    out.update(supersession_items=total, supersession_right=right)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("--out")
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args(argv)
    chats = [json.loads(line) for line in Path(args.data).read_text(encoding="utf-8").splitlines() if line.strip()]
    started = time.perf_counter()
    per_chat = {}
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(database_url=f"sqlite:///{tmp}/chats.db")
        try:
            for chat in chats:
                if args.show:
                    print(chat["id"])
                per_chat[chat["id"]] = check_chat(mem, chat, args.show)
        finally:
            mem.close()
    keys = ("messages", "records", "current", "small_talk_messages", "small_talk_records", "date_labels", "wrong_dates",
            "missed_dates", "supersession_items", "supersession_right")  # fmt: skip
    totals = {k: sum(c[k] for c in per_chat.values()) for k in keys}
    totals["supersession_rate"] = round(totals["supersession_right"] / max(1, totals["supersession_items"]), 3)
    totals["records_per_message"] = round(totals["records"] / max(1, totals["messages"]), 2)
    result = {"data": args.data, "chats": len(chats), "totals": totals, "per_chat": per_chat,
              "seconds": round(time.perf_counter() - started, 1), "measured_at": measured_at(), "machine": machine_info()}  # fmt: skip
    write_result(args.out, result if args.out else {"totals": totals}, echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
