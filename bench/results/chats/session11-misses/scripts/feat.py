import os
from load import WT, RUNS, WORK  # noqa: F401
import json, re, sys
from collections import Counter, defaultdict
from load import load, first_rank
STOP = set("""a an the of to in on at for from by with and or but is are was were be been being do does did done has have had
what which who whom whose when where why how much many now still first before after then than this that these those it its
his her their he she they them him i my me we our you your says said say tell told ask asked assistant user about any there
into up out over per each usually normally currently at_first start started""".split())
def words(t, names=()):
    ws = re.findall(r"[a-zà-ÿ0-9]+", t.lower())
    return {w[:5] for w in ws if w not in STOP and w not in names and len(w) > 1}
PAST = re.compile(r"\b(first|before|originally|at the start|used to|previous|old|earlier|in (january|february|march|april|may|june|july|august|september|october|november|december)|when (she|he|they) started|was .* at first)\b", re.I)

def features(s):
    chats, res, inv, dump = load(s)
    msgs = {m["id"]: m for d in chats.values() for m in d["messages"]}
    top_count = Counter()
    for q, r in res.items():
        if r["top_provenance"]: top_count[(r["chat_id"], tuple(r["top_provenance"]))] += 1
    rows = []
    for q, r in res.items():
        chat = chats[r["chat_id"]]; gold = r["gold_message_ids"]
        names = {w.lower() for w in re.findall(r"\w+", (chat.get("user") or "") + " " + (chat.get("assistant") or ""))}
        qw = words(r["question"], names)
        gw = set().union(*[words(msgs[g]["content"], names) for g in gold])
        grec = [x for x in inv[r["chat_id"]] if set(x["prov"]) & set(gold)]
        acc = [a.lower() for a in r["accept"]]
        ans_in = lambda t: any(a in t.lower() for a in acc)
        gold_roles = {msgs[g]["role"] for g in gold}
        d = dump[q]; top = d["hits"][0] if d["hits"] else None
        # supersession relations
        closes_of_gold, gold_closes = set(), set()
        for lab in chat["labels"].get("supersession", []):
            for ref in lab.get("closes", []):
                if lab["message_id"] in gold: closes_of_gold.add(ref["from"])
                if ref["from"] in gold: gold_closes.add(lab["message_id"])
        tp = r["top_provenance"]
        f = dict(set=s, qid=q, chat=r["chat_id"], kind=r["kind"], bucket=r["records_bucket"], p1=r["precision_at_1"],
                 rank=r["first_gold_rank"], correct=r["correct"],
                 gold_role="/".join(sorted(gold_roles)), top_role=top["role"] if top else None,
                 top_closed=top["closed"] if top else None,
                 gold_stored=bool(grec), gold_current=any(not x["closed"] for x in grec),
                 gold_has_answer=any(ans_in(x["text"]) for x in grec),
                 gold_msg_has_answer=any(ans_in(msgs[g]["content"]) for g in gold),
                 top_has_answer=bool(top) and ans_in(top["text"]),
                 top_msg_has_answer=any(ans_in(msgs[p]["content"]) for p in tp if p in msgs),
                 q_gold_overlap=len(qw & gw), q_top_overlap=len(qw & words(r["top_hit"] or "", names)),
                 top_len=len((r["top_hit"] or "").split()), top_hub=top_count[(r["chat_id"], tuple(tp))],
                 top_is_old=bool(set(tp) & closes_of_gold), top_is_new=bool(set(tp) & gold_closes),
                 top_earlier=bool(tp) and min(msgs[p]["time"] for p in tp if p in msgs) < min(msgs[g]["time"] for g in gold),
                 asks_past=bool(PAST.search(r["question"])), asks_now=bool(re.search(r"\bnow\b|current", r["question"], re.I)),
                 n_records=len(inv[r["chat_id"]]))
        rows.append(f)
    return rows

def auto(f):
    if f["p1"] >= 1: return None
    if f["top_msg_has_answer"] and not f["top_is_old"]: return "LABEL"
    if not f["gold_has_answer"] and f["gold_msg_has_answer"]: return "NOT_STORED"
    if f["top_role"] != "user" and f["gold_role"] == "user" or (f["gold_role"] == "assistant" and f["top_role"] == "user"): return "ROLE"
    if f["top_is_old"] and not f["asks_past"]: return "OLD_VALUE"
    if f["top_is_new"] and f["asks_past"]: return "NEW_VALUE"
    if f["kind"] == "list": return "LIST"
    return "?"
if __name__ == "__main__":
    for s in sys.argv[1:]:
        with open(WORK + f"/feat-{s}.jsonl", "w") as fh:
            for f in features(s):
                f["auto"] = auto(f); fh.write(json.dumps(f) + "\n")
