#!/usr/bin/env bash
# Content-hash verification benchmark: `strata verify` beside the idiomatic Node implementation
# (scripts/bench/verify.mjs) and the machine's bound (scripts/bench/bound.cpp: read + SHA-256 of
# the file, plus a simdjson parse of the same bytes), on the same generated observation ledger.
# Usage: scripts/bench/hash.sh [strata-binary=build/strata] [observations=100000]
# Rounds alternate (strata, node, bound, strata, ...) so drift on a shared machine hits all
# equally; wall time and peak RSS of each run come from /usr/bin/time.
set -euo pipefail

cd "$(dirname "$0")/../.."  # repo root, so the default binary path and script paths resolve
strata=${1:-build/strata}
count=${2:-100000}
runs=5

[ -x "$strata" ] || { echo "strata binary not found: $strata (build it first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found (Debian package: time)" >&2; exit 1; }

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

# The bound's program needs simdjson (Debian: libsimdjson-dev), installed when missing.
if [ ! -f /usr/include/simdjson.h ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q libsimdjson-dev >/dev/null
fi
bound=$dir/bound
if [ ! -x "$bound" ] || [ scripts/bench/bound.cpp -nt "$bound" ]; then
  g++ -O2 -std=c++17 scripts/bench/bound.cpp -lsimdjson -lcrypto -o "$bound"
fi

# One run under /usr/bin/time: prints "<wall s> <peak RSS KiB>"; the command's stdout goes to
# $dir/last.out, and a failed verification aborts the bench.
timed() {
  /usr/bin/time -f "%e %M" -o "$dir/last.time" "$@" >"$dir/last.out"
  cat "$dir/last.time"
}

echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
strata_wall=() strata_rss=() node_wall=() node_rss=() bound_wall=() bound_parts=()
for i in $(seq "$runs"); do
  read -r wall rss < <(timed "$strata" verify "$ledger")
  strata_wall+=("$wall") strata_rss+=("$rss")
  read -r wall rss < <(timed node scripts/bench/verify.mjs "$ledger")
  node_wall+=("$wall") node_rss+=("$rss")
  # The bound is the time the program measures for its steps (read+sha256 + parse), without
  # its set-up (loading the file whole and sizing the parser's buffers).
  timed "$bound" "$ledger" >/dev/null
  bound_wall+=("$(sed -E -n 's/.* bound ([0-9.]+) .*/\1/p' "$dir/last.out")")
  bound_parts+=("$(sed -E -n 's/^(read\+sha256 [0-9.]+ parse [0-9.]+).*/\1/p' "$dir/last.out")")
  echo "run $i: strata ${strata_wall[-1]} s ${strata_rss[-1]} KiB, node ${node_wall[-1]} s ${node_rss[-1]} KiB, bound ${bound_wall[-1]} s (${bound_parts[-1]})" >&2
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
max() { printf '%s\n' "$@" | sort -g | tail -1; }
mbps() { awk -v b="$bytes" -v t="$1" 'BEGIN { printf "%.1f", b / 1e6 / t }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ms=$(median "${strata_wall[@]}") mn=$(median "${node_wall[@]}") mb=$(median "${bound_wall[@]}")

echo
echo "Ledger: $count observations, $bytes bytes ($(mib $((bytes / 1024))) MiB), $runs rounds, alternating"
echo
echo "| Implementation | Median wall (s) | Throughput (MB/s) | Peak RSS (MiB, max) | All runs (s) |"
echo "|---|---:|---:|---:|---|"
echo "| \`strata verify\` | $ms | $(mbps "$ms") | $(mib "$(max "${strata_rss[@]}")") | ${strata_wall[*]} |"
echo "| \`node scripts/bench/verify.mjs\` | $mn | $(mbps "$mn") | $(mib "$(max "${node_rss[@]}")") | ${node_wall[*]} |"
echo "| bound: read + SHA-256 of the file, simdjson parse | $mb | $(mbps "$mb") | (holds the file) | ${bound_wall[*]} |"
echo
echo "strata / node throughput: $(ratio "$mn" "$ms")x (target: at least 5x)"
echo "strata wall / bound: $(ratio "$ms" "$mb")x (bound split, median round: $(printf '%s\n' "${bound_parts[@]}" | sort -t' ' -k2 -g | sed -n "$(((runs + 1) / 2))p"))"
