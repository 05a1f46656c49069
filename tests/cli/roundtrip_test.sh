#!/usr/bin/env bash
# A generated ledger of 100,000 observations (written by an independent Node.js
# implementation, scripts/bench/make-ledger.mjs) round-trips through strata: parse,
# validate, re-hash, re-serialise — byte-identical. Also verified observation by observation.
# Usage: roundtrip_test.sh <strata binary> [count]
set -u
STRATA=$(realpath "$1")
COUNT=${2:-${STRATA_ROUNDTRIP_COUNT:-100000}}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${TMPDIR:-/tmp}/strata-roundtrip
mkdir -p "$CACHE"
LEDGER=$CACHE/ledger-$COUNT.json
if [ ! -s "$LEDGER" ] || [ "$ROOT/scripts/bench/make-ledger.mjs" -nt "$LEDGER" ]; then
  node "$ROOT/scripts/bench/make-ledger.mjs" "$COUNT" "$LEDGER.tmp" >/dev/null && mv "$LEDGER.tmp" "$LEDGER"
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
failures=0
if ! "$STRATA" seal ledger "$LEDGER" -o "$OUT/resealed.json"; then
  echo "FAIL: strata could not re-seal the generated ledger" >&2
  failures=$((failures + 1))
elif ! cmp -s "$LEDGER" "$OUT/resealed.json"; then
  echo "FAIL: re-serialised ledger differs: $(cmp "$LEDGER" "$OUT/resealed.json")" >&2
  failures=$((failures + 1))
fi
if ! "$STRATA" verify "$LEDGER" >"$OUT/verify.json"; then
  echo "FAIL: strata verify rejected the generated ledger" >&2
  failures=$((failures + 1))
fi
checks=2
# Regression: a run that would take a full ledger past 100,000 observations is refused
# before anything runs, and the ledger is left as it was.
if [ "$COUNT" -eq 100000 ]; then
  checks=3
  for kind in task-suite run-plan provider-config repository-config; do
    "$STRATA" seal "$kind" "$ROOT/examples/study/$kind.payload.json" -o "$OUT/$kind.json"
  done
  cp "$LEDGER" "$OUT/full.json"
  (cd "$ROOT" && PATH="$(dirname "$STRATA"):$PATH" "$STRATA" run "$OUT/run-plan.json" "$OUT/task-suite.json" \
     --providers "$OUT/provider-config.json" --repositories "$OUT/repository-config.json" --ledger "$OUT/full.json") \
     >"$OUT/run.out" 2>"$OUT/run.err"
  code=$?
  if [ "$code" -ne 2 ] || ! grep -q "would exceed the limit of 100000" "$OUT/run.err" || ! cmp -s "$LEDGER" "$OUT/full.json" \
     || [ -s "$OUT/full.json.journal" ]; then
    echo "FAIL: a run past 100,000 observations was not refused cleanly (exit $code: $(cat "$OUT/run.err"))" >&2
    failures=$((failures + 1))
  fi
fi
echo "$(( checks - failures )) passed, $failures failed"
[ "$failures" -eq 0 ]
