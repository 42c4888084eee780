#!/usr/bin/env bash
# Runs the tests that talk to loopback servers (learned limits, the framework adapters and
# their examples) several times in a row while every core is kept busy, to show that none
# depends on timing or machine load. Usage: scripts/under-load.sh [runs] [test paths...]
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
shift || true
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
  tests=(src/context/limits/learned-limit.test.ts src/context/chat/cache-and-usage.test.ts src/integrations test/examples-adapters.test.ts)
fi
load=()
for _ in $(seq "$(nproc)"); do
  (while :; do :; done) &
  load+=($!)
done
trap 'kill "${load[@]}" 2>/dev/null' EXIT
passed=0
for i in $(seq "$runs"); do
  if npx vitest run "${tests[@]}" >"/tmp/under-load-$i.log" 2>&1; then
    passed=$((passed + 1))
    echo "run $i: passed"
  else
    echo "run $i: FAILED (see /tmp/under-load-$i.log)"
  fi
done
echo "$passed of $runs runs passed under a load of $(nproc) busy loops"
[ "$passed" -eq "$runs" ]
