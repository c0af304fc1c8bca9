"""Cosine-only ranking over each chat's current records (all records for changed-fact questions), with the record's
embedding text varied: its own text; its text after the preceding message when that is the assistant's question;
its text after the preceding message always; its whole source message. P@1 of each. An estimate of what context-shaped
embedding (issue 28: 'context may shape how it is embedded but never its text') could give on the cosine signal."""
import json, sys
import numpy as np
from load import load, WORK
from memdesk.embed import make_embedder
from memdesk.embed.base import embed_queries
from memdesk.settings import Settings
emb = make_embedder(Settings())
def unit(m): return m / np.linalg.norm(m, axis=1, keepdims=True)
out = {}
for s in sys.argv[1:]:
    chats, res, inv, dump = load(s)
    msgs = {m["id"]: m for d in chats.values() for m in d["messages"]}
    prev = {}
    for d in chats.values():
        for a, b in zip(d["messages"], d["messages"][1:]): prev[b["id"]] = a
    variants = {
        "own_text": lambda x: x["text"],
        "prev_if_assistant_question": lambda x: ((prev[x["prov"][0]]["content"] + " ") if x["prov"] and x["prov"][0] in prev and prev[x["prov"][0]]["role"] == "assistant" and prev[x["prov"][0]]["content"].rstrip().endswith("?") else "") + x["text"],
        "prev_always": lambda x: ((prev[x["prov"][0]]["content"] + " ") if x["prov"] and x["prov"][0] in prev else "") + x["text"],
        "whole_source_message": lambda x: " ".join(msgs[p]["content"] for p in x["prov"] if p in msgs) or x["text"],
    }
    acc = {k: 0 for k in variants}; acc_by = {}
    qs = list(res.values())
    qv = unit(embed_queries(emb, [r["question"] for r in qs]))
    vecs = {}
    for cid in chats:
        for k, fn in variants.items():
            vecs[(cid, k)] = unit(emb.embed([fn(x) for x in inv[cid]]))
    for i, r in enumerate(qs):
        recs = inv[r["chat_id"]]
        keep = [j for j, x in enumerate(recs) if r["kind"] == "changed-fact" or not x["closed"]]
        for k in variants:
            sc = vecs[(r["chat_id"], k)][keep] @ qv[i]
            top = recs[keep[int(np.argmax(sc))]]
            hit = bool(set(top["prov"]) & set(r["gold_message_ids"]))
            acc[k] += hit
            acc_by.setdefault(k, {}).setdefault(r["kind"], [0, 0]); acc_by[k][r["kind"]][0] += hit; acc_by[k][r["kind"]][1] += 1
    out[s] = {k: round(v / len(qs), 3) for k, v in acc.items()}
    print(s, out[s], flush=True)
json.dump(out, open(WORK + "/ctxemb.json", "w"), indent=1)
