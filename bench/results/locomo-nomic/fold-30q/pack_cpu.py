"""CPU time of packing one question's block with and without folding (issue 30; stores of locomo_e2e.sh, conv-30)."""
import sys, time
sys.path.insert(0, "bench"); sys.path.insert(0, "bench/experiments")
from pathlib import Path
import packing_lab as L
from memdesk.retrieval.serialize import Serializer
from memdesk.retrieval.packing import BudgetPacker
rows = L.ranked_lists("locomo", Path("/tmp/e2e-30q-fold/runs/shard-04"), "fused", None, 100)[:40]
for fold in (False, True, False, True):
    ser = Serializer(group_by_anchor=True, fold=fold)
    pk = BudgetPacker(ser, 900, max_records=100)
    t = time.process_time()
    for _ in range(3):
        for q, hits in rows:
            pk.pack(hits)
    print(fold, round((time.process_time() - t) / (3 * len(rows)) * 1000, 2), "ms CPU per pack")
