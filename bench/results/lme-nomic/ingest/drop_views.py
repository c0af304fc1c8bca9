"""Delete the turn and context view records from a copy of a run's typed store (what compact views never write)."""
import sys
from collections import Counter
from memdesk.store import open_store
store = open_store(f"sqlite:///{sys.argv[1]}")
drop, kept = [], Counter()
for scope in store.scopes():
    for rec in store.scan(scope):
        v = rec.metadata.get("view")
        if v in ("turn", "context"):
            drop.append(rec.id)
        kept[v] += 1
for rid in drop:
    store.delete(rid)
print("views before:", dict(kept), "deleted", len(drop))
store.close()
