#!/usr/bin/env bash
# Schemathesis against every OpenAPI document the service serves (issue #13).
#
# Boots the whole service the way an integrator runs it (`npm run dev`: Temporal dev server, worker,
# API, PGlite, in a throwaway DATA_DIR, on free loopback ports), then runs a pinned Schemathesis 4
# from PyPI against each served document (live and sandbox of every surface), authenticated with
# the dev business's key of that environment, with the checks not_a_server_error,
# status_code_conformance, content_type_conformance and response_schema_conformance. Bounded:
# ST_MAX_EXAMPLES cases per operation (default 15) and ST_MAX_TIME seconds per document (default 40).
# Per-key rate limits are off for the run (a fuzzer is one key firing as fast as it can).
#
# Prints one line per document, "schemathesis <doc>: <N> failures", and exits non-zero when any
# document has a failure. Reports (JUnit, NDJSON) in $ST_OUT (default .ci-tmp/schemathesis).
#
#   bash tools/schemathesis.sh                # all documents
#   ST_DOCS=/sandbox/v1 bash tools/schemathesis.sh   # one base address
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
ST_VERSION=4.32.5
VENV=${ST_VENV:-$ROOT/.tools/schemathesis-$ST_VERSION}
OUT=${ST_OUT:-$ROOT/.ci-tmp/schemathesis}
MAX_EXAMPLES=${ST_MAX_EXAMPLES:-15}
MAX_TIME=${ST_MAX_TIME:-40}
WORKERS=${ST_WORKERS:-1}
mkdir -p "$OUT"

if [ ! -x "$VENV/bin/schemathesis" ]; then
  echo "Installing schemathesis==$ST_VERSION into $VENV"
  python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "schemathesis==$ST_VERSION" || { echo "could not install schemathesis"; exit 1; }
fi

DATA=$(mktemp -d /tmp/payouts-schemathesis.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
DEV_PID=""
cleanup() {
  if [ -n "$DEV_PID" ]; then
    # npm run dev is tsx's child: stop the process that holds the data directory, then the parent
    OWNER=$(node -e 'try{process.stdout.write(String(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).pid))}catch{}' "$DATA/pglite.lock")
    [ -n "$OWNER" ] && kill -INT "$OWNER" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$DEV_PID" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$DEV_PID" 2>/dev/null
    [ -n "$OWNER" ] && kill -KILL "$OWNER" 2>/dev/null
  fi
  rm -rf "$DATA"
}
trap cleanup EXIT

echo "Starting the service (npm run dev) on 127.0.0.1:$PORT, data in $DATA"
env -u DATABASE_URL -u TEMPORAL_ADDRESS DATA_DIR="$DATA" PORT="$PORT" LOG_LEVEL=warn \
  RATE_LIMIT_LIVE_PER_SECOND=0 RATE_LIMIT_SANDBOX_PER_SECOND=0 \
  node_modules/.bin/tsx src/main/dev.ts >"$OUT/service.log" 2>&1 &
DEV_PID=$!
for _ in $(seq 1 600); do
  grep -q 'Payouts backend is running' "$OUT/service.log" 2>/dev/null && break
  kill -0 "$DEV_PID" 2>/dev/null || { cat "$OUT/service.log"; echo "the service did not start"; exit 1; }
  sleep 0.5
done
grep -q 'Payouts backend is running' "$OUT/service.log" || { cat "$OUT/service.log"; echo "the service did not start in time"; exit 1; }
SANDBOX_KEY=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).keys.sandbox)' "$DATA/dev-credentials.json")
LIVE_KEY=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).keys.live)' "$DATA/dev-credentials.json")
ORIGIN="http://127.0.0.1:$PORT"
# Sandbox money, so that payouts can be accepted.
curl -s -o /dev/null -X POST "$ORIGIN/sandbox/v1/sandbox/fund" -H "Authorization: Bearer $SANDBOX_KEY" -H 'Content-Type: application/json' -d '{"amount":"100000"}'

DOCS=${ST_DOCS:-"/sandbox/v1 /v1 /sandbox/claim/v1 /claim/v1 /sandbox/guide/v1 /guide/v1"}
total=0
summary=""
for base in $DOCS; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$ORIGIN$base/openapi.json")
  [ "$code" = 200 ] || { echo "($base/openapi.json not served: skipped)"; continue; }
  case "$base" in /sandbox/*) KEY=$SANDBOX_KEY ;; *) KEY=$LIVE_KEY ;; esac
  name=$(echo "$base" | tr '/' '_' | sed 's/^_//')
  echo "==> schemathesis $base/openapi.json"
  # run from $OUT: Schemathesis keeps its cache (.schemathesis/) in the working directory
  (cd "$OUT" && "$VENV/bin/schemathesis" run "$ORIGIN$base/openapi.json" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
    --header "Authorization: Bearer $KEY" \
    --max-examples "$MAX_EXAMPLES" --max-time "$MAX_TIME" --seed 1 \
    --workers "$WORKERS" --no-color --warnings off --output-truncate true \
    --suppress-health-check all \
    --report junit,ndjson --report-junit-path "$OUT/$name.junit.xml" --report-ndjson-path "$OUT/$name.ndjson" \
    >"$OUT/$name.log" 2>&1)
  # Unique failures as Schemathesis counts them ("N failures in ..." on its last line; "passed": 0).
  last=$(grep -E '^=+ .* in [0-9.]+s =+$' "$OUT/$name.log" | tail -n 1)
  if echo "$last" | grep -qE '[0-9]+ (failures?|errors?)'; then
    failures=$(echo "$last" | grep -oE '[0-9]+ (failures?|errors?)' | awk '{s+=$1} END {print s}')
  elif echo "$last" | grep -qE 'passed|No issues found'; then
    failures=0
  else
    failures=-1 # no summary: the run itself broke
  fi
  if [ "$failures" = 0 ]; then
    tail -n 25 "$OUT/$name.log"
  else
    # The whole report (each failure with its request and a curl line to reproduce it), and what
    # the service logged about its 5xx answers: a CI log is all a reader of a failed run has.
    grep -v -E '^\s*(✅|⏭️|🕛)' "$OUT/$name.log" | head -n 400
    echo "--- service log: requests that failed (5xx), with their errors ---"
    grep -A 40 'request failed' "$OUT/service.log" | head -n 300
  fi
  echo "schemathesis $base: $failures failures"
  summary="$summary\nschemathesis $base: $failures failures"
  [ "$failures" = 0 ] || total=$((total + 1))
done
printf "$summary\n"
[ "$total" = 0 ]
