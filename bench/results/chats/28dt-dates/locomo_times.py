"""Dump every resolved time expression of LoCoMo dev turns (per sentence, prefer=auto) for the tree on PYTHONPATH."""
import json, re, sys
from memdesk.timeexpr.resolve import resolve
from memdesk.eval.datasets import locomo as L  # noqa
from datetime import datetime
d = json.load(open('/work/shared/data/locomo/locomo_dev5.json'))
out = {}
def parse(s):
    return datetime.strptime(s.strip(), "%I:%M %p on %d %B, %Y")
for c in d:
    conv = c['conversation']
    for k, v in conv.items():
        if not re.fullmatch(r"session_\d+", k): continue
        ref = parse(conv[k + "_date_time"])
        for t in v:
            for i, sent in enumerate(re.split(r"(?<=[.!?])\s+", t.get("text", ""))):
                ms = resolve(sent, ref, prefer="auto")
                if ms:
                    out[f"{c['sample_id']}:{t['dia_id']}:{i}"] = [[m.text, m.label] for m in ms]
json.dump(out, open(sys.argv[1], "w"))
print(len(out))
