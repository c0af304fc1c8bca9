"""Answer lab (as run for bench/results/28ea): cache each question's evidence block and the records of each hit's
message (what Memory.answer passes as ``mates``) over stores that bench/chat_replay.py ingested into /tmp/28ea/st-SET,
then re-run the extractive answerer of whatever source tree is on PYTHONPATH, question by question.

build: answer_lab.py build SET   -> /tmp/28ea/ev-SET.pkl
eval:  answer_lab.py eval SET... [--save NAME] [--cmp NAME] [--show]
"""
import json, pickle, sys, statistics
from pathlib import Path
sys.path.insert(0, "/work/wt-28ea/bench")
from memdesk.eval import metrics as M

D = Path("/tmp/28ea")

def build(s):
    from chat_replay import open_work
    from memdesk.eval.chat_run import ChatEval
    from memdesk.eval.datasets.chats import load_chats
    from memdesk.conversation.inputs import as_scope
    chats = load_chats(Path(f"/work/wt-28ea/bench/data/chats/{s}.jsonl"))
    memory = open_work(D / f"st-{s}")
    runner = ChatEval(memory)
    out = []
    for chat in chats.chats:
        scope = runner.scope_of(chat)
        for q in chat.questions:
            ev = memory.evidence(q.question, scope=scope, asked_at=q.asked_at)
            mates = {h.record.id: list(memory.retriever.same_message(as_scope(scope), h.record)) for h in ev.hits}
            out.append(dict(id=q.id, kind=q.kind, q=q.question, accept=q.accept, gold=list(q.gold_message_ids),
                            asked_at=q.asked_at, qt=q.asked_at.isoformat(), ev=ev, mates=mates))
    memory.close()
    pickle.dump(out, open(D / f"ev-{s}.pkl", "wb"))
    print(s, len(out))

def run(s):
    from memdesk.conversation.answer import ExtractiveAnswerer
    A = ExtractiveAnswerer()
    rows = []
    for it in pickle.load(open(D / f"ev-{s}.pkl", "rb")):
        mates = it["mates"]
        a = A.answer(it["q"], it["ev"], question_time=it["qt"], asked_at=it["asked_at"],
                     mates=lambda r: mates.get(r.id, []))
        hits = it["ev"].hits
        p1 = bool(hits) and bool(set(hits[0].record.provenance) & set(it["gold"]))
        rows.append(dict(id=it["id"], q=it["q"], accept=it["accept"], p1=p1, answer=a.answer,
                         right=M.accepted(a.answer, it["accept"]),
                         top=[(h.record.text(), bool(set(h.record.provenance) & set(it["gold"])), round(h.score, 3)) for h in hits[:5]]))
    return rows

if __name__ == "__main__":
    if sys.argv[1] == "build":
        for s in sys.argv[2:]: build(s)
        sys.exit()
    args = sys.argv[2:]
    save = args[args.index("--save") + 1] if "--save" in args else None
    cmp = args[args.index("--cmp") + 1] if "--cmp" in args else None
    show = "--show" in args
    sets = [a for a in args if not a.startswith("--") and a not in (save, cmp)]
    allrows = {}
    tot = [0, 0, 0, 0]; lens = []
    for s in sets:
        rows = run(s); allrows[s] = rows
        n = len(rows); r = sum(x["right"] for x in rows)
        g = [x for x in rows if x["p1"]]; gw = sum(not x["right"] for x in g)
        lens += [len(x["answer"]) for x in rows]
        tot[0] += n; tot[1] += r; tot[2] += len(g); tot[3] += gw
        line = f"{s:12} n={n} ans={r/n:.3f} ({r}) gold-first wrong={gw}/{len(g)}"
        if cmp:
            old = {x["id"]: x for x in json.load(open(D / f"rows-{cmp}-{s}.json"))}
            plus = [x for x in rows if x["right"] and not old[x["id"]]["right"]]
            minus = [x for x in rows if not x["right"] and old[x["id"]]["right"]]
            line += f"  +{len(plus)} -{len(minus)}"
            if show:
                for tag, xs in (("+", plus), ("-", minus)):
                    for x in xs:
                        print(f"  {tag} {x['id']} Q: {x['q']} acc={x['accept']}\n      new: {x['answer'][28:230]}\n      old: {old[x['id']]['answer'][28:230]}")
        print(line)
        if save:
            json.dump(rows, open(D / f"rows-{save}-{s}.json", "w"))
    print(f"ALL n={tot[0]} ans={tot[1]/tot[0]:.4f} ({tot[1]}) gold-first wrong={tot[3]}/{tot[2]} median_len={statistics.median(lens)}")
