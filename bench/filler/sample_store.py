"""Draw a reproducible random sample of the records in memdesk SQLite stores, to label by hand (issue 28).

The stores are those of an end-to-end benchmark run (``/work/tools-lead/locomo_e2e.sh TREE TAG`` leaves them in
``/tmp/e2e-TAG/runs/shard-0?/work/typed.db``), so the sample is of what ``Memory.add`` really stored, every view
included. Each record gets an id ``<user>/<first provenance>#<view>#<k>`` (k counts records of the same turn and
view in insertion order), the same form as ``bench/record_quality.py``'s ids.

    python bench/filler/sample_store.py /tmp/e2e-TAG/runs/shard-0?/work/typed.db --n 200 --seed 4242 --out /tmp/s.tsv

The TSV (id, empty label column, role, speaker, text) holds benchmark text: write it to a scratch path, label
it there, and commit ids and labels only (``python bench/filler/sample_store.py strip s.tsv --out x.jsonl``).
Labels: ``fact`` (worth noting about someone) or ``filler`` (nothing in it worth remembering about anyone).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sqlite3
import sys
from collections import Counter

TABLES = ("semantic_memory", "episodic_memory", "procedural_memory")


def store_records(paths: list[str]) -> list[tuple[str, dict]]:
    """(id, record JSON) for every record of the stores, in a stable order."""
    out: list[tuple[str, dict]] = []
    for path in sorted(paths):
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows = []
        for table in TABLES:
            rows += db.execute(f"SELECT seq, record FROM {table}").fetchall()  # noqa: S608 (fixed names)
        db.close()
        per: Counter[str] = Counter()
        for _, raw in sorted(rows):
            r = json.loads(raw)
            key = f"{r['scope']['user_id']}/{(r.get('provenance') or ['?'])[0]}#{r.get('metadata', {}).get('view', '?')}"
            out.append((f"{key}#{per[key]}", r))
            per[key] += 1
    return sorted(out, key=lambda x: x[0])


def text_of(r: dict) -> str:
    for k in ("fact", "summary", "content", "text"):
        if r.get(k):
            return " ".join(str(r[k]).split())
    return ""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "strip":
        sp = argparse.ArgumentParser(prog="sample_store.py strip")
        sp.add_argument("tsv")
        sp.add_argument("--out", required=True)
        args = sp.parse_args(argv[1:])
        with open(args.tsv) as f, open(args.out, "w") as o:
            for row in csv.reader(f, delimiter="\t"):
                if row and row[0] != "id":
                    o.write(json.dumps({"id": row[0], "label": row[1]}) + "\n")
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stores", nargs="+")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    records = store_records(args.stores)
    sample = sorted(random.Random(args.seed).sample(range(len(records)), min(args.n, len(records))))
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(["id", "label", "role", "speaker", "text"])
        for i in sample:
            rid, r = records[i]
            w.writerow([rid, "", r.get("role"), r.get("speaker"), text_of(r)])
    print(f"{len(records)} records, {len(sample)} sampled -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
