"""Two systems' answers to the same questions, side by side: means, per-question wins, paired bootstrap intervals.

Reads the ``results.jsonl`` of an LLM-scored run (``bash bench/run_locomo_llm.sh``) and compares two of its
systems on the questions both answered: mean F1, BLEU-1 and judge score; how often each system's answer has the
higher F1, and how often only one system's answer passed the judge; the 95% interval of the mean difference
(first minus second) from a paired bootstrap over questions; abstentions on answerable questions; and answers that
are the gold answer's words exactly (F1 = 1) yet were judged WRONG.

    python bench/answer_compare.py bench/results/locomo-llm/results.jsonl memdesk-default flat-rag
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def paired_interval(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of mean(a - b) over question resamples (with replacement)."""
    rng = np.random.default_rng(seed)
    diff = a - b
    idx = rng.integers(0, len(diff), size=(resamples, len(diff)))
    means = diff[idx].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("results", type=Path)
    ap.add_argument("first")
    ap.add_argument("second")
    ap.add_argument("--resamples", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rows = [json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]
    by = {(r["system"], r["question_id"]): r for r in rows}
    questions = sorted({q for s, q in by if s == args.first} & {q for s, q in by if s == args.second})
    if not questions:
        raise SystemExit(f"no question answered by both {args.first} and {args.second}")
    a = [by[(args.first, q)] for q in questions]
    b = [by[(args.second, q)] for q in questions]

    def col(rs, key):
        return np.array([float(r.get(key) or 0.0) for r in rs])

    out: dict = {"questions": len(questions), "systems": [args.first, args.second]}
    for key in ("f1", "bleu1", "judge"):
        x, y = col(a, key), col(b, key)
        lo, hi = paired_interval(x, y, args.resamples, args.seed)
        out[key] = {args.first: round(float(x.mean()), 3), args.second: round(float(y.mean()), 3),
                    "difference_95": [round(lo, 3), round(hi, 3)]}
    fa, fb = col(a, "f1"), col(b, "f1")
    ja, jb = col(a, "judge"), col(b, "judge")
    out["higher_f1"] = {args.first: int((fa > fb).sum()), args.second: int((fb > fa).sum())}
    out["only_judged_right"] = {args.first: int(((ja > 0) & (jb == 0)).sum()), args.second: int(((jb > 0) & (ja == 0)).sum())}
    out["abstaining_answers"] = {s: sum(1 for r in rs if r.get("abstained") and not r.get("abstention"))
                                 for s, rs in ((args.first, a), (args.second, b))}
    out["exact_answers_judged_wrong"] = {
        s: f"{sum(1 for r in rs if r.get('f1') == 1.0 and r.get('judge_label') == 'WRONG')} of {sum(1 for r in rs if r.get('f1') == 1.0)}"
        for s, rs in ((args.first, a), (args.second, b))
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
