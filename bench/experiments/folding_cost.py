"""CPU time of packing one question's evidence block with and without folding (issue 30, a measurement).

Ranks the questions of an evaluation run's typed store once (``packing_lab.ranked_lists``: the run's embedder from
``MEMDESK_EMBEDDER``, its read profile, 100 candidates), then packs each ranking into 900 tokens with folding off
and on, twice each, and prints the CPU time (``time.process_time``, so other processes' load counts little) per pack.

    python bench/experiments/folding_cost.py /tmp/e2e-30q-fold/runs/shard-04 --questions 40
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # packing_lab

import packing_lab as L  # noqa: E402

from memdesk.retrieval.packing import BudgetPacker  # noqa: E402
from memdesk.retrieval.serialize import Serializer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--questions", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = L.ranked_lists("locomo", args.run_dir, "fused", None, 100)[: args.questions]
    for fold in (False, True, False, True):
        ser = Serializer(group_by_anchor=True, fold=fold)
        packer = BudgetPacker(ser, 900, max_records=100)
        start = time.process_time()
        for _ in range(args.repeat):
            for _, hits in rows:
                packer.pack(hits)
        ms = (time.process_time() - start) / (args.repeat * len(rows)) * 1000
        print(f"fold={fold}: {ms:.2f} ms CPU per pack ({len(rows)} questions)")


if __name__ == "__main__":
    main()
