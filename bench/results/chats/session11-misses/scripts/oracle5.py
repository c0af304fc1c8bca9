import os
from load import WT, RUNS, WORK  # noqa: F401
import json, sys, re
from load import load, oracle_closed
from memdesk.retrieval.question_now import asks_then
PAST = re.compile(r"\b(first|before|originally|at the start|used to|previous|earlier|in (january|february|march|april|may|june|july|august|september|october|november|december)|started|at first|stop|stopped|old)\b", re.I)
from load import read_labels
labels = read_labels()
def p1(gold, hits): return 1.0 if hits and set(hits[0]["prov"]) & set(gold) else 0.0
for s in sys.argv[1:]:
    chats, res, inv, dump = load(s)
    for mode in ["kind", "regex"]:
        gain, loss = [], []
        for q, r in res.items():
            chat = chats[r["chat_id"]]; gold = r["gold_message_ids"]; raw = dump[q]["raw"]
            closes, keeps = oracle_closed(chat, inv[r["chat_id"]])
            perf = lambda h: (h["id"] in closes) or (h["closed"] and h["id"] not in keeps)
            past = (r["kind"] == "changed-fact") if mode == "kind" else (asks_then(r["question"]) or bool(PAST.search(r["question"])))
            hs = sorted([h for h in raw if past or not perf(h)], key=lambda h: -h["score"])
            new = p1(gold, hs)
            if new > r["precision_at_1"]: gain.append((q, labels.get(q, "?")))
            if new < r["precision_at_1"]: loss.append((q, r["kind"], any(set(h["prov"]) & set(gold) and perf(h) for h in raw)))
        print(s, mode, "gains", len(gain), [g[1] for g in gain], "losses", len(loss), loss)
