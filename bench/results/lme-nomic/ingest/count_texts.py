"""What the default write path embeds for one whole LongMemEval haystack: texts, texts after per-call dedup,
characters (a hashing embedder: the records do not depend on the vectors except through supersession).

    python count_texts.py longmemeval 75499fd8
"""
import sys, tempfile, json
from collections import Counter
from memdesk.eval.run import load_dataset
from memdesk.conversation.memory import build_memory
from memdesk.embed import HashingEmbedder
from memdesk.settings import Settings
from memdesk.store import open_store
bench, cid = sys.argv[1], sys.argv[2]
ds=load_dataset(bench,None); conv=ds.conversations[cid]
sess={}
for m in conv.messages: sess.setdefault(conv.session_of[m.id],[]).append(m)
calls=[]
class Counting(HashingEmbedder):
    def embed(self, texts):
        calls.append(list(texts)); return super().embed(texts)
s=Settings.load()
with tempfile.TemporaryDirectory() as t:
    mem=build_memory(s,store=open_store(f"sqlite:///{t}/a.db"), embedder=Counting())
    for b in sess.values(): mem.add(b,scope={"user_id":"x"})
    mem.close()
n=len(conv.messages); mc=sum(len(m.content) for m in conv.messages)
texts=[x for c in calls for x in c]; uniq=[x for c in calls for x in dict.fromkeys(c)]
out={"conversation":cid,"messages":n,"message_chars":mc,"embed_calls":len(calls),"texts":len(texts),"texts_per_message":round(len(texts)/n,2),
 "texts_deduped_per_call":len(uniq),"chars":sum(map(len,texts)),"chars_deduped_per_call":sum(map(len,uniq)),
 "unique_texts_whole_haystack":len(set(texts))}
print(json.dumps(out))
