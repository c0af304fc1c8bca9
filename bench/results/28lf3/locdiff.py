import json
from collections import defaultdict
a = json.load(open('/tmp/28lf3/loc_main.json')); b = json.load(open('/tmp/28lf3/loc_br.json'))
def by_msg(d):
    m = defaultdict(list)
    for k, t in d.items():
        conv, rest = k.split('/', 1); mid, view, _ = rest.split('#')
        m[(conv, mid)].append((view, t))
    return m
A, B = by_msg(a), by_msg(b)
data = json.load(open('/work/shared/data/locomo/locomo_dev5.json'))
gold = set()
for c in data:
    for q in c['qa']:
        if q.get('category') in (1, 2, 3, 4):
            for e in q.get('evidence', []):
                gold.add((c['sample_id'], e.strip()))
removed = []; added = []
for key in set(A) | set(B):
    sa, sb = A.get(key, []), B.get(key, [])
    for x in sa:
        if x not in sb: removed.append((key, x))
    for x in sb:
        if x not in sa: added.append((key, x))
print('records main', len(a), 'branch', len(b), 'removed', len(removed), 'added', len(added))
for key, (view, t) in sorted(removed):
    g = 'GOLD' if key in gold else '    '
    left = len(B.get(key, []))
    print(f"- {g} {key[0]}/{key[1]}#{view} (left {left}): {t[:150]}")
for key, (view, t) in sorted(added):
    print(f"+ {key[0]}/{key[1]}#{view}: {t[:150]}")
nog_a = sum(1 for g in gold if not A.get(g)); nog_b = sum(1 for g in gold if not B.get(g))
print('gold turns', len(gold), 'with no record: main', nog_a, 'branch', nog_b)
