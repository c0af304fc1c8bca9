"""How the misses of a ``memdesk eval chats`` run split by their first hit (issue 28, session 11).

For each question whose first hit is not from a gold message (``results.jsonl`` of the run): a *hub* first hit is a
record that is first, wrongly, for two or more questions of its chat (``long``: of 25 words or more); otherwise the
first hit *shares a topic word* with the question (a stemmed content word that is not a name the question says: about
another attribute or event of the same topic) or *shares none*. Also counted: misses whose gold is at rank 2-4.

    python bench/experiments/miss_split.py RUN/results.jsonl [RUN2/results.jsonl ...]

Prints counts only (no question or record text).
"""

from __future__ import annotations

import collections
import json
import re
import sys

from memdesk.retrieval.stemming import content_stems


def _names(text: str) -> set[str]:
    return {s for w in re.findall(r"\b[A-Z][\w'-]+", text) for s in content_stems(w)}


def split(path: str) -> collections.Counter:
    rows = [json.loads(line) for line in open(path)]
    misses = [r for r in rows if r["precision_at_1"] < 1]
    wins = collections.Counter((r["chat_id"], r["top_hit"]) for r in misses)
    out: collections.Counter = collections.Counter(questions=len(rows), misses=len(misses))
    for r in misses:
        top = r["top_hit"] or ""
        asked = set(content_stems(r["question"])) - _names(r["question"])
        if wins[(r["chat_id"], top)] >= 2:
            out["hub"] += 1
            out["hub, long"] += len(top.split()) >= 25
        elif asked & set(content_stems(top)):
            out["topic word"] += 1
        else:
            out["no shared word"] += 1
        out["gold rank 2-4"] += bool(r["first_gold_rank"]) and r["first_gold_rank"] <= 4
    return out


def main() -> None:
    total: collections.Counter = collections.Counter()
    for path in sys.argv[1:]:
        counts = split(path)
        total.update(counts)
        print(path, json.dumps(dict(counts)))
    print("all", json.dumps(dict(total)))


if __name__ == "__main__":
    main()
