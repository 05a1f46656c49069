#!/usr/bin/env bash
# Results benchmark (issues 15, 27): `strata export` of a 100,000-observation ledger, CSV and JSON
# Lines, `strata metrics` (arms, the paired comparison with its clustered intervals, adjusted
# p-values and findings) and `strata report` (the HTML page) of the same ledger, and `strata plan
# --power --effect 0.05` of a 288-execution plan (48 tasks x 2 models x 3 scenarios), beside
# `strata verify` of the same file (every result command verifies the ledger before it writes
# anything; since issue 28 verify streams it too, see scripts/bench/hash.sh); and `strata metrics`
# and `strata report` of a ledger of the same size whose observations carry the records of
# `strata run --verify` (issue 43: the verified rates, the agreement, the claims findings and
# plot, the comparison on the verified outcome).
# Target: <= 10 s and <= 100 MiB peak each.
# Usage: scripts/bench/results.sh [build-dir=build] [observations=100000]
#   ROUNDS=n (default 3) rounds, the commands alternating; medians are reported. The ledger comes
#   from scripts/bench/make-ledger.mjs (cached in ${TMPDIR:-/tmp}/strata-bench, shared with the
#   other benchmarks). Each output is checked outside the timings (row count).
set -euo pipefail

cd "$(dirname "$0")/../.."  # repo root
build=${1:-build}
count=${2:-100000}
rounds=${ROUNDS:-3}
[ -x "$build/strata" ] || { echo "strata binary not found: $build/strata (build it first)" >&2; exit 1; }
for tool in node /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/strata-results-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
cp "$build/strata" "$T/strata"  # a rebuild during the benchmark cannot swap the binary
strata=$T/strata
cache=${TMPDIR:-/tmp}/strata-bench
mkdir -p "$cache"

log() { echo "[bench] $*" >&2; }
now_ns() { date +%s%N; }
secs() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

ledger=$cache/ledger-$count.json
if [ ! -s "$ledger" ] || [ scripts/bench/make-ledger.mjs -nt "$ledger" ]; then
  log "generating $ledger ..."
  node scripts/bench/make-ledger.mjs "$count" "$ledger.partial.$$"
  mv "$ledger.partial.$$" "$ledger"  # only a complete file is ever reused
fi
verified=$cache/ledger-verified-$count.json
if [ ! -s "$verified" ] || [ scripts/bench/make-ledger.mjs -nt "$verified" ]; then
  log "generating $verified ..."
  node scripts/bench/make-ledger.mjs "$count" "$verified.partial.$$" --verified
  mv "$verified.partial.$$" "$verified"
fi
cat "$ledger" "$verified" >/dev/null  # in the page cache for every command alike

# The 288-execution plan: the fixture suite grown to 48 tasks in 12 repositories, one replicate,
# every cell (6 comparisons of 48 pairs).
FIX=${STRATA_FIXTURES:-$(realpath -m ../shared/fixtures/doc-bridge)}  # the checkout's sibling shared/, or $STRATA_FIXTURES
[ -f "$FIX/task-suite-v1.json" ] || { echo "doc-bridge fixtures not found in $FIX (set STRATA_FIXTURES)" >&2; exit 1; }
PYTHONPATH=tests/support python3 - "$T" "$FIX" <<'PY'
import json, sys
from study_payloads import grown_tasks, unsealed
work, fix = sys.argv[1:3]
suite, plan = unsealed(f"{fix}/task-suite-v1.json"), unsealed(f"{fix}/run-plan-v1.json")
ids, tasks = grown_tasks(suite, 12)
suite.update(population=ids, tasks=tasks, replicatesPerTask=1)
plan.update(taskIds=[t["id"] for t in tasks], sampling={"strategy": "balanced-task-strata", "sampleSize": 6 * len(tasks)})
json.dump(suite, open(f"{work}/suite.payload.json", "w"))
json.dump(plan, open(f"{work}/plan.payload.json", "w"))
PY
"$strata" seal task-suite "$T/suite.payload.json" -o "$T/suite.json" >/dev/null
suite_hash=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['contentHash'])" "$T/suite.json")
sed -i "s/\"taskSuiteHash\": \"[0-9a-f]*\"/\"taskSuiteHash\": \"$suite_hash\"/" "$T/plan.payload.json"
"$strata" seal run-plan "$T/plan.payload.json" -o "$T/plan.json" >/dev/null

# timed <name> <command...>: appends "<wall ns> <peak KB>" to $T/<name>.times.
timed() {
  local name=$1 start end
  shift
  start=$(now_ns)
  /usr/bin/time -f %M -o "$T/rss" "$@" >/dev/null
  end=$(now_ns)
  echo "$((end - start)) $(tail -n 1 "$T/rss")" >>"$T/$name.times"
}

