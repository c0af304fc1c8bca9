"""Two evaluation runs side by side on the questions both answered (e.g. MiniLM's committed run and a
nomic run that covered only some conversations): per system and category, recall at the evidence
budget, recall@5/@10, precision@1 / MRR of gold turns (from each question's ranked hits), median
evidence tokens and (LongMemEval) session recall@10.

    python bench/compare_embedder_runs.py bench/results/locomo/results.jsonl.gz /tmp/30-eval/locomo-nomic/results.jsonl \\
        --systems memdesk-default,flat-rag --names minilm,nomic [--categories multi-hop,temporal,open-domain,single-hop] [--out FILE.json]

Precision@1 here: the first hit holds a gold turn; MRR: 1 / the rank of the first hit holding one (0 if none
is retrieved). Gold turns are read from the dataset (``--benchmark``, default locomo).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
from collections import defaultdict
from pathlib import Path


def _rows(path: str) -> list[dict]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:  # type: ignore[operator]
        return [json.loads(line) for line in f if line.strip()]


def _gold(benchmark: str) -> dict[str, set[str]]:
    from memdesk.eval.run import load_dataset

    ds = load_dataset(benchmark)  # type: ignore[arg-type]
    return {q.id: set(q.evidence_ids) for q in ds.questions}


def _rank_metrics(row: dict, gold: set[str]) -> tuple[float, float]:
    for rank, hit in enumerate(row.get("hits") or [], 1):
        if gold & set(hit[2]):
            return (1.0 if rank == 1 else 0.0), 1.0 / rank
    return 0.0, 0.0


def summarize(rows: list[dict], gold: dict[str, set[str]]) -> dict:
    n = len(rows)
    scored = [r for r in rows if r.get("retrieval_scored")]
    p1_mrr = [_rank_metrics(r, gold.get(r["question_id"], set())) for r in scored]
    out = {
        "n": n,
        "recall": round(statistics.fmean(r["recall"]["all"] for r in scored), 4) if scored else None,
        "recall@5": round(statistics.fmean(r["recall"]["5"] for r in scored), 4) if scored else None,
        "recall@10": round(statistics.fmean(r["recall"]["10"] for r in scored), 4) if scored else None,
        "precision@1": round(statistics.fmean(p for p, _ in p1_mrr), 4) if p1_mrr else None,
        "mrr": round(statistics.fmean(m for _, m in p1_mrr), 4) if p1_mrr else None,
        "median_tokens": statistics.median(r["evidence_tokens"] for r in rows) if rows else None,
    }
    sr = [r["session_recall"]["10"]["any"] for r in scored if r.get("session_recall")]
    if sr:
        out["session_recall@10_any"] = round(statistics.fmean(sr), 4)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs=2)
    ap.add_argument("--names", default="a,b")
    ap.add_argument("--systems", default="memdesk-default,flat-rag")
    ap.add_argument("--categories", default=None)
    ap.add_argument("--benchmark", default="locomo")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.names.split(",")
    systems = args.systems.split(",")
    cats = set(args.categories.split(",")) if args.categories else None
    runs = [[r for r in _rows(p) if r["system"] in systems and not r.get("sweep") and (cats is None or r["category"] in cats)]
            for p in args.runs]  # fmt: skip
    common = set.intersection(*({(r["system"], r["question_id"]) for r in run} for run in runs))
    gold = _gold(args.benchmark)
    result: dict = {"runs": dict(zip(names, args.runs)), "conversations": sorted({q.split(":")[0] for _, q in common}),
                    "systems": {}}  # fmt: skip
    for system in systems:
        table: dict = {}
        for name, run in zip(names, runs):
            chosen = [r for r in run if (r["system"], r["question_id"]) in common and r["system"] == system]
            by_cat = defaultdict(list)
            for r in chosen:
                by_cat[r["category"]].append(r)
            table[name] = {"overall": summarize(chosen, gold), **{c: summarize(v, gold) for c, v in sorted(by_cat.items())}}
        result["systems"][system] = table
    text = json.dumps(result, indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n")
    for system, table in result["systems"].items():
        print(f"\n{system} ({', '.join(result['conversations'])})")
        cats_seen = list(next(iter(table.values())).keys())
        print(f"{'category':12s} " + " ".join(f"{n + ' ' + m:>20s}" for n in names for m in ("recall", "p@1", "mrr", "tok")))
        for c in cats_seen:
            cells = []
            for n in names:
                s = table[n][c]
                cells += [f"{s['recall']}", f"{s['precision@1']}", f"{s['mrr']}", f"{s['median_tokens']}"]
            print(f"{c:12s} (n={table[names[0]][c]['n']}) " + " ".join(f"{x:>10s}" for x in cells))


if __name__ == "__main__":
    main()
