"""Per-question table of two LongMemEval runs' memdesk-default rows (the harness's own per-question fields):
turn recall at the evidence budget, recall@5/@10, session recall@10 (any), precision@1, reciprocal rank, tokens.

    python table.py minilm=RUN_A/results.jsonl nomic=RUN_B/results.jsonl [nomic=MORE/results.jsonl ...]
"""
import json
import statistics
import sys
from collections import defaultdict

runs: dict[str, dict[str, dict]] = defaultdict(dict)
for arg in sys.argv[1:]:
    name, path = arg.split("=", 1)
    for line in open(path):
        r = json.loads(line)
        if r["system"] == "memdesk-default" and r.get("retrieval_scored"):
            runs[name][r["question_id"]] = r
names = list(runs)
common = sorted(set.intersection(*(set(v) for v in runs.values())))
cols = ["recall", "r@5", "r@10", "sess@10", "P@1", "RR", "tokens"]


def row(r):
    rr = r.get("reciprocal_rank")
    return [r["recall"]["all"], r["recall"]["5"], r["recall"]["10"], r["session_recall"]["10"]["any"], r["precision_at_1"], rr if rr is not None else 0.0, r["evidence_tokens"]]


print("| question | category | " + " | ".join(f"{n} {c}" for c in cols for n in names) + " |")
print("|---|---|" + "---|" * (len(cols) * len(names)))
table = {n: [] for n in names}
for q in common:
    vals = {n: row(runs[n][q]) for n in names}
    for n in names:
        table[n].append(vals[n])
    cells = [f"{vals[n][i]:.3g}" for i in range(len(cols)) for n in names]
    print(f"| {q} | {runs[names[0]][q]['category']} | " + " | ".join(cells) + " |")
means = [f"{(statistics.median if cols[i] == 'tokens' else statistics.mean)([v[i] for v in table[n]]):.3f}" for i in range(len(cols)) for n in names]
print(f"| **{len(common)} questions** (mean; tokens: median) | | " + " | ".join(means) + " |")
