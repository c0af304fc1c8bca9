import os
from load import WT, RUNS, WORK  # noqa: F401
import json, sys
from load import load
from load import oracle_closed
def p1(gold, hits): return 1.0 if hits and set(hits[0]["prov"]) & set(gold) else 0.0
allres = {}
for s in sys.argv[1:]:
    chats, res, inv, dump = load(s)
    acc = {}; n = {}
    for q, r in res.items():
        chat = chats[r["chat_id"]]; gold = r["gold_message_ids"]; d = dump[q]; raw = d["raw"]
        closes, keeps = oracle_closed(chat, inv[r["chat_id"]])
        perf = lambda h: (h["id"] in closes) or (h["closed"] and h["id"] not in keeps)
        sysc = lambda h: h["closed"]
        def rank(is_closed, w):
            hs = [dict(h, s=h["score"] * (w if is_closed(h) else 1.0)) for h in raw if not (w == 0 and is_closed(h))]
            return sorted(hs, key=lambda h: -h["s"])
        k = r["kind"]
        def variant(closed_fn):
            if k == "current-fact": return rank(closed_fn, 0)
            if k == "changed-fact": return rank(closed_fn, 1.0)
            return rank(closed_fn, 0.5)
        for name, val in [("base", r["precision_at_1"]), ("sim_x05_system", p1(gold, rank(sysc, 0.5))),
                          ("tense_oracle_system_closing", p1(gold, variant(sysc))),
                          ("tense_oracle_perfect_closing", p1(gold, variant(perf)))]:
            for key in ("all", k):
                acc.setdefault((name, key), 0.0); acc[(name, key)] += val
        for key in ("all", k): n[key] = n.get(key, 0) + 1
    out = {}
    for (name, key), v in acc.items(): out.setdefault(key, {"n": n[key]})[name] = round(v / n[key], 3)
    allres[s] = out
    for key in ["all", "current-fact", "changed-fact"]: print(s, key, out[key])
json.dump(allres, open(WORK + "/oracle_tense.json", "w"), indent=1)
