import os
from load import WT, RUNS, WORK  # noqa: F401
import json, sys, re
from memdesk.retrieval.question_now import asks_then
from load import load
from load import oracle_closed
def p1(gold, hits): return 1.0 if hits and set(hits[0]["prov"]) & set(gold) else 0.0
res_all = {}
for s in sys.argv[1:]:
    chats, res, inv, dump = load(s)
    acc = {k: 0.0 for k in ["base", "sim", "perfect_x05", "perfect_drop", "system_drop", "perfect_drop_then_aware", "top2", "top3", "top5", "top10"]}
    n = 0
    for q, r in res.items():
        chat = chats[r["chat_id"]]; gold = r["gold_message_ids"]; d = dump[q]; raw = d["raw"]
        closes, keeps = oracle_closed(chat, inv[r["chat_id"]])
        then = asks_then(r["question"])
        def rank(is_closed, w):
            hs = []
            for h in raw:
                c = is_closed(h) and not then
                if c and w == 0: continue
                hs.append(dict(h, s=h["score"] * (w if c else 1.0)))
            return sorted(hs, key=lambda h: -h["s"])
        sysc = lambda h: h["closed"]
        perf = lambda h: (h["id"] in closes) or (h["closed"] and h["id"] not in keeps)
        n += 1
        acc["base"] += r["precision_at_1"]
        acc["sim"] += p1(gold, rank(sysc, 0.5))
        acc["perfect_x05"] += p1(gold, rank(perf, 0.5))
        acc["perfect_drop"] += p1(gold, rank(perf, 0))
        acc["system_drop"] += p1(gold, rank(sysc, 0))
        # perfect + past questions see only closed (then-aware): for asks_then questions prefer closed records
        if then:
            hs = sorted(raw, key=lambda h: -(h["score"] * (1.0 if perf(h) else 0.5)))
            acc["perfect_drop_then_aware"] += p1(gold, hs)
        else:
            acc["perfect_drop_then_aware"] += p1(gold, rank(perf, 0))
        fr = r["first_gold_rank"]
        for k in (2, 3, 5, 10): acc[f"top{k}"] += 1.0 if fr is not None and fr <= k else 0.0
    res_all[s] = {k: round(v / n, 3) for k, v in acc.items()} | {"n": n}
    print(s, res_all[s])
json.dump(res_all, open(WORK + "/oracles.json", "w"), indent=1)
