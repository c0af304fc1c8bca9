import os
"""Ingest a chat set once (chat_replay's store), then dump per question the top-10 ranking (default and with no
superseded demotion), each hit's record facts, and the scope's record inventory. Analysis only."""
import json, sys
from pathlib import Path
sys.path.insert(0, os.path.join(os.environ.get("WT", "."), "bench"))
from chat_replay import open_work, ingest
from memdesk.eval.chat_run import ChatEval
from memdesk.eval.datasets.chats import load_chats

data, work, out = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
chats = load_chats(data)
mem = open_work(work)
ingest(mem, chats, work)
base_w = mem.retriever.superseded_weight

def rec(h):
    r = h.record
    return {"id": r.id, "prov": list(r.provenance), "role": r.role, "speaker": r.speaker, "type": r.type,
            "closed": r.valid_to is not None or r.superseded_by is not None, "score": h.score, "text": r.text()}

with open(out, "w") as f:
    for chat in chats.chats:
        scope = ChatEval.scope_of(chat)
        allrecs = mem.get_all(scope=scope, filters={"include_superseded": True})
        inv = [{"id": r.id, "prov": list(r.provenance), "role": r.role, "closed": r.valid_to is not None or r.superseded_by is not None,
                "text": r.text()} for r in allrecs]
        f.write(json.dumps({"chat": chat.id, "inventory": inv}) + "\n")
        for q in chat.questions:
            mem.retriever.superseded_weight = base_w
            hits = mem.search(q.question, scope=scope, asked_at=q.asked_at, K=10)
            mem.retriever.superseded_weight = 1.0
            raw = mem.search(q.question, scope=scope, asked_at=q.asked_at, K=20)
            mem.retriever.superseded_weight = base_w
            f.write(json.dumps({"chat": chat.id, "qid": q.id, "hits": [rec(h) for h in hits], "raw": [rec(h) for h in raw]}) + "\n")
            f.flush()
