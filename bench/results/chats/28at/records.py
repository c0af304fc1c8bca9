"""The records labelled both closed and kept (heldout8a/8b/9a/9b), one row each: the category read by hand (CAT),
the label items attached to it, and how many main and a branch run satisfy.

    python records.py /tmp/28at/r7 heldout9a heldout9b heldout8a heldout8b > records.tsv

Inputs (not committed): the record inventories of session 11's dumps (/tmp/28hr/dump-<set>.jsonl, written by
../session11-misses/scripts/dump.py), the chat files' labels, and report.md of main (/tmp/lead/start12-<set>) and
of the run given (<prefix>-<set>). Writes ids and counts only."""
import json, sys, re
from collections import defaultdict
# category per source message (manual reading of the 51 records, see README)
CAT = {
 "h9a-02-m3": "list", "h9a-05-m3": "one-clause", "h9a-05-m1": "list", "h9a-06-m3": "time-apart", "h9a-07-m7": "list",
 "h9a-07-m9": "one-clause", "h9a-08-m3": "list", "h9a-08-m1": "two-sentences", "h9a-09-m1": "two-sentences", "h9a-10-m1": "list",
 "h9a-11-m5": "implied", "h9a-11-m35": "one-clause", "h9a-11-m14": "list", "h9a-11-m9": "one-clause", "h9a-12-m27": "one-clause",
 "h9a-12-m7": "list", "h9a-13-m3": "introduction", "h9a-13-m32": "one-clause", "h9a-14-m11": "time-apart", "h9a-14-m7": "list",
 "h8a-02-m11": "subject-clause", "h8a-03-m7": "list", "h8a-05-m5": "one-clause", "h8a-06-m3": "introduction", "h8a-07-m5": "one-clause",
 "h8a-07-m3": "list", "h8a-07-m11": "one-clause", "h8a-08-m11": "one-clause", "h8a-09-m3": "subject-clause", "h8a-14-m1": "one-clause",
 "h8b-01-m7": "list", "h8b-02-m21": "one-clause", "h8b-02-m7": "time-apart", "h8b-04-m3": "time-apart", "h8b-04-m7": "time-apart",
 "h8b-05-m3": "one-clause", "h8b-07-m3": "one-clause", "h8b-07-m8": "one-clause", "h8b-07-m4": "one-clause", "h8b-08-m4": "time-apart",
 "h8b-09-m5": "one-clause", "h8b-10-m3": "one-clause", "h8b-11-m3": "one-clause",
}
def unsat(path):
    out = set()
    for l in open(path):
        m = re.match(r"- after (\S+): records of (\S+) containing '(.*)' should be (closed|current)", l)
        if m: out.add((m.group(1), m.group(2), m.group(3).lower()))
    return out
rows = []
for s in sys.argv[2:]:
    chats = {json.loads(l)["id"]: json.loads(l) for l in open(f"/work/wt-28at/bench/data/chats/{s}.jsonl")}
    inv = {}
    for l in open(f"/tmp/28hr/dump-{s}.jsonl"):
        d = json.loads(l)
        if "inventory" in d: inv[d["chat"]] = d["inventory"]
    base = unsat(f"/tmp/lead/start12-{s}/report.md"); new = unsat(f"{sys.argv[1]}-{s}/report.md")
    for cid, chat in chats.items():
        closes, keeps = defaultdict(list), defaultdict(list)
        for lab in chat["labels"].get("supersession", []):
            for kind, bag in (("closes", closes), ("keeps", keeps)):
                for ref in lab.get(kind, []):
                    for x in inv[cid]:
                        if ref["from"] in x["prov"] and ref["contains"].lower() in x["text"].lower():
                            bag[x["id"]].append((lab["message_id"], ref["from"], ref["contains"].lower()))
        for rid in sorted(set(closes) & set(keeps)):
            x = next(x for x in inv[cid] if x["id"] == rid)
            src = closes[rid][0][1]
            items = [("close",) + i for i in closes[rid]] + [("keep",) + i for i in keeps[rid]]
            b = sum(1 for it in items if it[1:] not in base); a = sum(1 for it in items if it[1:] not in new)
            rows.append((s, src, len(x["prov"]) > 1 and "multi" or "", CAT.get(src, "?"), len(items), b, a,
                         ";".join(f"{k}@{m}" for k, m, _, _ in items)))
print("set\tsource_message\tcategory\tlabel_items\tsatisfied_main\tsatisfied_after\titems")
for r in rows: print(f"{r[0]}\t{r[1]}\t{r[3]}\t{r[4]}\t{r[5]}\t{r[6]}\t{r[7]}")
from collections import Counter
c = Counter(r[3] for r in rows); print("#", dict(c), file=sys.stderr)
