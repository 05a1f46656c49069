#!/usr/bin/env bash
# `strata adjudicate` benchmark: judgement throughput of one batch, --jobs 64 vs --jobs 1.
# Usage: scripts/bench/adjudicate.sh [build-dir=build] [observations=10000]
#   ROUNDS=n (default 3) rounds per --jobs value, alternating 64 and 1; medians are reported.
#
#   A 10,000-observation ledger from scripts/bench/make-ledger.mjs (cached in
#   ${TMPDIR:-/tmp}/strata-bench, shared with run.sh and hash.sh) is adjudicated in full, every
#   observation selected, by a trivial compiled judge: it reads the whole request and answers one
#   fixed valid verdict at once (no sleep, no I/O besides its pipes). So the wall is strata's own
#   cost per judgement: building the anonymised request, spawning and reaping the judge process,
#   validating its answer, re-sealing the observation, appending it to the fsynced
#   <output>.adjudication-journal (group commit), and at the end sealing and atomically writing the
#   10,000-observation output ledger. Each round writes a fresh output (no journal to reuse).
#
#   Columns: wall = the whole command, from exec to exit (ledger load and output write included);
#   judgements/s = judged / wall; speed-up = judgements/s at --jobs 64 over --jobs 1; peak RSS =
#   /usr/bin/time -f %M of strata; CPU = user + sys of strata and the judges it reaped. A third row,
#   `--limit 1`, is the fixed cost of one batch (load and check the ledger, one judgement, seal and
#   write the output) for reference. If --jobs 1 over the whole ledger would take longer than 3
#   minutes (projected from a 500-judgement probe), --jobs 1 runs on a --limit subset instead and
#   the table says so. Every output is checked (observation count, every selected observation
#   judged by the bench judge, `strata verify` on the first round's outputs) outside the timings.
set -euo pipefail

cd "$(dirname "$0")/../.."  # repo root
build=${1:-build}
count=${2:-10000}
rounds=${ROUNDS:-3}
[ -x "$build/strata" ] || { echo "strata binary not found: $build/strata (build it first)" >&2; exit 1; }
for tool in cc python3 node /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done
FIX=${STRATA_FIXTURES:-$(realpath -m ../shared/fixtures/doc-bridge)}  # the checkout's sibling shared/, or $STRATA_FIXTURES
[ -f "$FIX/task-suite-v1.json" ] || { echo "doc-bridge fixtures not found in $FIX (set STRATA_FIXTURES)" >&2; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/strata-adjudicate-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
# A private copy, so a rebuild in the middle of the benchmark cannot swap the binary under it.
cp "$build/strata" "$T/strata"
strata=$T/strata
"$strata" --help >/dev/null 2>&1 || { echo "$build/strata does not run (being rebuilt?)" >&2; exit 1; }
cache=${TMPDIR:-/tmp}/strata-bench
mkdir -p "$cache"

log() { echo "[bench] $*" >&2; }
now_ns() { date +%s%N; }
secs() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }  # ns -> s
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }  # KB -> MiB
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.0f", n / (t / 1e9) }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
maxv() { printf '%s\n' "$@" | sort -g | tail -n 1; }
all_secs() { local s=""; for v in "$@"; do s+="$(secs "$v") "; done; echo "${s% }"; }

# --- the ledger, the judge, the adjudicator config --------------------------------------------
ledger=$cache/ledger-$count.json
if [ ! -s "$ledger" ] || [ scripts/bench/make-ledger.mjs -nt "$ledger" ]; then
  log "generating $ledger ..."
  node scripts/bench/make-ledger.mjs "$count" "$ledger.partial.$$"
  mv "$ledger.partial.$$" "$ledger"  # only a complete file is ever reused
fi
"$strata" verify "$ledger" >/dev/null || { echo "bench: $ledger does not verify" >&2; exit 1; }

cat >"$T/judge.c" <<'C'
#include <unistd.h>
int main(void) {
  char buf[65536];
  ssize_t n;
  while ((n = read(0, buf, sizeof buf)) > 0) {}
  if (n < 0) return 4;
  static const char out[] = "{\"outcome\":\"success\",\"confidence\":0.5,\"reasonCodes\":[\"bench\"]}\n";
  return write(1, out, sizeof out - 1) == (ssize_t)(sizeof out - 1) ? 0 : 5;
}
C
cc -O2 -o "$T/judge" "$T/judge.c"
python3 - "$T" <<'PY'
import json, sys
T = sys.argv[1]
json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1",
           "providers": [{"modelId": "low-cost-model", "scenarioIds": ["repository-only"], "command": "true",
                          "providerNetwork": False, "maxInputBytes": 1000, "maxOutputBytes": 1000}],
           "adjudicator": {"id": "bench-judge", "modelId": "reference-model", "command": f"{T}/judge", "args": [],
                           "envAllowlist": [], "providerNetwork": False, "maxInputBytes": 1000000,
                           "maxOutputBytes": 10000,
                           "pricing": {"currency": "USD", "inputPerMillionUsd": 2, "cachedInputPerMillionUsd": 1,
                                       "outputPerMillionUsd": 4}}},
          open(f"{T}/judge.payload.json", "w"))
PY
"$strata" seal provider-config "$T/judge.payload.json" -o "$T/judge.json" >/dev/null
suite=$FIX/task-suite-v1.json

