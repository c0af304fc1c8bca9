#!/usr/bin/env bash
# compose.yaml itself, run by a compose tool (podman-compose by default; COMPOSE="docker compose" elsewhere):
#   1. `up -d` of the three services as compose.yaml declares them (server + PostgreSQL/pgvector + worker);
#   2. add a memory and wait for it; add one with "wait": false (pending) and wait for the worker to process it;
#      search finds both;
#   3. `down` (the containers are removed, the named database volume stays) and `up -d` again: the same search
#      still finds both;
#   4. `down -v`.
# Prints each step; exit 0 only if every check passed. Images as for bench/container_smoke.sh: MEMDESK_IMAGE is
# compose.yaml's `memdesk:local` (built here beforehand; `--no-build`), PGVECTOR_IMAGE defaults to the local
# localhost/pgvector:pg16 (docker/pgvector.Dockerfile).
#
# podman without systemd (this machine: a container itself) runs no health checks by itself: podman schedules them
# with systemd timers. So the script plays the timer (HEALTH_TICK=1, the default with podman): every 3 s it runs
# `podman healthcheck run` on each compose container that has one, which runs the check compose.yaml declares and
# records its result, as the timer would. podman-compose waits for `condition: service_healthy` only on podman
# >= 4.6 (older: it warns and starts the dependents at once; the server then retries its connection through its
# restart policy). The script prints which of these applied.
#
#   pip install podman-compose   # in a venv of its own; COMPOSE=/path/to/podman-compose
#   CONTAINERS_CONF=/path/containers.conf bench/compose_smoke.sh | tee bench/results/container/compose.txt
set -euo pipefail
cd "$(dirname "$0")/.."
COMPOSE=${COMPOSE:-podman-compose}
ENGINE=${ENGINE:-podman}
HEALTH_TICK=${HEALTH_TICK:-$([ "$ENGINE" = podman ] && echo 1 || echo 0)}
export PGVECTOR_IMAGE=${PGVECTOR_IMAGE:-localhost/pgvector:pg16}
PORT=${PORT:-18031}
export MEMDESK_PUBLISH="127.0.0.1:$PORT"
export MEMDESK_API_KEYS="compose-admin-key-$(date +%s)"
export POSTGRES_PASSWORD="compose-pw-$$"
KEY=$MEMDESK_API_KEYS
PROJECT=memdesk  # compose.yaml's name
step() { echo "[$(date -u +%H:%M:%S)] $*"; }
containers() { $ENGINE ps -a --filter "label=io.podman.compose.project=$PROJECT" --filter "label=com.docker.compose.project=$PROJECT" --format '{{.Names}}' 2>/dev/null | sort -u; }
container_of() { $ENGINE ps --format '{{.Names}}' | grep -E "^${PROJECT}[_-]$1[_-]1$" | head -1; }
TICKER=
stop_ticker() { if [ -n "$TICKER" ]; then kill "$TICKER" 2>/dev/null || true; wait "$TICKER" 2>/dev/null || true; TICKER=; fi; }
start_ticker() {  # the health-check timer podman would get from systemd
  [ "$HEALTH_TICK" = 1 ] || return 0
  ( while true; do
      for c in $($ENGINE ps --format '{{.Names}}' | grep -E "^${PROJECT}[_-]" || true); do
        $ENGINE healthcheck run "$c" >/dev/null 2>&1 || true
      done
      sleep 3
    done ) &
  TICKER=$!
}
cleanup() {
  stop_ticker
  $COMPOSE -f compose.yaml down -v >/dev/null 2>&1 || true
}
trap cleanup EXIT
api() {  # api METHOD PATH [JSON]
  curl -sS --fail-with-body -X "$1" -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
    "http://127.0.0.1:$PORT$2" ${3:+--data "$3"}
}
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local until=$(( $(date +%s) + $1 )); local what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -gt "$until" ]; then
      step "FAIL: $what"
      $COMPOSE -f compose.yaml ps || true
      for s in server worker db; do c=$(container_of $s || true); [ -n "$c" ] && $ENGINE logs --tail 20 "$c"; done
      exit 1
    fi
    sleep 1
  done
  step "ok: $what"
}
healthy() { [ "$($ENGINE inspect --format '{{.State.Health.Status}}' "$(container_of "$1")" 2>/dev/null)" = healthy ]; }
search_finds_both() {
  local hits; hits=$(api POST /v1/memories/search '{"user_id":"ana","query":"What does Ana keep and where does her sister live?"}')
  echo "$hits" | grep -q "bees on the roof" && echo "$hits" | grep -q "sister lives in Tartu"
}
up() {
  start_ticker
  $COMPOSE -f compose.yaml up -d --no-build 2>&1 | grep -iE "warn|error|ignored" | sed 's/^/    compose: /' || true
  step "running: $(containers | tr '\n' ' ')"
  wait_for 90 "db healthy (compose.yaml's pg_isready check, run by podman)" healthy db
  wait_for 150 "server healthy (compose.yaml's memdesk-entrypoint healthcheck, run by podman)" healthy server
  wait_for 60 "worker running" sh -c "[ -n \"\$($ENGINE ps --format '{{.Names}}' | grep -E '^${PROJECT}[_-]worker[_-]1$')\" ]"
}

step "$($COMPOSE version 2>/dev/null | tr '\n' ' ') ($ENGINE $($ENGINE --version | awk '{print $NF}')); health ticker: $HEALTH_TICK"
$COMPOSE -f compose.yaml down -v >/dev/null 2>&1 || true
up
api GET /healthz && echo
api POST /v1/memories '{"user_id":"ana","messages":["I keep bees on the roof of our building."]}' >/dev/null
step "ok: added one memory (wait: true)"
api POST /v1/memories '{"user_id":"ana","messages":["My sister lives in Tartu now."],"wait":false}' >/dev/null
step "ok: added one message with wait: false (pending, for the worker)"
wait_for 60 "the worker processed the pending message" sh -c "curl -sS -H 'Authorization: Bearer $KEY' 'http://127.0.0.1:$PORT/v1/messages?user_id=ana' | grep -q '\"pending\":true' && exit 1 || exit 0"
wait_for 30 "search finds both memories" search_finds_both
step "compose down (containers removed, volume kept), then up again"
stop_ticker
$COMPOSE -f compose.yaml down >/dev/null 2>&1
step "after down: $(containers | wc -l) containers; volumes: $($ENGINE volume ls --format '{{.Name}}' | grep -E "^${PROJECT}[_-]" | tr '\n' ' ')"
up
wait_for 30 "after down and up, search still finds both memories" search_finds_both
api GET "/v1/memories?user_id=ana" | python3 -c 'import json,sys; print("memories of ana:", [m.get("text", m.get("fact")) for m in json.load(sys.stdin)])'
step "PASS"
