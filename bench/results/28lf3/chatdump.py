"""Records the rule processor makes for every message of chat sets (router+extractor, 4 turns of context as the
admission shows them: user turns only), id -> text, to diff main and branch."""
import json, sys
from memdesk.conversation.admission import AdmissionPolicy
from memdesk.conversation.base import RoutedExtraction, Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.filler import FillerTest
from memdesk.conversation.router import RuleRouter
from memdesk.eval.datasets.chats import load_chats
from memdesk.records import Scope
f = FillerTest.packaged()
proc = RoutedExtraction(RuleRouter(filler=f), RuleExtractor(filler=f))
pol = AdmissionPolicy()
out = {}
for s in sys.argv[2:]:
    for chat in load_chats(f'/work/wt-28lf3/bench/data/chats/{s}.jsonl').chats:
        msgs = [m.message() for m in chat.messages]
        for i, m in enumerate(msgs):
            u = Utterance(message_id=m.id, message=m, scope=Scope(user_id=chat.id), context=msgs[max(0, i - 12):i])
            res = pol.process(proc, [u])
            out[f"{s}/{m.id}"] = [r.body() for p in res for r in p.records]
json.dump(out, open(sys.argv[1], 'w'))
print(len(out))
