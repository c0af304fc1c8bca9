"""How often a gold evidence turn has records in more than one memory type (issue 13, "typing that pays").

Reads an evaluation run's ingested typed store (``<run>/work/typed.db``, one scope per conversation) and, for
the benchmark's retrieval-scored questions in the headline categories, counts the gold turns whose source
message feeds records of two or more types: where that share is high, one type's miss is usually reachable
through another type's record of the same turn, which bounds what per-type retrieval can add.

    python bench/type_overlap.py locomo /tmp/memdesk-eval/locomo
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from memdesk.eval.run import load_dataset
from memdesk.records import ALL_TYPES, Scope
from memdesk.store import open_store


def type_overlap(benchmark: str, run_dir: Path) -> dict:
    ds = load_dataset(benchmark)  # type: ignore[arg-type]
    done = set(json.loads((run_dir / "work" / "state.json").read_text())["ingested"].get("typed", []))
    types: dict[tuple[str, str], set[str]] = defaultdict(set)
    with open_store(f"sqlite:///{run_dir / 'work' / 'typed.db'}") as store:
        for conv in sorted(done):
            for t in ALL_TYPES:
                for r in store.scan(Scope(user_id=conv), t):
                    for m in r.provenance:
                        types[(conv, m)].add(t.value)
    gold: dict[str, list[int]] = defaultdict(list)
    for q in ds.questions:
        if q.conversation_id in done and q.retrieval_scored and q.category in ds.headline_categories:
            gold[q.category].extend(len(types.get((q.conversation_id, e), ())) for e in q.evidence_ids)
    every = [k for ks in gold.values() for k in ks]
    share = lambda ks: round(sum(k >= 2 for k in ks) / len(ks), 3) if ks else None  # noqa: E731
    return {
        "conversations": sorted(done),
        "gold_turns": len(every),
        "gold_in_2plus_types": share(every),
        "gold_in_no_type": round(sum(k == 0 for k in every) / len(every), 3) if every else None,
        "by_category": {c: share(ks) for c, ks in gold.items()},
        "source_turns": len(types),
        "source_turns_in_2plus_types": share([len(v) for v in types.values()]),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("benchmark", choices=["locomo", "longmemeval"])
    ap.add_argument("run_dir", type=Path)
    args = ap.parse_args()
    print(json.dumps(type_overlap(args.benchmark, args.run_dir), indent=2))


if __name__ == "__main__":
    main()
