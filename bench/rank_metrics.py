"""Precision@1 and MRR@10 of the first gold turn, from a committed LoCoMo or LongMemEval run's results.

A run written before the harness kept these in its rows (``memdesk eval locomo|longmemeval`` now does) still has
each main system's hits with their provenance: this recomputes both metrics from them with the harness's own
functions (``memdesk.eval.metrics.precision_at_1`` / ``reciprocal_rank``) and the benchmark file's gold evidence,
over the headline categories, beside the summary's recall.

    python bench/rank_metrics.py bench/results/locomo --out bench/results/rank-metrics/locomo.json
    python bench/rank_metrics.py bench/results/longmemeval --out bench/results/rank-metrics/longmemeval.json
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import defaultdict
from pathlib import Path

from memdesk.eval import load_dataset
from memdesk.eval import metrics as M
from memdesk.eval.runner import MRR_CUTOFF


def _rows(run: Path):
    path = run / "results.jsonl"
    opener = open if path.exists() else gzip.open
    with opener(path if path.exists() else run / "results.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def rank_metrics(run: Path) -> dict:
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    dataset = load_dataset(summary["benchmark"], summary["data"])
    gold = {q.id: q.evidence_ids for q in dataset.questions if q.retrieval_scored}
    headline = set(summary["headline_categories"])
    p1: dict[str, list[float]] = defaultdict(list)
    rr: dict[str, list[float]] = defaultdict(list)
    for row in _rows(run):
        if row.get("hits") is None or row["question_id"] not in gold or row["category"] not in headline:
            continue
        ranked = [h[2] for h in row["hits"]]
        p1[row["system"]].append(M.precision_at_1(gold[row["question_id"]], ranked))
        rr[row["system"]].append(M.reciprocal_rank(gold[row["question_id"]], ranked, MRR_CUTOFF))
    return {
        "benchmark": summary["benchmark"], "data": summary["data"], "run": str(run),
        "systems": {
            name: {"n": len(p1[name]), "recall": summary["systems"][name]["overall"]["recall"],
                   "precision_at_1": round(M.mean(p1[name]), 4), "mrr_at_10": round(M.mean(rr[name]), 4)}
            for name in p1
        },
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path, help="a run directory with summary.json and results.jsonl(.gz)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    result = rank_metrics(args.run)
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
