"""Does ``math-verify`` agree with memdesk's MATH answer checker (``reasoning.math_answers.math_equal``)?

Three sets of (prediction, gold) pairs, each judged by both checkers:
1. the committed reasoning runs' extracted predictions against their gold answers (bench/results/reasoning/*/results.jsonl);
2. MATH-500 (read from the data folder, never copied): each problem's gold ``answer`` against the last ``\\boxed{}``
   of its reference ``solution`` (should be equal: the same answer written twice, often in different forms);
3. the same gold answers paired with another problem's boxed answer (should be unequal).
Writes counts and the ids of disagreeing pairs (no benchmark text). The committed result was measured with the
hand-written checker of commit 2fdfb31, before memdesk switched to math-verify (``git worktree add /tmp/old 2fdfb31``
and run this script with ``PYTHONPATH=/tmp/old/src`` to compare again); at later commits both sides are math-verify.

    nice python bench/experiments/math_verify_agreement.py --out bench/results/experiments/math_verify.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.benchinfo import machine_info, measured_at, write_result  # noqa: E402
from memdesk.runtime.datapaths import default_data_dir  # noqa: E402
from memdesk.reasoning.math_answers import math_equal  # noqa: E402
from memdesk.reasoning.scoring import last_boxed  # noqa: E402


def verify_equal(pred: str, gold: str) -> bool:
    from math_verify import parse, verify

    wrap = lambda s: s if "\\boxed" in s or s.startswith("$") else f"${s}$"  # noqa: E731
    try:
        return bool(verify(parse(wrap(gold)), parse(wrap(pred))))
    except Exception:  # noqa: BLE001 - a parse failure is a "not equal", as math_equal treats one
        return False


def judge(pairs: list[tuple[str, str, str]]) -> dict:
    both = neither = 0
    ours_only: list[str] = []
    theirs_only: list[str] = []
    for pid, pred, gold in pairs:
        a, b = math_equal(pred, gold), verify_equal(pred, gold)
        if a and b:
            both += 1
        elif not a and not b:
            neither += 1
        elif a:
            ours_only.append(pid)
        else:
            theirs_only.append(pid)
    n = len(pairs)
    return {"pairs": n, "both_equal": both, "both_unequal": neither,
            "agreement": round((both + neither) / n, 4) if n else None,
            "memdesk_only_equal": ours_only, "math_verify_only_equal": theirs_only}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    repo = Path(__file__).resolve().parents[2]
    runs = []
    for f in sorted((repo / "bench/results/reasoning").glob("*/results.jsonl")):
        for line in f.read_text().splitlines():
            row = json.loads(line)
            if row.get("prediction") is not None:
                runs.append((f"{f.parent.name}:{row['run_id']}:{row['id']}", str(row["prediction"]), str(row["gold"])))
    math500 = [json.loads(x) for x in (default_data_dir() / "math500" / "test.jsonl").read_text().splitlines() if x.strip()]
    same, other = [], []
    boxed = [last_boxed(item["solution"]) for item in math500]
    for i, item in enumerate(math500):
        if boxed[i] is None:
            continue
        same.append((item["unique_id"], boxed[i], item["answer"]))
        j = (i + 1) % len(math500)
        if boxed[j] is not None and boxed[j].strip() != item["answer"].strip():
            other.append((f"{item['unique_id']}~{math500[j]['unique_id']}", boxed[j], item["answer"]))
    result = {"measured_at": measured_at(), "command": "bench/experiments/math_verify_agreement.py " + " ".join(sys.argv[1:]),
              "machine": machine_info(), "committed_runs": judge(runs), "math500_answer_vs_solution": judge(same),
              "math500_answer_vs_another_problem": judge(other)}
    write_result(args.out, result)


if __name__ == "__main__":
    main()