for round in $(seq "$rounds"); do
  log "round $round of $rounds"
  timed verify "$strata" verify "$ledger"
  timed csv "$strata" export "$ledger" -o "$T/out.csv"
  timed jsonl "$strata" export "$ledger" --format jsonl -o "$T/out.jsonl"
  timed metrics "$strata" metrics "$ledger" --allow-regressions
  timed report "$strata" report "$ledger" -o "$T/report.html"
  timed power "$strata" plan "$T/plan.json" --suite "$T/suite.json" --power --effect 0.05
  timed vmetrics "$strata" metrics "$verified" --allow-regressions
  timed vreport "$strata" report "$verified" -o "$T/verified-report.html"
done
"$strata" metrics "$verified" --allow-regressions --json >"$T/verified-metrics.json"
python3 - "$T/verified-metrics.json" <<'PY' || { echo "bench: the verified ledger's metrics lack the verified records" >&2; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))["report"]
assert all(a["verified"]["verified"] == a["executions"] for a in r["arms"]), "an arm without its verified records"
assert r["findings"][0]["measure"] == "claims" and all(c.get("successOutcome") == "verified" for c in r["paired"])
PY
[ "$(grep -c '<svg ' "$T/verified-report.html")" = 6 ] || { echo "bench: the verified report lacks its six plots" >&2; exit 1; }
"$strata" plan "$T/plan.json" --suite "$T/suite.json" --power --effect 0.05 --text >"$T/power.txt"
[ "$(grep -c ' 48 pairs in 12 repositories; detects a ' "$T/power.txt")" = 6 ] ||
  { echo "bench: the power of the 288-execution plan is not 6 comparisons of 48 pairs" >&2; cat "$T/power.txt" >&2; exit 1; }
rows_csv=$(($(wc -l <"$T/out.csv") - 1))
rows_jsonl=$(wc -l <"$T/out.jsonl")
[ "$rows_csv" = "$count" ] && [ "$rows_jsonl" = "$count" ] ||
  { echo "bench: expected $count rows, got $rows_csv (csv) and $rows_jsonl (jsonl)" >&2; exit 1; }
[ "$(grep -c '<svg ' "$T/report.html")" = 5 ] || { echo "bench: the report lacks its five plots" >&2; exit 1; }

wall() { median $(cut -d' ' -f1 "$T/$1.times"); }
peak() { cut -d' ' -f2 "$T/$1.times" | sort -g | tail -n 1; }
verify_ns=$(wall verify)
echo "# Results benchmark"
echo
echo "strata: $build/strata (tree $(git describe --always --dirty 2>/dev/null || echo unknown)), $(nproc) cores," \
  "load at start $(cut -d' ' -f1-3 /proc/loadavg); ledger: $count observations, $(stat -c %s "$ledger" | awk '{ printf "%.1f", $1 / 1048576 }') MiB" \
  "(verified: $(stat -c %s "$verified" | awk '{ printf "%.1f", $1 / 1048576 }') MiB); median of $rounds rounds"
echo
echo "| Command | Wall (s) | Peak RSS (MiB) | Wall / verify | Output (MiB) |"
echo "|---|---:|---:|---:|---:|"
echo "| \`strata verify\` | $(secs "$verify_ns") | $(mib "$(peak verify)") | 1.00 | |"
echo "| \`strata export --format csv -o\` | $(secs "$(wall csv)") | $(mib "$(peak csv)") | $(ratio "$(wall csv)" "$verify_ns") | $(stat -c %s "$T/out.csv" | awk '{ printf "%.1f", $1 / 1048576 }') |"
echo "| \`strata export --format jsonl -o\` | $(secs "$(wall jsonl)") | $(mib "$(peak jsonl)") | $(ratio "$(wall jsonl)" "$verify_ns") | $(stat -c %s "$T/out.jsonl" | awk '{ printf "%.1f", $1 / 1048576 }') |"
echo "| \`strata metrics\` (arms, paired comparison) | $(secs "$(wall metrics)") | $(mib "$(peak metrics)") | $(ratio "$(wall metrics)" "$verify_ns") | |"
echo "| \`strata report -o report.html\` | $(secs "$(wall report)") | $(mib "$(peak report)") | $(ratio "$(wall report)" "$verify_ns") | $(stat -c %s "$T/report.html" | awk '{ printf "%.2f", $1 / 1048576 }') |"
echo "| \`strata metrics\` of the verified ledger (agreement, claims findings, verified outcome) | $(secs "$(wall vmetrics)") | $(mib "$(peak vmetrics)") | $(ratio "$(wall vmetrics)" "$verify_ns") | |"
echo "| \`strata report -o report.html\` of the verified ledger (six plots) | $(secs "$(wall vreport)") | $(mib "$(peak vreport)") | $(ratio "$(wall vreport)" "$verify_ns") | $(stat -c %s "$T/verified-report.html" | awk '{ printf "%.2f", $1 / 1048576 }') |"
echo "| \`strata plan --power --effect 0.05\` (288 executions) | $(secs "$(wall power)") | $(mib "$(peak power)") | $(ratio "$(wall power)" "$verify_ns") | |"
echo
echo "The power of the 288-execution plan:"
echo
sed 's/^/    /' "$T/power.txt"
echo
echo "Target: each <= 10 s and <= 100 MiB peak. Load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
