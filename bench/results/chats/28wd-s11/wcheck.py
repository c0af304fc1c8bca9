"""wcheck.py SET...: write-side checks with the hashing embedder: records, small-talk records, wrong dates per set."""
import os, sys, json
os.environ["MEMDESK_CONFIG"] = ""
from memdesk.conversation.memory import build_memory
from memdesk.settings import Settings
from memdesk.eval.datasets.chats import load_chats
from memdesk.eval.chat_run import ChatEval
out = {}
for name in sys.argv[1:]:
    chats = load_chats(f"bench/data/chats/{name}.jsonl")
    mem = build_memory(Settings().model_copy(update={"database_url": "sqlite:///:memory:", "embedder": "hashing"}))
    runner = ChatEval(mem)
    rec = st = wd = dc = 0; sts = []; wds = []
    for chat in chats.chats:
        r = runner.write_chat(chat)
        rec += r.records; st += len(r.small_talk_records); wd += len(r.wrong_dates); dc += r.dates_checked
        sts += [(s.provenance[0], s.text[:70]) for s in r.small_talk_records]
        wds += [(w.message_id, w.found, w.text[:60]) for w in r.wrong_dates]
    print(json.dumps({"set": name, "records": rec, "small_talk": st, "wrong_dates": wd, "dates_checked": dc, "st": sts, "wd": wds}), flush=True)
