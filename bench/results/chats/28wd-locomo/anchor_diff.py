"""Temporal anchors that differ between two LoCoMo end-to-end stores (same messages ingested by two trees)."""
import json, sqlite3, sys, glob
def load(root):
    out = {}
    for db in sorted(glob.glob(f"{root}/runs/shard-0?/work/typed.db")):
        con = sqlite3.connect(db)
        for t in ("semantic_memory", "episodic_memory", "procedural_memory"):
            for prov, rec in con.execute(f"select provenance, record from {t}"):
                r = json.loads(rec)
                key = (db.split("/")[-3], prov)
                out.setdefault(key, set()).add((r.get("temporal_anchor"), (r.get("fact") or r.get("summary") or r.get("content") or "")[:90]))
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
n = 0
for k in sorted(set(a) | set(b)):
    x = {t for t, _ in a.get(k, set())}; y = {t for t, _ in b.get(k, set())}
    if x != y:
        n += 1
        print(k, "main:", sorted(map(str, x)), "mine:", sorted(map(str, y)), "|", sorted(b.get(k, a.get(k)))[0][1])
print("differing:", n, "of", len(set(a) | set(b)))
