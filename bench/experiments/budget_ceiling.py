"""How much recall could a per-question token budget buy on the default read path? (issue 13, a measurement)

The default packs every question's evidence into the same 900 tokens. Multi-hop and open-domain questions
are where recall is lost, so the obvious idea is to give "hard" questions a bigger budget and keep the
median at 900. This script measures the ceiling of that idea over an evaluation run's ingested typed
store (as ``retrieval_replay.py`` does), with three policies:

* ``fixed``: every question gets ``--small`` tokens (the default's behaviour at 900);
* ``oracle``: the questions whose gold category is multi-hop or open-domain get ``--big``, the others
  ``--small`` (an upper bound: no question-side rule can pick them better than their labels);
* ``cue``: questions whose text asks for a list or a count (a generic English pattern, written for this
  script, not fitted to the data) get ``--big``.

It also counts, for the multi-hop and open-domain questions, how many missed gold turns sit next to a
turn the block already holds (what including neighbouring turns could recover at most).

    python bench/experiments/budget_ceiling.py /tmp/memdesk-eval/locomo --policy oracle --big 3000

Not a product feature: the oracle reads the benchmark's labels. The numbers are in
``bench/results/RETRIEVAL_EXPERIMENTS.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for retrieval_replay

from retrieval_replay import CONFIGS  # noqa: E402

from memdesk.conversation.memory import Memory  # noqa: E402
from memdesk.conversation.raw import RawTurnProcessor  # noqa: E402
from memdesk.embed import MiniLMEmbedder  # noqa: E402
from memdesk.eval import metrics as M  # noqa: E402
from memdesk.eval.cache import CachingEmbedder  # noqa: E402
from memdesk.eval.run import load_dataset  # noqa: E402
from memdesk.records import Scope  # noqa: E402
from memdesk.store import open_store  # noqa: E402

HARD = ("multi-hop", "open-domain")
LIST_OR_COUNT = re.compile(
    r"\b(what (are|were|kinds?|types?|activities|things)|which|how many|how often|both|all|ever|list|some|ways)\b", re.I
)
TURN = re.compile(r"(.*D\d+):(\d+)$")


def neighbours(turn: str) -> set[tuple[str, int]]:
    m = TURN.match(turn)
    return {(m.group(1), int(m.group(2)) - 1), (m.group(1), int(m.group(2)) + 1)} if m else set()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir", type=Path, help="a `memdesk eval locomo` run directory (its work/typed.db)")
    ap.add_argument("--policy", choices=["fixed", "oracle", "cue"], default="fixed")
    ap.add_argument("--big", type=int, default=1600)
    ap.add_argument("--small", type=int, default=900)
    args = ap.parse_args()
    ds = load_dataset("locomo")
    done = set(json.loads((args.run_dir / "work" / "state.json").read_text())["ingested"].get("typed", []))
    store = open_store(f"sqlite:///{args.run_dir / 'work' / 'typed.db'}")
    retriever, serializer = CONFIGS["fused"][0](store)
    cache = args.run_dir / "work" / "embeddings.sqlite"
    memory = Memory(store, CachingEmbedder(MiniLMEmbedder(), cache), RawTurnProcessor(), retriever=retriever, serializer=serializer)
    recall: dict[str, list[float]] = defaultdict(list)
    tokens: list[int] = []
    misses: Counter[str] = Counter()
    n_big = 0
    try:
        for q in (q for q in ds.questions if q.conversation_id in done and q.retrieval_scored):
            big = (args.policy == "oracle" and q.category in HARD) or (
                args.policy == "cue" and LIST_OR_COUNT.search(q.question) is not None
            )
            n_big += big
            retriever.packer.budget = args.big if big else args.small  # type: ignore[union-attr]
            ev = memory.evidence(q.question, scope=Scope(user_id=q.conversation_id))
            prov = [list(h.record.provenance) for h in ev.hits]
            r = M.evidence_recall(q.evidence_ids, prov)
            if r is not None:
                recall[q.category].append(r)
            if q.category in ds.headline_categories:
                tokens.append(ev.tokens)
            if q.category in HARD:
                held = {p for ids in prov for p in ids}
                held_turns = {(m.group(1), int(m.group(2))) for p in held if (m := TURN.match(p))}
                for gold in q.evidence_ids:
                    misses["gold"] += 1
                    if gold not in held:
                        misses["missed"] += 1
                        misses["missed_next_to_a_held_turn"] += bool(neighbours(gold) & held_turns)
    finally:
        store.close()
    head = [r for c in ds.headline_categories for r in recall.get(c, [])]
    print(json.dumps({
        "policy": args.policy, "big": args.big, "small": args.small, "questions_with_big_budget": n_big,
        "recall": round(float(np.mean(head)), 4),
        "by_category": {c: round(float(np.mean(recall[c])), 3) for c in ds.headline_categories if recall.get(c)},
        "median_tokens": statistics.median(tokens), "mean_tokens": round(statistics.fmean(tokens)),
        "hard_gold_turns": dict(misses),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
