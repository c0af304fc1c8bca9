import os
WT = os.environ.get("WT", ".")
RUNS = os.environ.get("RUNS", "/tmp/lead")
WORK = os.environ.get("WORK", "/tmp/28hr")
import json
def first_rank(gold, hits):
    for i, h in enumerate(hits, 1):
        if set(h["prov"]) & set(gold): return i
    return None
def load(s):
    chats = {}
    for l in open(os.path.join(WT, f"bench/data/chats/{s}.jsonl")):
        d = json.loads(l); chats[d["id"]] = d
    res = {json.loads(l)["question_id"]: json.loads(l) for l in open(os.path.join(RUNS, f"final11-{s}/results.jsonl"))}
    inv, dump = {}, {}
    for l in open(WORK + f"/dump-{s}.jsonl"):
        d = json.loads(l)
        if "inventory" in d: inv[d["chat"]] = d["inventory"]
        else: dump[d["qid"]] = d
    return chats, res, inv, dump

def oracle_closed(chat, inv):
    closes, keeps = set(), set()
    for lab in chat["labels"].get("supersession", []):
        for kind, bag in (("closes", closes), ("keeps", keeps)):
            for ref in lab.get(kind, []):
                for x in inv:
                    if ref["from"] in x["prov"] and ref["contains"].lower() in x["text"].lower(): bag.add(x["id"])
    return closes, keeps


def read_labels():
    """question id -> label, from ../labels.tsv (this folder's committed labels)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "labels.tsv")
    rows = [line.rstrip("\n").split("\t") for line in open(path)][1:]
    return {r[1]: r[2] for r in rows}
