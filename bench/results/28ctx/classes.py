"""P@1 of the session-11 labelled misses (../chats/session11-misses/labels.tsv) in two runs, by miss class.

    python bench/results/28ctx/classes.py RUN_A RUN_B [RUN_A2 RUN_B2 ...]   # run dirs of `memdesk eval chats` (results.jsonl)

Prints per class "hits in A -> hits in B / labelled questions of the runs' set".
"""

import collections
import json
import sys
from pathlib import Path

LABELS = Path(__file__).resolve().parent.parent / "chats" / "session11-misses" / "labels.tsv"


def labels() -> dict[str, str]:
    out = {}
    for line in LABELS.read_text().splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) > 2:
            out[cols[1]] = cols[2]
    return out


def p1(run: str) -> dict[str, float]:
    rows = [json.loads(line) for line in (Path(run) / "results.jsonl").read_text().splitlines() if line.strip()]
    return {r["question_id"]: r["precision_at_1"] for r in rows}


def main() -> None:
    lab = labels()
    for a, b in zip(sys.argv[1::2], sys.argv[2::2]):
        before, after = p1(a), p1(b)
        counts = collections.defaultdict(lambda: [0, 0.0, 0.0])
        for q, label in lab.items():
            if q in before and q in after:
                c = counts[label]
                c[0] += 1
                c[1] += before[q]
                c[2] += after[q]
        print(b, " ".join(f"{k} {v[1]:.0f}->{v[2]:.0f}/{v[0]}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
