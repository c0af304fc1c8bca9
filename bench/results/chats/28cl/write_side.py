"""The write side of `memdesk eval chats` only (no questions): supersession closes/keeps, small-talk records and
records per message for chat sets, with the same checks (ChatEval.write_chat), in ~1 minute a set.

usage: PYTHONPATH=<tree>/src python write_side.py OUT.json SET [SET...] [--chats ID,ID] [-v]
(-v prints each unsatisfied item with its records, for study; OUT.json holds ids and labels only)."""
import json, sys, tempfile
from pathlib import Path
from memdesk.settings import Settings
from memdesk.conversation.memory import build_memory
from memdesk.eval.chat_run import ChatEval
from memdesk.eval.datasets.chats import load_chats
args = sys.argv[1:]
verbose = "-v" in args; args = [a for a in args if a != "-v"]
only = None
if "--chats" in args:
    i = args.index("--chats"); only = args[i+1].split(","); del args[i:i+2]
out, sets = args[0], args[1:]
res = {}
with tempfile.TemporaryDirectory() as tmp:
    for s in sets:
        chats = load_chats(Path(__file__).resolve().parents[3] / "data" / "chats" / f"{s}.jsonl")
        if only: chats = chats.only(only)
        memory = build_memory(Settings.load().model_copy(update={"database_url": f"sqlite:///{tmp}/{s}.db"}))
        ev = ChatEval(memory)
        tot = dict(closes=0, closes_ok=0, keeps=0, keeps_ok=0, records=0, messages=0, small=0)
        items = []
        for chat in chats.chats:
            r = ev.write_chat(chat)
            msgs = {m.id: m.content for m in chat.messages}
            tot["records"] += r.records; tot["messages"] += r.messages; tot["small"] += len(r.small_talk_records)
            for c in r.supersession:
                k = "closes" if c.expect == "closed" else "keeps"
                tot[k] += 1; tot[k + "_ok"] += c.ok
                items.append(dict(set=s, msg=c.message_id, frm=c.from_message, contains=c.contains, expect=c.expect, ok=c.ok, matching=c.matching, current=c.current))
                if verbose and not c.ok:
                    print(f"MISS {c.expect} {c.from_message} '{c.contains}' after {c.message_id} ({c.matching} match {c.current} current)")
                    print("   OLD:", msgs[c.from_message][:300]); print("   NEW:", msgs[c.message_id][:300])
                    recs = [x for x in memory.get_all(scope=ev.scope_of(chat), filters={"include_superseded": True}) if c.from_message in x.provenance and c.contains.lower() in x.text().lower()]
                    allr = {y.id: y for y in memory.get_all(scope=ev.scope_of(chat), filters={"include_superseded": True})}
                    for x in recs: print("     by:", allr[x.superseded_by].text()[:120] if x.superseded_by in allr else None)
                    for x in recs: print("     rec:", x.id[:8], x.memory_type.value, "closed" if x.valid_to or x.superseded_by else "CUR", x.text()[:160], [ (cl.get('attribute'), cl.get('op')) for cl in x.metadata.get('claims') or []])
                    nrecs = [x for x in memory.get_all(scope=ev.scope_of(chat), filters={"include_superseded": True}) if c.message_id in x.provenance[:1]]
                    for x in nrecs: print("     new:", x.memory_type.value, x.text()[:160], [ (cl.get('attribute'), cl.get('op'), cl.get('slot')) for cl in x.metadata.get('claims') or []])
        memory.close()
        res[s] = dict(tot=tot, items=items)
        t = tot
        print(f"{s}: closes {t['closes_ok']}/{t['closes']} keeps {t['keeps_ok']}/{t['keeps']} small {t['small']} records/msg {t['records']/max(1,t['messages']):.3f}", flush=True)
Path(out).write_text(json.dumps(res, separators=(",", ":"), ensure_ascii=False))
