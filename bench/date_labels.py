"""The labelled date expressions of chat sets (``docs/eval-chats.md``, ``labels.dates``), resolved sentence by sentence
as the rule processor reads them: how many land on their label, how many elsewhere, how many are not resolved.

Each labelled message is split into sentences (:func:`memdesk.conversation.rules.split_sentences`, lead filler
stripped as the rule processor strips it) and each sentence resolved with :func:`memdesk.timeexpr.resolve.resolve`
against the message's time, with the turns of the day before it as ``earlier`` (the router also adds older turns
that share a name; here they are left out). A label is

* ``OK`` when a mention overlapping the label's words overlaps the labelled day or range,
* ``WRONG`` when the first such mention does not,
* ``MISSING`` when no mention overlaps the label's words (not resolved, or the words are not in a sentence).

Seconds for all the sets, no store and no embedder: a screen for rules of :mod:`memdesk.timeexpr`. The wrong dates of
``memdesk eval chats`` are counted on the stored records instead (a record may carry a date of another sentence,
a narrowed text, a reply's context), so the two counts differ.

Usage::

    python bench/date_labels.py bench/data/chats/heldout10a.jsonl [...] [--show WRONG,MISSING]
"""

from __future__ import annotations

import argparse
from collections import Counter
from datetime import timedelta
from pathlib import Path

from memdesk.conversation.rules import split_sentences, strip_lead_filler
from memdesk.eval.datasets.chats import Chat, load_chats
from memdesk.timeexpr.resolve import resolve

#: The turns said at most this long before a message are read as its ``earlier`` text (as the router's window).
EARLIER_WINDOW, EARLIER_TURNS = timedelta(days=1), 6


def check_chat(chat: Chat) -> list[tuple[str, str]]:
    """(status, line) for each labelled date expression of ``chat``."""
    labels: dict[str, list] = {}
    for d in chat.labels.dates:
        labels.setdefault(d.message_id, []).append(d)
    out: list[tuple[str, str]] = []
    msgs = chat.messages
    for i, m in enumerate(msgs):
        if m.id not in labels:
            continue
        prev = [p for p in msgs[max(0, i - EARLIER_TURNS) : i] if timedelta(0) <= m.time - p.time <= EARLIER_WINDOW]
        earlier = "\n".join(p.content for p in prev)
        sentences = []
        for raw in split_sentences(m.content):
            s = strip_lead_filler(raw, [])
            sentences.append((s, resolve(s, m.time, prefer="auto", earlier=earlier)))
        for label in labels[m.id]:
            first, last = label.span()
            status, got = "MISSING", "-"
            for s, mentions in sentences:
                at = s.lower().find(label.text.lower())
                hit = [t for t in mentions if at >= 0 and t.span[0] < at + len(label.text) and at < t.span[1]]
                if hit:
                    t = hit[0]
                    a, b = t.start.date(), ((t.end - timedelta(days=1)) if t.end else t.start).date()
                    status, got = ("OK" if a <= last and first <= b else "WRONG"), f"{t.text!r} -> {t.label}"
                    break
            out.append((status, f"{m.id} [{m.time:%a %Y-%m-%d}] {label.text!r} = {label.date}; got {got}"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--show", default="WRONG", help="statuses to list, comma-separated (OK, WRONG, MISSING)")
    args = ap.parse_args(argv)
    show = set(args.show.upper().split(","))
    total: Counter[str] = Counter()
    for path in args.files:
        counts: Counter[str] = Counter()
        lines = []
        for chat in load_chats(path).chats:
            for status, line in check_chat(chat):
                counts[status] += 1
                if status in show:
                    lines.append(f"  {status} {line}")
        total.update(counts)
        print(f"{Path(path).name}: ok {counts['OK']}, wrong {counts['WRONG']}, missing {counts['MISSING']}")
        print("\n".join(lines)) if lines else None
    print(f"all: ok {total['OK']}, wrong {total['WRONG']}, missing {total['MISSING']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
