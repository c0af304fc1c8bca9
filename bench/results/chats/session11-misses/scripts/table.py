import os
from load import WT, RUNS, WORK  # noqa: F401
import json
from collections import Counter, defaultdict
sets = {"heldout9a": "heldout9a", "heldout9b": "heldout9b"}
from load import read_labels
labels = read_labels()
F = {}
for s in ["heldout9a", "heldout9b", "heldout8a", "heldout8b"]:
    for l in open(WORK + f"/feat-{s}.jsonl"):
        f = json.loads(l); F[f["qid"]] = f
ORDER = ["OLD_VALUE", "NEW_VALUE", "WRONG_CLOSE", "OTHER_ATTR", "HUB", "FRAGMENT", "ELLIPSIS", "PARAPHRASE", "OTHER_PERSON", "ROLE", "FILLER", "NOT_STORED", "DATE", "LIST", "LABEL"]
def table(prefixes, N):
    rows = []
    qs = [q for q in labels if any(q.startswith(p) for p in prefixes)]
    c = Counter(labels[q] for q in qs)
    for L in ORDER:
        m = [q for q in qs if labels[q] == L]
        if not m: rows.append((L, 0, "", "", "", "", "", "")); continue
        r2 = sum(F[q]["rank"] == 2 for q in m); r5 = sum(F[q]["rank"] is not None and F[q]["rank"] <= 5 for q in m)
        ov0 = sum(F[q]["q_gold_overlap"] == 0 for q in m); tcl = sum(bool(F[q]["top_closed"]) for q in m)
        rows.append((L, len(m), f"{len(m)/N:.3f}", r2, r5, ov0, tcl, " ".join(sorted(m, key=lambda x: (x[:7], int(x.split('-q')[1])))[:30])))
    return rows, len(qs)
out = {}
for name, prefixes, N, base in [("9a+9b", ["h9a", "h9b"], 464, None), ("9a", ["h9a"], 227, None), ("9b", ["h9b"], 237, None), ("8a+8b sample", ["h8a", "h8b"], 506, None)]:
    rows, n = table(prefixes, N)
    out[name] = rows
    print(f"== {name}: {n} misses labelled of {N} questions")
    for r in rows: print("  ", r[:7])
json.dump(out, open(WORK + "/table.json", "w"))
