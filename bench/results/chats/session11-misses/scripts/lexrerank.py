"""Within the fused top k, prefer the candidate sharing the most content words (stemmed) with the question, ties by
the fused order: how far a plain lexical joint reading of question and record goes (no model)."""
import json, re
from load import load
from feat import words
def p1(gold, hits): return 1.0 if hits and set(hits[0]["prov"]) & set(gold) else 0.0
for s in ["heldout9a", "heldout9b", "heldout8a", "heldout8b"]:
    chats, res, inv, dump = load(s)
    out = {}
    for k in (2, 3, 5):
        tot = 0
        for q, r in res.items():
            chat = chats[r["chat_id"]]
            names = {w.lower() for w in re.findall(r"\w+", (chat.get("user") or "") + " " + (chat.get("assistant") or ""))}
            qw = words(r["question"], names)
            hs = dump[q]["hits"]
            top = sorted(range(min(k, len(hs))), key=lambda i: (-len(qw & words(hs[i]["text"], names)), i))
            tot += p1(r["gold_message_ids"], [hs[i] for i in top])
        out[f"top{k}"] = round(tot / len(res), 3)
    print(s, "fused", round(sum(r["precision_at_1"] for r in res.values()) / len(res), 3), "lexical re-rank within", out)
