"""Dump every resolved time expression of LoCoMo dev turns (per sentence, prefer=auto), each read with the session's
earlier turns (up to 6, as the rule extractor reads them) when the tree's resolve takes them; for the tree on
PYTHONPATH. Usage: python locomo_times_ctx.py OUT.json"""
import inspect, json, re, sys
from datetime import datetime
from memdesk.timeexpr.resolve import resolve

takes = "earlier" in inspect.signature(resolve).parameters
d = json.load(open('/work/shared/data/locomo/locomo_dev5.json'))
out = {}
for c in d:
    conv = c['conversation']
    for k, v in conv.items():
        if not re.fullmatch(r"session_\d+", k):
            continue
        ref = datetime.strptime(conv[k + "_date_time"].strip(), "%I:%M %p on %d %B, %Y")
        for j, t in enumerate(v):
            earlier = "\n".join(x.get("text", "") for x in v[max(0, j - 6):j])
            for i, sent in enumerate(re.split(r"(?<=[.!?])\s+", t.get("text", ""))):
                ms = resolve(sent, ref, prefer="auto", earlier=earlier) if takes else resolve(sent, ref, prefer="auto")
                if ms:
                    out[f"{c['sample_id']}:{t['dia_id']}:{i}"] = [[m.text, m.label] for m in ms]
json.dump(out, open(sys.argv[1], "w"))
print(len(out))
