#!/bin/bash
# usage: replay_cfg.sh TREE TAG CONFIG [RUNS] -> MiniLM replay of CONFIG on the stores in RUNS/shard-0?
# (default: the aa25063 stores, /tmp/final/l2/runs; /tmp/e2e-30q-fold/runs: the stores of locomo_e2e.sh TREE 30q-fold)
. /work/main/.venv/bin/activate
export PYTHONPATH=$1/src MEMDESK_CONFIG="" OMP_NUM_THREADS=1 MEMDESK_DATA_DIR=/work/shared/data
unset MEMDESK_EMBEDDER
OUT=/tmp/replay-$2.jsonl; rm -f $OUT
for d in ${4:-/tmp/final/l2/runs}/shard-0?; do
  (cd $1 && nice -n 5 python bench/retrieval_replay.py locomo $d --configs $3 --out $OUT > /dev/null 2>&1)
done
python3 -c "
import json
rows=[json.loads(l) for l in open('$OUT')]
N=sum(r['n'] for r in rows)
print('$2', N, *(round(sum(r['n']*r[k] for r in rows)/N,4) for k in ('recall','p@1','mrr@10')), sorted(r['median_tokens'] for r in rows))
"