# adjudicate <output> <jobs> [more args]: one batch under /usr/bin/time; prints
# "<wall ns> <peak RSS KB> <CPU s>". Aborts the bench when strata fails.
adjudicate() {
  local out=$1 jobs=$2 start end
  shift 2
  rm -f "$out" "$out".*
  start=$(now_ns)
  /usr/bin/time -f '%M %U %S' -o "$T/time" "$strata" adjudicate "$ledger" "$suite" --adjudicator "$T/judge.json" \
    --output "$out" --jobs "$jobs" "$@" --text >"$T/stdout" 2>"$T/stderr" ||
    { echo "bench: strata adjudicate --jobs $jobs failed: $(head -c 400 "$T/stderr")" >&2; exit 1; }
  end=$(now_ns)
  grep -qx "Adjudicated observations: $count" "$T/stdout" || { echo "bench: unexpected output: $(cat "$T/stdout")" >&2; exit 1; }
  read -r kb user sys <"$T/time"
  echo "$((end - start)) $kb $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')"
}

# check <output> <judged>: the first <judged> observations carry the bench judge's verdict, the
# rest their original adjudication; the checkpoint journal was emptied at the end.
check() {
  python3 - "$1" "$2" "$ledger" <<'PY' || { echo "bench: output check failed: $1" >&2; exit 1; }
import json, sys
out, judged, source = sys.argv[1], int(sys.argv[2]), sys.argv[3]
a = json.load(open(source))["observations"]
b = json.load(open(out))["observations"]
assert len(a) == len(b)
for i, (x, y) in enumerate(zip(a, b)):
    adj = y["adjudication"]
    if i < judged:
        assert (adj["status"], adj["actor"], adj["method"], adj["outcome"]) == \
            ("automated", "bench-judge", "independent-rubric-v1", "success"), (i, adj)
        assert x["execution"] == y["execution"] and x["task"] == y["task"], i
    else:
        assert x == y, i
PY
  [ ! -s "$1.adjudication-journal" ] || { echo "bench: journal not emptied: $1" >&2; exit 1; }
}

# --- --jobs 1: the whole ledger, or a subset when that would take more than 3 minutes ----------
log "probe: --jobs 1 --limit 500 and the fixed cost (--limit 1)"
read -r fixed_ns fixed_kb fixed_cpu < <(adjudicate "$T/fixed.json" 1 --limit 1)
check "$T/fixed.json" 1
read -r probe_ns _ _ < <(adjudicate "$T/probe.json" 1 --limit 500)
projected=$(awk -v f="$fixed_ns" -v p="$probe_ns" -v n="$count" 'BEGIN { printf "%.0f", (f + (p - f) * n / 500) / 1e9 }')
one_limit=$count
if [ "$projected" -gt 180 ]; then
  one_limit=$(awk -v f="$fixed_ns" -v p="$probe_ns" 'BEGIN { n = int(150e9 / ((p - f) / 500)); print n < 500 ? 500 : n }')
  [ "$one_limit" -lt "$count" ] || one_limit=$count
  log "--jobs 1 over $count judgements is projected at ${projected} s: measuring it on the first $one_limit"
fi
one_args=()
[ "$one_limit" = "$count" ] || one_args=(--limit "$one_limit")

# --- the rounds: --jobs 64 and --jobs 1 alternate ----------------------------------------------
w64=() w1=() k64=() k1=() c64=() c1=()
for r in $(seq "$rounds"); do
  log "round $r/$rounds: --jobs 64, $count judgements"
  read -r ns kb cpu < <(adjudicate "$T/out-64.json" 64)
  w64+=("$ns") k64+=("$kb") c64+=("$cpu")
  [ "$r" != 1 ] || { check "$T/out-64.json" "$count"; "$strata" verify "$T/out-64.json" >/dev/null; }
  log "round $r/$rounds: --jobs 1, $one_limit judgements"
  read -r ns kb cpu < <(adjudicate "$T/out-1.json" 1 "${one_args[@]}")
  w1+=("$ns") k1+=("$kb") c1+=("$cpu")
  [ "$r" != 1 ] || { check "$T/out-1.json" "$one_limit"; "$strata" verify "$T/out-1.json" >/dev/null; }
done
m64=$(median "${w64[@]}") m1=$(median "${w1[@]}")
r64=$(rate "$count" "$m64") r1=$(rate "$one_limit" "$m1")

echo
echo "## strata adjudicate: $count-observation ledger, trivial compiled judge ($rounds rounds, medians)"
echo
echo "| Run | Judgements | Median wall (s) | Judgements/s | Speed-up | Peak RSS (MiB, max) | CPU user+sys (s, median) | All rounds (s) |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
echo "| \`--jobs 64\` | $count | $(secs "$m64") | $r64 | **$(awk -v a="$r64" -v b="$r1" 'BEGIN { printf "%.2f", a / b }')x** | $(mib "$(maxv "${k64[@]}")") | $(median "${c64[@]}") | $(all_secs "${w64[@]}") |"
echo "| \`--jobs 1\`$([ "$one_limit" = "$count" ] || echo " \`--limit $one_limit\` (subset)") | $one_limit | $(secs "$m1") | $r1 | 1.00x | $(mib "$(maxv "${k1[@]}")") | $(median "${c1[@]}") | $(all_secs "${w1[@]}") |"
echo "| \`--limit 1\` (fixed cost, reference) | 1 | $(secs "$fixed_ns") | - | - | $(mib "$fixed_kb") | $fixed_cpu | $(secs "$fixed_ns") |"
echo
echo "Speed-up = judgements/s at --jobs 64 / judgements/s at --jobs 1. Both walls include the fixed cost."
if [ "$one_limit" != "$count" ]; then
  echo "--jobs 1 ran on the first $one_limit observations only: the whole ledger was projected at ${projected} s (> 3 min)."
fi
echo "Ledger: $(stat -c %s "$ledger" | awk '{ printf "%.1f", $1 / 1048576 }') MiB, $count observations. Cores: $(nproc). Load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
