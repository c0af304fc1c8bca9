import os
from load import WT, RUNS, WORK  # noqa: F401
import json, sys
import numpy as np
from load import load
from memdesk.embed import make_embedder
from memdesk.embed.base import embed_queries
from memdesk.settings import Settings
emb = make_embedder(Settings())
def unit(m): return m / np.linalg.norm(m, axis=1, keepdims=True)
from load import read_labels
labels = read_labels()
out = {}
for s in sys.argv[1:]:
    chats, res, inv, dump = load(s)
    msgs = {m["id"]: m for d in chats.values() for m in d["messages"]}
    prev = {}
    for d in chats.values():
        for a, b in zip(d["messages"], d["messages"][1:]): prev[b["id"]] = a
    def ctx(x):
        p = prev.get(x["prov"][0]) if x["prov"] else None
        return (p["content"] + " " + x["text"]) if p else x["text"]
    qs = list(res.values())
    qv = unit(embed_queries(emb, [r["question"] for r in qs]))
    own, cx, whole = {}, {}, {}
    for cid in chats:
        own[cid] = unit(emb.embed([x["text"] for x in inv[cid]]))
        cx[cid] = unit(emb.embed([ctx(x) for x in inv[cid]]))
        whole[cid] = unit(emb.embed([" ".join(msgs[p]["content"] for p in x["prov"] if p in msgs) or x["text"] for x in inv[cid]]))
    combos = {"own": (1, 0, 0), "own+0.3prev": (1, .3, 0), "own+0.5prev": (1, .5, 0), "own+0.3msg": (1, 0, .3), "own+0.5msg": (1, 0, .5), "max(own,prev)": None}
    acc = {k: 0 for k in combos}; accL = {}
    for i, r in enumerate(qs):
        recs = inv[r["chat_id"]]; cid = r["chat_id"]
        keep = [j for j, x in enumerate(recs) if r["kind"] == "changed-fact" or not x["closed"]]
        a, b, c = own[cid][keep] @ qv[i], cx[cid][keep] @ qv[i], whole[cid][keep] @ qv[i]
        for k, w in combos.items():
            sc = np.maximum(a, b) if w is None else w[0] * a + w[1] * b + w[2] * c
            top = recs[keep[int(np.argmax(sc))]]
            hit = bool(set(top["prov"]) & set(r["gold_message_ids"]))
            acc[k] += hit
            L = labels.get(r["question_id"])
            if L: accL.setdefault(k, {}).setdefault(L, [0, 0]); accL[k][L][0] += hit; accL[k][L][1] += 1
    out[s] = {k: round(v / len(qs), 3) for k, v in acc.items()}
    print(s, out[s], flush=True)
    for k in ["own", "own+0.5prev", "own+0.5msg"]:
        print("   fused-path misses now first by cosine variant", k, {L: f"{v[0]}/{v[1]}" for L, v in sorted(accL.get(k, {}).items())})
json.dump(out, open(WORK + "/ctxemb2.json", "w"), indent=1)
