"""Write LongMemEval questions with a smaller haystack: the answer sessions and N other sessions of each question's own.

A LongMemEval_S haystack is ~50 sessions / ~490 messages; a GGUF embedder such as nomic pays ~4 ms of CPU per token
and the default write path embeds ~1.3x the haystack's characters, so one question costs ~13 CPU-minutes of
ingest (``results/lme-nomic/``). Where a machine cannot give that, this keeps every answer session and draws
``--others`` of the question's other sessions (seeded, in their original order, dates kept), so two embedders can be
compared on the same, smaller haystacks. It is not LongMemEval_S: a result on it is labelled with the number of
sessions kept, and compared only with another embedder's on the same file.

    python bench/lme_subhaystack.py SHARD.json OUT.json --others 6 --seed 0
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from pathlib import Path


def _load(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def shrink(item: dict, others: int, rng: random.Random) -> dict:
    """``item`` with its answer sessions and ``others`` of its other sessions, in haystack order."""
    ids = item["haystack_session_ids"]
    gold = set(item.get("answer_session_ids") or [])
    rest = [i for i, sid in enumerate(ids) if sid not in gold]
    keep = {i for i, sid in enumerate(ids) if sid in gold} | set(rng.sample(rest, min(others, len(rest))))
    out = dict(item)
    for key in ("haystack_session_ids", "haystack_dates", "haystack_sessions"):
        out[key] = [v for i, v in enumerate(item[key]) if i in keep]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path, help="a LongMemEval file (.json or .json.gz)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--others", type=int, default=6, help="sessions kept besides the answer sessions")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    items = [shrink(item, args.others, rng) for item in _load(args.data)]
    args.out.write_text(json.dumps(items), encoding="utf-8")
    for item in items:
        turns = sum(len(s) for s in item["haystack_sessions"])
        print(f"{item['question_id']}: {len(item['haystack_sessions'])} sessions, {turns} turns")


if __name__ == "__main__":
    main()
