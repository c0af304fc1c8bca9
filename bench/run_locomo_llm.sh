#!/usr/bin/env bash
# The LLM-scored LoCoMo comparison: memdesk's default evidence vs flat RAG (25 raw turns, about the same
# token budget or more), the same local reader and the same judge, on a seeded sample stratified over
# categories and conversations. Resumable: run it again with the same OUT and it continues.
#
#   bash bench/run_locomo_llm.sh                       # defaults below
#   LIMIT=100 SEED=0 THREADS=1 THREADS_BATCH=2 bash bench/run_locomo_llm.sh
#
# Needs: the assembled model (python -m memdesk.llm.local assemble ...) at $GGUF and `pip install xllamacpp`.
# It starts `python -m memdesk.llm.local serve` on $PORT, waits for it, runs `memdesk eval locomo --llm`
# and stops the server again (also when interrupted). On 2 idle cores the 1.5B model needs about 25 s
# per question and system (answer + judge); far longer when other jobs hold the cores.
# CATEGORIES=headline (the default) samples LoCoMo's categories 1-4 only: LIMIT=100 gives 100 headline
# questions (CATEGORIES=all keeps the adversarial ones in the draw).
# Results: $OUT/{results.jsonl,summary.json,report.md}; copy them to bench/results/$DEST when done.
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL="${MODEL:-qwen2.5-coder-1.5b}"
GGUF="${GGUF:-$HOME/models/$MODEL-q4_k_m.gguf}"
PORT="${PORT:-8080}"
LIMIT="${LIMIT:-100}"
CATEGORIES="${CATEGORIES:-headline}"
SEED="${SEED:-0}"
SYSTEMS="${SYSTEMS:-memdesk-default,flat-rag}"  # memdesk-default is always measured: what Memory.open() builds
OUT="${OUT:-${TMPDIR:-/tmp}/memdesk-eval/locomo-llm-$LIMIT}"
THREADS="${THREADS:-$(nproc)}"
THREADS_BATCH="${THREADS_BATCH:-$THREADS}"
DEST="${DEST:-}"

mkdir -p "$(dirname "$OUT")"
python -m memdesk.llm.local serve "$MODEL" "$GGUF" --port "$PORT" --threads "$THREADS" --threads-batch "$THREADS_BATCH" \
  > "$OUT.server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$PORT/v1/models" > /dev/null; do
  kill -0 "$server" 2>/dev/null || { echo "the server exited; see $OUT.server.log" >&2; exit 1; }
  sleep 2
done

export MEMDESK_LLM_BASE_URL="http://127.0.0.1:$PORT/v1" MEMDESK_LLM_MODEL="$MODEL"
export MEMDESK_LLM_TIMEOUT_S="${MEMDESK_LLM_TIMEOUT_S:-1800}" MEMDESK_LLM_CONCURRENCY=1
cats=(); [ "$CATEGORIES" = all ] || cats=(--categories "$CATEGORIES")
start=$(date +%s)
python -m memdesk.eval locomo --out "$OUT" --limit "$LIMIT" --seed "$SEED" "${cats[@]}" --systems "$SYSTEMS" --no-sweep --llm --quiet
echo "took $(( $(date +%s) - start )) s" >&2
if [ -n "$DEST" ]; then
  mkdir -p "bench/results/$DEST"
  cp "$OUT/summary.json" "$OUT/report.md" "$OUT/results.jsonl" "bench/results/$DEST/"
fi
