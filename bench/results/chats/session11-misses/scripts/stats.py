import os
from load import WT, RUNS, WORK  # noqa: F401
import json, sys, re
from collections import Counter, defaultdict
from load import load
out = {}
for s in sys.argv[1:]:
    chats, res, inv, dump = load(s)
    msgs = {m["id"]: m for d in chats.values() for m in d["messages"]}
    prev = {}
    for d in chats.values():
        for a, b in zip(d["messages"], d["messages"][1:]): prev[b["id"]] = a
    F = [json.loads(l) for l in open(WORK + f"/feat-{s}.jsonl")]
    N = len(F); o = {"n": N}
    o["p1"] = round(sum(f["p1"] for f in F) / N, 3)
    o["gold_stored_any_record"] = round(sum(f["gold_stored"] for f in F) / N, 3)
    o["gold_record_has_answer_of_those_whose_msg_has_it"] = "%d/%d" % (sum(f["gold_has_answer"] for f in F if f["gold_msg_has_answer"]), sum(f["gold_msg_has_answer"] for f in F))
    o["gold_record_current"] = round(sum(f["gold_current"] for f in F) / N, 3)
    o["first_hit_assistant_all"] = "%d/%d" % (sum(f["top_role"] == "assistant" for f in F), N)
    o["first_hit_assistant_misses"] = "%d/%d" % (sum(f["top_role"] == "assistant" for f in F if f["p1"] < 1), sum(f["p1"] < 1 for f in F))
    o["gold_role_assistant"] = sum(f["gold_role"] != "user" for f in F)
    def grp(key):
        g = defaultdict(list)
        for f in F: g[key(f)].append(f["p1"])
        return {k: f"{sum(v)/len(v):.3f} ({len(v)})" for k, v in sorted(g.items(), key=lambda kv: str(kv[0]))}
    o["p1_by_kind"] = grp(lambda f: f["kind"])
    o["p1_by_records_bucket"] = grp(lambda f: f["bucket"])
    o["p1_by_q_gold_content_overlap"] = grp(lambda f: min(f["q_gold_overlap"], 2))
    def ell(f):
        gids = res[f["qid"]]["gold_message_ids"]
        return any(prev.get(g) and prev[g]["role"] == "assistant" and prev[g]["content"].rstrip().endswith("?") for g in gids)
    o["p1_gold_follows_assistant_question"] = grp(ell)
    o["p1_gold_msg_words"] = grp(lambda f: "<=12" if min(len(msgs[g]["content"].split()) for g in res[f["qid"]]["gold_message_ids"]) <= 12 else ">12")
    o["p1_by_first_hit_is_hub(first for >=3 q of chat)"] = grp(lambda f: f["top_hub"] >= 3)
    out[s] = o
    print(s, json.dumps(o, indent=1, ensure_ascii=False))
json.dump(out, open(WORK + "/stats.json", "w"), indent=1, ensure_ascii=False)
