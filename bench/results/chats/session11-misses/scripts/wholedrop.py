import json
from collections import defaultdict
from load import load
def p1(gold, hits): return 1.0 if hits and set(hits[0]["prov"]) & set(gold) else 0.0
for s in ["heldout9a","heldout9b","heldout8a","heldout8b"]:
    chats,res,inv,dump=load(s)
    whole=set(); parts_of={}
    for cid in chats:
        bym=defaultdict(list)
        for x in inv[cid]:
            if len(x['prov'])==1: bym[x['prov'][0]].append(x)
        for m,xs in bym.items():
            if len(xs)<3: continue
            xs=sorted(xs,key=lambda x:-len(x['text'])); big=xs[0]; rest=xs[1:]
            if len(big['text'])>=0.8*sum(len(x['text']) for x in rest) and len(rest)>=2: whole.add(big['id'])
    base=sum(r['precision_at_1'] for r in res.values())/len(res)
    sim=sum(p1(r['gold_message_ids'],dump[q]['hits']) for q,r in res.items())/len(res)
    dropped=sum(p1(r['gold_message_ids'],[h for h in dump[q]['hits'] if h['id'] not in whole]) for q,r in res.items())/len(res)
    print(s, f"base {base:.3f} replay {sim:.3f} whole-message records dropped {dropped:.3f}")
