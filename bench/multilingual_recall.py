"""Same-language retrieval in seven languages: does a question find its message in the top 5?

Every message of ``bench/data/multilingual_pairs.jsonl`` (50 written pairs: Chinese, Japanese,
Hebrew, Arabic, Hindi, Russian, Spanish), together with the 35 unpaired messages of
``multilingual_distractors.jsonl`` (the same people on nearby topics: another city, another job,
another pet), is added to one scope through the default offline processor (``Memory.add``: the
router keeps each as a verbatim record), then each question is searched there (typed read path,
K=5). A pair counts when a top-5 hit has its message in its provenance. Run once per embedder::

    python bench/multilingual_recall.py --embedder multilingual --embedder minilm \\
        --out bench/results/multilingual/recall.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from benchinfo import write_result
from memdesk.conversation.memory import Memory
from memdesk.embed import make_embedder
from memdesk.factory import build_processor
from memdesk.records import Scope
from memdesk.settings import Settings
from memdesk.store import open_store

DATA = Path(__file__).resolve().parent / "data" / "multilingual_pairs.jsonl"
DISTRACTORS = DATA.with_name("multilingual_distractors.jsonl")
SAID = datetime(2024, 6, 1, 12, 0, tzinfo=timezone.utc)


def run(embedder_name: str, pairs: list[dict], distractors: list[dict], k: int) -> dict:
    settings = Settings(embedder=embedder_name)
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory(open_store(f"sqlite:///{tmp}/m.db"), make_embedder(settings), build_processor(settings))
        scope = Scope(user_id="multilingual")
        added = mem.add(
            [{"id": p["id"], "speaker": p["speaker"], "content": p["message"], "timestamp": SAID} for p in pairs + distractors],
            scope=scope,
        )
        found: dict[str, list[bool]] = defaultdict(list)
        misses = []
        ranks = []
        for p in pairs:
            hits = mem.search(p["question"], scope=scope, K=k)
            rank = next((i for i, h in enumerate(hits) if p["id"] in h.record.provenance), None)
            found[p["lang"]].append(rank is not None)
            ranks.append(rank)
            if rank is None:
                misses.append(p["id"])
        mem.close()
    total = sum(sum(v) for v in found.values())
    top1 = sum(r == 0 for r in ranks)
    mrr = sum(1 / (r + 1) for r in ranks if r is not None) / len(pairs)
    return {
        "embedder": embedder_name,
        "model_id": make_embedder(settings).model_id,
        "pairs": len(pairs),
        "distractors": len(distractors),
        "records": len(added.records),
        "messages_without_records": sorted({p["id"] for p in pairs + distractors} - {pid for r in added.records for pid in r.provenance}),
        f"recall@{k}": round(total / len(pairs), 3),
        "recall@1": round(top1 / len(pairs), 3),
        f"mrr@{k}": round(mrr, 3),
        "by_language": {lang: f"{sum(v)}/{len(v)}" for lang, v in sorted(found.items())},
        "misses": misses,
        "warnings": added.warnings,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--embedder", action="append", choices=["multilingual", "minilm", "hashing"], required=True)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    pairs, distractors = ([json.loads(line) for line in f.read_text(encoding="utf-8").splitlines() if line.strip()] for f in (DATA, DISTRACTORS))
    results = [run(name, pairs, distractors, args.k) for name in args.embedder]
    write_result(
        args.out,
        {"data": str(DATA.relative_to(DATA.parents[2])), "read_path": f"typed, K={args.k}", "runs": results},
        ensure_ascii=False,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
