"""hubstat.py RUNDIR...: per run, records first for >= 3 questions (hubs) and the questions they take, and P@1 of the
questions whose gold is an introduction message (a chat's first long user message)."""
import json, sys, collections
for d in sys.argv[1:]:
    rows = [json.loads(l) for l in open(d + "/results.jsonl")]
    c = collections.Counter((r["chat_id"], r["top_hit"]) for r in rows)
    w = collections.Counter((r["chat_id"], r["top_hit"]) for r in rows if r["precision_at_1"] == 0)
    hubs = [k for k, n in c.items() if n >= 3]
    print(f"{d:40s} hubs(>=3 firsts) {len(hubs):3d} taking {sum(c[k] for k in hubs):3d} q, wrong {sum(w[k] for k in hubs):3d}; "
          f"records first for >=2 wrong: {sum(1 for k,n in w.items() if n>=2)} ({sum(n for n in w.values() if n>=2)} q)")
