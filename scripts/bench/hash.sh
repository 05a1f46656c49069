#!/usr/bin/env bash
# Content-hash verification benchmark: `strata verify` vs the idiomatic Node implementation
# (scripts/bench/verify.mjs) on the same generated observation ledger.
# Usage: scripts/bench/hash.sh [strata-binary=build/strata] [observations=100000]
# Runs alternate (strata, node, strata, node, ...) so drift on a shared machine hits both equally.
set -euo pipefail

cd "$(dirname "$0")/../.."  # repo root, so the default binary path and script paths resolve
strata=${1:-build/strata}
count=${2:-100000}
runs=5

[ -x "$strata" ] || { echo "strata binary not found: $strata (build it first)" >&2; exit 1; }

# Generating 100k observations takes a while; keep the ledger between invocations.
dir=${TMPDIR:-/tmp}/strata-bench
ledger=$dir/ledger-$count.json
mkdir -p "$dir"
if [ ! -s "$ledger" ]; then
  echo "generating $ledger ..." >&2
  node scripts/bench/make-ledger.mjs "$count" "$ledger.partial"
  mv "$ledger.partial" "$ledger"  # only a complete file is ever reused
fi
bytes=$(stat -c %s "$ledger")

# Wall-clock seconds of one run; output is discarded, but a failed verification aborts the bench.
wall() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}

strata_times=() node_times=()
for i in $(seq "$runs"); do
  strata_times+=("$(wall "$strata" verify "$ledger")")
  node_times+=("$(wall node scripts/bench/verify.mjs "$ledger")")
  echo "run $i: strata ${strata_times[-1]}s, node ${node_times[-1]}s" >&2
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ms=$(median "${strata_times[@]}")
mn=$(median "${node_times[@]}")
mbps() { awk -v b="$bytes" -v t="$1" 'BEGIN { printf "%.1f", b / 1e6 / t }'; }

echo
echo "Ledger: $count observations, $bytes bytes ($(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB), $runs runs each, alternating"
echo
echo "| Implementation | Median wall (s) | Throughput (MB/s) | All runs (s) |"
echo "|---|---:|---:|---|"
echo "| \`strata verify\` | $ms | $(mbps "$ms") | ${strata_times[*]} |"
echo "| \`node scripts/bench/verify.mjs\` | $mn | $(mbps "$mn") | ${node_times[*]} |"
echo
echo "Throughput ratio strata/node: $(awk -v s="$ms" -v n="$mn" 'BEGIN { printf "%.2f", n / s }')x"
