"""Items whose outcome differs between two write_side.py outputs: python diff_items.py A.json B.json"""
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
for s in a:
    ia={(i['msg'],i['frm'],i['contains'],i['expect']):i['ok'] for i in a[s]['items']}
    for i in b[s]['items']:
        k=(i['msg'],i['frm'],i['contains'],i['expect'])
        if ia.get(k)!=i['ok']: print(s, 'FIXED' if i['ok'] else 'BROKE', k)
