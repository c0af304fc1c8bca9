"""Time expressions that differ between two LoCoMo end-to-end stores (same messages ingested by two trees)."""
import json, sqlite3, sys, glob
def load(root):
    out = {}
    for db in sorted(glob.glob(f"{root}/runs/shard-0?/work/typed.db")):
        con = sqlite3.connect(db)
        for t in ("semantic_memory", "episodic_memory", "procedural_memory"):
            for prov, rec, meta_ref in con.execute(f"select provenance, record, metadata_ref from {t}"):
                r = json.loads(rec)
                md = r.get("metadata") or {}
                key = (db.split("/")[-3], json.loads(prov)[0] if prov.startswith("[") else prov)
                for te in md.get("time_expressions", []):
                    out.setdefault(key, {})[te["text"]] = (te["label"], te["start"], te["end"])
                out.setdefault(key, {})
                out[key]["__text__"] = r.get("fact") or r.get("summary") or r.get("content")
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
n = 0
for k in sorted(set(a) | set(b)):
    x = {t: v for t, v in a.get(k, {}).items() if t != "__text__"}
    y = {t: v for t, v in b.get(k, {}).items() if t != "__text__"}
    if x != y:
        n += 1
        print(k, "\n   main:", x, "\n   mine:", y, "\n   text:", (b.get(k) or a.get(k)).get("__text__", "")[:200])
print("differing messages:", n, "of", len(set(a) | set(b)))
