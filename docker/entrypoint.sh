#!/bin/sh
# The container's entrypoint (also runs outside a container: tests/test_container_recipe.py).
#   serve [ARGS]    memdesk serve on $MEMDESK_HOST:$MEMDESK_PORT (default 0.0.0.0:8000); needs MEMDESK_API_KEYS
#   worker [ARGS]   memdesk worker: processes pending messages (add with wait=false) every --interval
#   healthcheck     exit 0 if GET /healthz on the local server answers 200
#   anything else   passed to memdesk (e.g. `keys create --user ana`, `export --user ana`, `copy SRC DST`)
set -eu
command="${1:-serve}"
[ "$#" -gt 0 ] && shift
case "$command" in
  serve)
    if [ -z "${MEMDESK_API_KEYS:-}" ] && [ "${MEMDESK_HOST:-0.0.0.0}" != "127.0.0.1" ]; then
      echo "memdesk-entrypoint: set MEMDESK_API_KEYS (admin keys, comma-separated) to serve beyond loopback" >&2
      exit 2
    fi
    exec memdesk serve --host "${MEMDESK_HOST:-0.0.0.0}" --port "${MEMDESK_PORT:-8000}" "$@"
    ;;
  worker)
    exec memdesk worker "$@"
    ;;
  healthcheck)
    exec python3 -c 'import os, sys, urllib.request
url = "http://127.0.0.1:%s/healthz" % os.environ.get("MEMDESK_PORT", "8000")
try:
    sys.exit(0 if urllib.request.urlopen(url, timeout=4).status == 200 else 1)
except Exception as e:
    print(e, file=sys.stderr)
    sys.exit(1)'
    ;;
  *)
    exec memdesk "$command" "$@"
    ;;
esac
