#!/usr/bin/env bash
# Container smoke test: the memdesk image (Dockerfile) serving on PostgreSQL + pgvector with a worker, as compose.yaml
# wires them, run with plain podman (or docker: ENGINE=docker) so it needs no compose tool and no systemd:
#   1. a network, a database volume, a data volume; the database, then the server, then the worker;
#   2. add a memory and wait for it; add one with "wait": false (pending) and wait for the worker to process it;
#      search finds both;
#   3. restart all three containers; the same search still finds both (the data lives in the volumes).
# Prints each step; exit 0 only if every check passed. Images: MEMDESK_IMAGE (default localhost/memdesk:local, built
# from Dockerfile) and PGVECTOR_IMAGE (default localhost/pgvector:pg16, built from docker/pgvector.Dockerfile; the
# official pgvector/pgvector:pg16 works too). On a host where rootful podman needs it (nested, cgroups v1):
#   CONTAINERS_CONF=<file with runtime = "runc" and default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]>
#
#   bench/container_smoke.sh | tee bench/results/container/smoke.txt
set -euo pipefail
ENGINE=${ENGINE:-podman}
MEMDESK_IMAGE=${MEMDESK_IMAGE:-localhost/memdesk:local}
PGVECTOR_IMAGE=${PGVECTOR_IMAGE:-localhost/pgvector:pg16}
PORT=${PORT:-18000}
P=memdesk-smoke
KEY="smoke-admin-key-$(date +%s)"
PW="smoke-pw-$$"
URL="postgresql://memdesk:$PW@$P-db:5432/memdesk"
step() { echo "[$(date -u +%H:%M:%S)] $*"; }
cleanup() {
  $ENGINE rm -f "$P-worker" "$P-server" "$P-db" >/dev/null 2>&1 || true
  $ENGINE volume rm -f "$P-pgdata" "$P-data" >/dev/null 2>&1 || true
  $ENGINE network rm -f "$P-net" >/dev/null 2>&1 || true
}
trap cleanup EXIT
cleanup
api() {  # api METHOD PATH [JSON]
  curl -sS --fail-with-body -X "$1" -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
    "http://127.0.0.1:$PORT$2" ${3:+--data "$3"}
}
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local until=$(( $(date +%s) + $1 )); local what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -gt "$until" ]; then step "FAIL: $what"; $ENGINE logs --tail 30 "$P-server" || true; exit 1; fi
    sleep 1
  done
  step "ok: $what"
}
start_all() {
  $ENGINE start "$P-db" >/dev/null
  wait_for 60 "database accepts connections" $ENGINE exec "$P-db" pg_isready -h /run/postgresql -U memdesk -d memdesk
  $ENGINE start "$P-server" >/dev/null
  wait_for 120 "server healthy (docker/entrypoint.sh healthcheck)" $ENGINE exec "$P-server" memdesk-entrypoint healthcheck
  $ENGINE start "$P-worker" >/dev/null
}
search_finds_both() {
  local hits; hits=$(api POST /v1/memories/search '{"user_id":"ana","query":"What does Ana keep and where does her sister live?"}')
  echo "$hits" | grep -q "bees on the roof" && echo "$hits" | grep -q "sister lives in Tartu"
}

step "images: $MEMDESK_IMAGE, $PGVECTOR_IMAGE ($ENGINE $($ENGINE --version | awk '{print $NF}'))"
$ENGINE network create "$P-net" >/dev/null
$ENGINE volume create "$P-pgdata" >/dev/null
$ENGINE create --name "$P-db" --network "$P-net" -v "$P-pgdata:/var/lib/postgresql/data" \
  -e POSTGRES_USER=memdesk -e POSTGRES_PASSWORD="$PW" -e POSTGRES_DB=memdesk "$PGVECTOR_IMAGE" >/dev/null
$ENGINE create --name "$P-server" --network "$P-net" -p "127.0.0.1:$PORT:8000" \
  -e MEMDESK_DATABASE_URL="$URL" -e MEMDESK_API_KEYS="$KEY" "$MEMDESK_IMAGE" serve >/dev/null
$ENGINE create --name "$P-worker" --network "$P-net" -e MEMDESK_DATABASE_URL="$URL" \
  "$MEMDESK_IMAGE" worker --interval 1 >/dev/null
step "the server runs as: $($ENGINE run --rm --entrypoint id "$MEMDESK_IMAGE")"
start_all
api GET /healthz && echo
api POST /v1/memories '{"user_id":"ana","messages":["I keep bees on the roof of our building."]}' >/dev/null
step "ok: added one memory (wait: true)"
api POST /v1/memories '{"user_id":"ana","messages":["My sister lives in Tartu now."],"wait":false}' >/dev/null
step "ok: added one message with wait: false (pending, for the worker)"
wait_for 60 "the worker processed the pending message" sh -c "curl -sS -H 'Authorization: Bearer $KEY' 'http://127.0.0.1:$PORT/v1/messages?user_id=ana' | grep -q '\"pending\":true' && exit 1 || exit 0"
wait_for 30 "search finds both memories" search_finds_both
step "restarting database, server and worker"
$ENGINE stop -t 10 "$P-worker" "$P-server" "$P-db" >/dev/null
start_all
wait_for 30 "after the restart, search still finds both memories" search_finds_both
api GET "/v1/memories?user_id=ana" | python3 -c 'import json,sys; print("memories of ana:", [m.get("text", m.get("fact")) for m in json.load(sys.stdin)])'
step "PASS"
