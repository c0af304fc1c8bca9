"""Record quality of the offline rule extractor: a labelled sample, before and after a change.

The records of a conversation file (a JSONL chat or a LoCoMo JSON) are made exactly as
``Memory.add`` makes them (``RuleRouter`` + ``RuleExtractor`` with the learned small-talk test, the previous 4
turns as context),
each with an id ``<conversation>/<message id>#<view>#<k>`` that the same code regenerates. A
reproducible random sample of them is written to a TSV to be labelled by hand, one label per
record (several joined by ``+``):

* ``ok``: a record a person would write;
* ``ungrammatical``: a person rewrite that broke the sentence ("Priya now live in Clifton");
* ``split``: the record's text starts or ends inside a sentence (a split at "St.", a cut mid-phrase);
* ``filler``: phatic filler with nothing to remember ("Andrew bets!", "That's adorable.");
* ``wrong_date``: a date the record carries (its anchor, or a resolved time expression) that a person
  reading the message at the time it was said would not give it (the sample shows the anchor, the
  message time and each expression's resolution beside the text).

The label is about the record's own text (``record.body()``); that the serialized text repeated
the title before it ("title: summary") is counted by the script over all records, not labelled.

Usage::

    python bench/record_quality.py sample FILE --n 200 --seed 12 --out labels.tsv   # then label column 2
    python bench/record_quality.py score labels.tsv [...] [--json out.json]
    python bench/record_quality.py strip labels.tsv --out ids.tsv                    # ids + labels only

Labels may also be a JSONL file (one ``{"id", "label", "reason"}`` object a line; ``fact`` reads as ``ok``).

``score`` re-makes the records and checks that every id still names the same text (run it with
the code version the sample was drawn from; ``--no-check`` skips that).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from collections import Counter
from pathlib import Path

from benchinfo import write_result
from memdesk.conversation.base import RoutedExtraction, Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.files import read_conversations
from memdesk.conversation.filler import FillerTest
from memdesk.conversation.router import RuleRouter
from memdesk.records import MemoryRecord, Scope

LABELS = ("ok", "fact", "ungrammatical", "split", "filler", "wrong_date")
#: Labels of a record with nothing wrong ("fact": a record worth noting, the issue-28 samples' word for "ok").
GOOD = frozenset({"ok", "fact"})
CONTEXT_TURNS = 4


def records_of(path: str, *, learned: bool = True) -> list[tuple[str, MemoryRecord]]:
    """(id, record) for every record the rule processor makes from the file, in order: the default one
    (with the learned small-talk test, :mod:`memdesk.conversation.filler`, unless ``learned`` is off)."""
    filler = FillerTest.packaged() if learned else None
    processor = RoutedExtraction(RuleRouter(filler=filler), RuleExtractor(filler=filler))
    out: list[tuple[str, MemoryRecord]] = []
    for conv in read_conversations(path):
        scope = Scope(user_id=conv.id)
        msgs = conv.messages
        for i, m in enumerate(msgs):
            mid = m.id or f"m{i}"
            u = Utterance(message_id=mid, message=m, scope=scope, context=msgs[max(0, i - CONTEXT_TURNS) : i])
            per_view: Counter[str] = Counter()
            for r in processor.process([u])[0].records:
                view = str(r.metadata.get("view", "?"))
                out.append((f"{conv.id}/{mid}#{view}#{per_view[view]}", r))
                per_view[view] += 1
    return out


def shown(record: MemoryRecord) -> str:
    """The text shown for a record (evidence lines, CLI, MCP): ``text()``, or ``embed_text()`` in code
    from before ``text()`` existed, which showed that."""
    return record.text() if hasattr(record, "text") else record.embed_text()


def title_repeats(records: list[MemoryRecord]) -> dict[str, float]:
    """Share of records whose shown text puts a title before a body that already starts with it."""
    titled = [r for r in records if getattr(r, "title", "")]
    twice = [r for r in titled if shown(r) != r.body() and r.body().startswith(r.title.rstrip(" .…"))]  # type: ignore[attr-defined]
    return {"records": len(records), "with_title": len(titled), "text_twice": len(twice), "text_twice_share": round(len(twice) / max(1, len(records)), 3)}


def cmd_sample(args: argparse.Namespace) -> int:
    recs = records_of(args.file)
    rng = random.Random(args.seed)
    picked = sorted(rng.sample(range(len(recs)), min(args.n, len(recs))))
    with open(args.out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["id", "label", "text", "anchor", "said", "dates"])
        for i in picked:
            rid, r = recs[i]
            said = r.metadata.get("said_at") or r.metadata.get("added_at") or ""
            dates = "; ".join(f"{t['text']} -> {t['label']}" for t in r.metadata.get("time_expressions", []))
            w.writerow([rid, "", r.body(), r.temporal_anchor or "", said[:10], dates])
    stats = title_repeats([r for _, r in recs])
    print(json.dumps({"file": args.file, "sampled": len(picked), **stats}, indent=2))
    return 0


def read_labels(path: str) -> list[dict[str, str]]:
    """Rows with ``id`` and ``label`` (and ``text``, ``reason`` when present): a TSV, or a JSONL of objects."""
    with open(path, encoding="utf-8", newline="") as f:
        if path.endswith(".jsonl"):
            return [json.loads(line) for line in f if line.strip()]
        return list(csv.DictReader(f, delimiter="\t"))


def cmd_score(args: argparse.Namespace) -> int:
    summary = {}
    for path in args.labels:
        rows = read_labels(path)
        counts: Counter[str] = Counter()
        problems = 0
        for row in rows:
            labels = set(row["label"].split("+"))
            unknown = labels - set(LABELS)
            if unknown or not row["label"]:
                raise SystemExit(f"{path}: {row['id']}: label {row['label']!r} is not one of {'/'.join(LABELS)}")
            counts.update(labels)
            problems += not labels <= GOOD
        if args.check and rows:
            source = args.source or {}
            file = source.get(path) if isinstance(source, dict) else None
            if file:
                made = {rid: r.body() for rid, r in records_of(file)}
                bad = [row["id"] for row in rows if row["id"] not in made or ("text" in row and row["text"] and made[row["id"]] != row["text"])]
                if bad:
                    raise SystemExit(f"{path}: {len(bad)} ids do not name the same records with this code, e.g. {bad[:3]}")
        n = len(rows)
        summary[Path(path).name] = {
            "n": n,
            **{f"{k}_share": round(counts[k] / n, 3) for k in LABELS if k not in GOOD},
            "any_problem_share": round(problems / n, 3),
            "counts": dict(counts),
        }
    write_result(args.json, summary)
    return 0


def cmd_strip(args: argparse.Namespace) -> int:
    rows = read_labels(args.labels)
    with open(args.out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["id", "label"])
        for row in rows:
            w.writerow([row["id"], row["label"]])
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample", help="write a random sample of records to label")
    s.add_argument("file")
    s.add_argument("--n", type=int, default=200)
    s.add_argument("--seed", type=int, default=12)
    s.add_argument("--out", required=True)
    c = sub.add_parser("score", help="shares of each label")
    c.add_argument("labels", nargs="+")
    c.add_argument("--json")
    c.add_argument("--source", type=lambda v: dict(x.split("=", 1) for x in v.split(",")), help="labels.tsv=FILE,... to check ids against")
    c.add_argument("--no-check", dest="check", action="store_false")
    t = sub.add_parser("strip", help="keep ids and labels only (for benchmark samples)")
    t.add_argument("labels")
    t.add_argument("--out", required=True)
    args = p.parse_args(argv)
    return {"sample": cmd_sample, "score": cmd_score, "strip": cmd_strip}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
