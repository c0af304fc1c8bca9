"""introstat.py SET BASE NEW (run from the repository root, PYTHONPATH=src): questions whose gold or whose first hit is a message the introduction split writes apart."""
import json, sys
from memdesk.conversation.atoms import introduction
from memdesk.conversation.sentences import split_sentences
name, base, new = sys.argv[1:4]
intro = set()
for line in open(f"bench/data/chats/{name}.jsonl"):
    c = json.loads(line)
    for m in c["messages"]:
        if m["role"] == "user" and any(introduction(s) for s in split_sentences(m["content"])):
            intro.add(m["id"])
def load(d): return {r["question_id"]: r for r in map(json.loads, open(d + "/results.jsonl"))}
a, b = load(base), load(new)
g = [q for q in a if set(a[q]["gold_message_ids"]) & intro]
ta = [q for q in a if set(a[q]["top_provenance"]) & intro]
tb = [q for q in b if set(b[q]["top_provenance"]) & intro]
print(f"{name}: {len(intro)} intro messages; gold-intro q {len(g)}: P@1 {sum(a[q]['precision_at_1'] for q in g):.0f} -> {sum(b[q]['precision_at_1'] for q in g):.0f}; "
      f"first hit from an intro: {len(ta)} q ({sum(1-a[q]['precision_at_1'] for q in ta):.0f} wrong) -> {len(tb)} q ({sum(1-b[q]['precision_at_1'] for q in tb):.0f} wrong)")
