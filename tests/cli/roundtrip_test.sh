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
echo "$(( 2 - failures )) passed, $failures failed"
[ "$failures" -eq 0 ]
