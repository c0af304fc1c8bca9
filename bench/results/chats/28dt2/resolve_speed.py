import json, re, time
from datetime import datetime
from memdesk.timeexpr.resolve import resolve
d = json.load(open('/work/shared/data/locomo/locomo_dev5.json'))
qs = [q["question"] for c in d for q in c["qa"]][:500]
ref = datetime(2023, 5, 8)
t = time.perf_counter()
for _ in range(3):
    for q in qs:
        resolve(q, ref, prefer="auto")
print(f"{(time.perf_counter() - t) / (3 * len(qs)) * 1000:.3f} ms per question")
