"""Which labelled seed-1212 records the code at PYTHONPATH still makes (by message, view and text)."""
import csv, json, sys
from collections import defaultdict
sys.path.insert(0, '/work/wt-28lf3/bench')
from memdesk.conversation.base import RoutedExtraction, Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.files import read_conversations
from memdesk.conversation.filler import FillerTest
from memdesk.conversation.router import RuleRouter
from memdesk.records import Scope
R = '/work/wt-28lf3/bench/results/'
rows = list(csv.DictReader(open('/tmp/28lf3/s1212.tsv'), delimiter='\t'))
a = {j['id']: j for j in map(json.loads, open(R + '28lf2/locomo_s12_28lf2_dcf3a12.jsonl'))}
b = {j['id']: j for j in map(json.loads, open(R + '28lq/locomo_s12_second_labeller.jsonl'))}
want = defaultdict(set)
for r in rows:
    conv, rest = r['id'].split('/', 1)
    want[conv].add(rest.split('#')[0])
f = FillerTest.packaged()
proc = RoutedExtraction(RuleRouter(filler=f), RuleExtractor(filler=f))
made = defaultdict(set)
for conv in read_conversations('/work/shared/data/locomo/locomo_dev5.json'):
    msgs = conv.messages
    for i, m in enumerate(msgs):
        mid = m.id or f"m{i}"
        if mid not in want[conv.id]:
            continue
        u = Utterance(message_id=mid, message=m, scope=Scope(user_id=conv.id), context=msgs[max(0, i - 4):i])
        for r in proc.process([u])[0].records:
            made[(conv.id, mid, str(r.metadata.get('view')))].add(r.body())
gone = {'filler_a': 0, 'filler_b': 0, 'both': 0, 'fact_a': 0, 'fact_b': 0, 'fact_both': 0}
for r in rows:
    conv, rest = r['id'].split('/', 1)
    mid, view, _ = rest.split('#')
    if r['text'] in made[(conv, mid, view)]:
        continue
    la, lb = a[r['id']]['label'], b[r['id']]['label']
    gone['filler_a'] += la == 'filler'; gone['filler_b'] += lb == 'filler'; gone['both'] += la == lb == 'filler'
    gone['fact_a'] += la == 'fact'; gone['fact_b'] += lb == 'fact'; gone['fact_both'] += la == lb == 'fact'
    print(f"GONE {la[:4]}/{lb[:4]} {r['id']:32} {r['text'][:140]}")
print(json.dumps(gone))
