#!/usr/bin/env bash
# Reproduce the committed offline conversational results under bench/results/{locomo,longmemeval}:
# packaged MiniLM embedder + offline rule processor, on the shared dev files
# (locomo_dev5.json: 5 conversations, 999 questions; longmemeval_s_dev.json.gz: 101 questions).
#
#   bash bench/run_conv_eval.sh                 # both benchmarks
#   bash bench/run_conv_eval.sh locomo          # one of them
#   RESUME=1 bash bench/run_conv_eval.sh        # continue an interrupted run instead of starting over
#
# Runs live in $MEMDESK_EVAL_WORK (default /tmp/memdesk-eval/<benchmark>): SQLite stores, state and the
# content-hash embedding cache. A fresh run (the default) deletes the stores and results but keeps the
# embedding cache, so re-running after an extractor change re-embeds only the texts that changed.
# Data: $MEMDESK_DATA_DIR or ../shared/data. Extra arguments after `--` go to `memdesk eval`.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="${MEMDESK_EVAL_WORK:-${TMPDIR:-/tmp}/memdesk-eval}"
benches=()
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; extra=("$@"); break ;;
    locomo|longmemeval) benches+=("$1"); shift ;;
    *) echo "usage: $0 [locomo] [longmemeval] [-- memdesk-eval-options]" >&2; exit 2 ;;
  esac
done
[ ${#benches[@]} -eq 0 ] && benches=(locomo longmemeval)

for bench in "${benches[@]}"; do
  run="$WORK/$bench"
  dest="bench/results/$bench"
  if [ "${RESUME:-0}" != "1" ]; then
    rm -f "$run/results.jsonl" "$run/summary.json" "$run/work/state.json" "$run"/work/*.db "$run"/work/*.db-wal "$run"/work/*.db-shm
  fi
  mkdir -p "$run" "$dest"
  echo "== $bench -> $run" >&2
  start=$(date +%s)
  python -m memdesk.eval "$bench" --out "$run" ${extra[@]+"${extra[@]}"}
  echo "== $bench took $(( $(date +%s) - start )) s" >&2
  cp "$run/summary.json" "$run/report.md" "$run"/*.png "$dest/"
  size=$(stat -c %s "$run/results.jsonl")
  rm -f "$dest/results.jsonl" "$dest/results.jsonl.gz"
  if [ "$size" -lt 5000000 ]; then
    cp "$run/results.jsonl" "$dest/"
  else
    gzip -9 -n -c "$run/results.jsonl" > "$dest/results.jsonl.gz"
  fi
done
