import pickle, sys, json, collections
from memdesk.eval import metrics as M
tot = collections.Counter(); fixed = collections.Counter(); broke = collections.Counter()
sets = sys.argv[2:]; new = sys.argv[1]
for s in sets:
    base = {r["id"]: r for r in json.load(open(f"/tmp/28ea/rows-base-{s}.json"))}
    cur = {r["id"]: r for r in json.load(open(f"/tmp/28ea/rows-{new}-{s}.json"))}
    for it in pickle.load(open(f"/tmp/28ea/ev-{s}.pkl", "rb")):
        r = base[it["id"]]
        if not r["p1"]:
            continue
        if r["right"]:
            if not cur[it["id"]]["right"]: broke["p1-gold, was right"] += 1
            continue
        hits = it["ev"].hits; top = hits[0].record
        acc = lambda t: M.accepted(t, it["accept"])
        if acc(top.text()):
            k = "answerer left a right first hit"
        elif any(acc(h.record.text()) for h in hits if h.record.provenance[:1] == top.provenance[:1]) or any(acc(m.text()) for m in it["mates"].get(top.id, [])):
            k = "another record of the first hit's message holds it"
        elif any(acc(h.record.text()) for h in hits):
            k = "another record in the evidence holds it"
        elif it["kind"] == "date":
            k = "no record holds it: date question (resolution/anchor)"
        else:
            k = "no record holds it: paraphrase, yes/no, reasoning"
        tot[k] += 1
        if cur[it["id"]]["right"]: fixed[k] += 1
print("sets:", " ".join(sets))
print(f"{'class':60} {'n':>4} {'fixed':>6}")
for k, v in tot.most_common(): print(f"{k:60} {v:4} {fixed[k]:6}")
print(f"{'total':60} {sum(tot.values()):4} {sum(fixed.values()):6}   broken (first hit gold, was right): {sum(broke.values())}")
