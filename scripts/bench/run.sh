#!/usr/bin/env bash
# `strata run` benchmark: process throughput, concurrency, ledger growth and memory.
# Usage: scripts/bench/run.sh [build-dir=build]
#
#   (a) 2,048 executions of a trivial compiled provider at --jobs 64 (4 plans x 512 on one ledger,
#       run one after another, walls summed) vs `xargs -P 64` launching the same provider 2,048
#       times. Baseline choice: xargs runs a variant of the same C program that reads the request
#       from a file named on its command line (`xargs -n 1 p-trivial-file req.json`), where req.json
#       is a real request captured from a strata-launched provider's stdin. No shell is interposed
#       (a `sh -c '... < req.json'` per launch would double the process count and flatter strata);
#       the baseline has no pipes, no output capture and no bookkeeping, so it is a lower bound.
#   (b) 768 executions of a provider that sleeps 200 ms at --jobs 96: ONE invocation of a
#       full-matrix plan (balanced-task-strata, sampleSize 768 = 128 tasks x 2 models x 3
#       scenarios, study-v1 §3.1 step 4) vs the ideal 8 waves x 200 ms = 1.6 s, side by side with
#       `xargs -P 96` launching the same provider 768 times in one invocation (the machine's own
#       launch cost: the floor).
#   (c) ms per completion of a 512-execution plan as the ledger grows from 1,000 to 100,000
#       observations: pre-filled with 1,000, 10,000 and 99,488 observations from
#       scripts/bench/make-ledger.mjs (a ledger holds at most 100,000, so the largest one ends the
#       run at exactly 100,000), plus the time to resume (everything already recorded) on it:
#       answered from <ledger>.verified (target <= 0.3 s and <= 50 MiB on 100,000), and again
#       with the record removed (the full, verified read every resume made before).
#   (d) peak RSS of strata with 500 providers in flight (2 s sleep, 512 executions, --jobs 500)
#       vs the same plan at --jobs 1 with the trivial provider.
#
# (a) and (b) run 3 rounds (in (a) strata and xargs alternate) and report medians; (c) and (d) run
# once. Each part prints a markdown table. Generated ledgers are cached in ${TMPDIR:-/tmp}/strata-bench
# (shared with hash.sh); everything else lives in a temporary directory removed on exit.
set -euo pipefail

cd "$(dirname "$0")/../.."  # repo root
build=${1:-build}
[ -x "$build/strata" ] || { echo "strata binary not found: $build/strata (build it first)" >&2; exit 1; }
for tool in cc python3 node xargs /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done
FIX=${STRATA_FIXTURES:-$(realpath -m ../shared/fixtures/doc-bridge)}  # the checkout's sibling shared/, or $STRATA_FIXTURES
[ -f "$FIX/task-suite-v1.json" ] || { echo "doc-bridge fixtures not found in $FIX (set STRATA_FIXTURES)" >&2; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/strata-run-bench.XXXXXX")
[ -n "${KEEP_BENCH_DIR:-}" ] || trap 'rm -rf "$T"' EXIT  # KEEP_BENCH_DIR=1 keeps it for a closer look
# A private copy, so a rebuild in the middle of the benchmark cannot swap the binary under it.
cp "$build/strata" "$T/strata"
strata=$T/strata
cache=${TMPDIR:-/tmp}/strata-bench
mkdir -p "$cache"

log() { echo "[bench] $*" >&2; }
now_ns() { date +%s%N; }
secs() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }       # ns -> s
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
all_secs() { local v out=(); for v in "$@"; do out+=("$(secs "$v")"); done; echo "${out[*]}"; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rounds=3  # for (a) and (b); (c) and (d) run once
bench_parts=${PARTS:-a b c d}  # PARTS="c" runs only part (c)
want() { [[ " $bench_parts " == *" $1 "* ]]; }

# --- providers -------------------------------------------------------------------------------
# One C source: read the request fully (stdin, or the file named by argv[1] with -DFROM_FILE),
# optionally sleep, print {}.
cat >"$T/provider.c" <<'C'
#include <fcntl.h>
#include <unistd.h>
#ifndef SLEEP_US
#define SLEEP_US 0
#endif
int main(int argc, char** argv) {
  int fd = 0;
#ifdef FROM_FILE
  if (argc < 2 || (fd = open(argv[1], O_RDONLY)) < 0) return 3;
#else
  (void)argc; (void)argv;
#endif
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {}
  if (n < 0) return 4;
  if (SLEEP_US > 0) usleep(SLEEP_US);
  static const char out[] = "{}\n";
  return write(1, out, sizeof out - 1) == (ssize_t)(sizeof out - 1) ? 0 : 5;
}
C
cc -O2 -o "$T/p-trivial" "$T/provider.c"
cc -O2 -DFROM_FILE -o "$T/p-trivial-file" "$T/provider.c"
cc -O2 -DSLEEP_US=200000 -o "$T/p-sleep200" "$T/provider.c"
cc -O2 -DFROM_FILE -DSLEEP_US=200000 -o "$T/p-sleep200-file" "$T/provider.c"
cc -O2 -DSLEEP_US=2000000 -o "$T/p-sleep2000" "$T/provider.c"
printf '#!/bin/sh\ncat >"%s/req.json"\necho "{}"\n' "$T" >"$T/p-dump"
chmod +x "$T/p-dump"

# --- study artifacts -------------------------------------------------------------------------
# A 128-task suite: 32 repositories x 4 categories, cloned from the 6 fixture repositories by
# renaming consumer-0K to consumer-NN. Provider configs per provider; plans per runId and size.
python3 - "$T" "$FIX" <<'PY'
import json, sys
sys.path.insert(0, "tests/support")
from study_payloads import grown_tasks, provider_entries, unsealed, write_provider_config, write_repository_config
T, fix = sys.argv[1:3]
suite = unsealed(f"{fix}/task-suite-v1.json")
repos, tasks = grown_tasks(suite)
suite["population"] = repos
suite["tasks"] = tasks
suite["replicatesPerTask"] = 1  # so the whole matrix (768 cells) is a plan's largest sample
suite["maxRuns"] = len(tasks) * 6 * suite["replicatesPerTask"]
json.dump(suite, open(f"{T}/suite.payload.json", "w"))
write_repository_config(f"{T}/repos", repos, f"{T}/repos.payload.json")
for name in ("trivial", "sleep200", "sleep2000", "dump"):
    write_provider_config(provider_entries(f"{T}/p-{name}", envAllowlist=[]), f"{T}/providers-{name}.payload.json")
PY
"$strata" seal task-suite "$T/suite.payload.json" -o "$T/suite.json" >/dev/null
"$strata" seal repository-config "$T/repos.payload.json" -o "$T/repos.json" >/dev/null
for name in trivial sleep200 sleep2000 dump; do
  "$strata" seal provider-config "$T/providers-$name.payload.json" -o "$T/providers-$name.json" >/dev/null
done

# make_plan <runId> <sampleSize> [strategy]: $T/plan-<runId>.json, pairwise over two scenarios
# (default) or balanced-task-strata over all three.
make_plan() {
  python3 - "$T" "$FIX" "$1" "$2" "${3:-pairwise-task-strata}" <<'PY'
import json, sys
T, fix, run_id, size, strategy = sys.argv[1:6]
plan = json.load(open(f"{fix}/run-plan-v1.json"))
for k in ("contentHash", "contentHashAlgo"):
    plan.pop(k)
suite = json.load(open(f"{T}/suite.json"))
plan["taskIds"] = [t["id"] for t in suite["tasks"]]
plan["taskSuiteHash"] = suite["contentHash"]
plan["sampling"] = {"strategy": strategy, "sampleSize": int(size)}
if strategy == "pairwise-task-strata":
    plan["sampling"]["scenarioIds"] = ["repository-only", "deterministic-doc-bridge"]
plan["runId"] = run_id
json.dump(plan, open(f"{T}/plan-{run_id}.payload.json", "w"))
PY
  "$strata" seal run-plan "$T/plan-$1.payload.json" -o "$T/plan-$1.json" >/dev/null
}

# srun <runId> <provider> <ledger> <jobs>: one strata run under /usr/bin/time; prints
# "<wall ns> <executed> <skipped> <peak RSS KB>".
srun() {
  local start end out
  start=$(now_ns)
  out=$(/usr/bin/time -f %M -o "$T/rss" "$strata" run "$T/plan-$1.json" "$T/suite.json" \
    --providers "$T/providers-$2.json" --repositories "$T/repos.json" --ledger "$3" --jobs "$4" --text)
  end=$(now_ns)
  echo "$((end - start)) $(sed -n 's/^Executed: //p' <<<"$out") $(sed -n 's/^Skipped: //p' <<<"$out") $(tail -n 1 "$T/rss")"
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }  # KB -> MiB
# expect <got> <want> <what>: a strata run that failed or did other work than planned aborts the bench.
expect() { [ "${1:-}" = "$2" ] || { echo "bench: $3: expected $2, got '${1:-}' (strata run failed?)" >&2; exit 1; }; }

for id in a-1 a-2 a-3 a-4 c-0 c-1 d-1; do make_plan "bench-$id" 512; done
make_plan bench-b 768 balanced-task-strata
make_plan bench-dump 4

# One real request, captured from the provider's stdin (also warms the caches).
srun bench-dump dump "$T/dump-ledger.json" 1 >/dev/null
[ -s "$T/req.json" ] || { echo "bench: no request captured (strata run failed?)" >&2; exit 1; }
req_bytes=$(stat -c %s "$T/req.json")
log "captured request: $req_bytes bytes"

echo "# strata run benchmark"
echo
echo "strata: $build/strata (built $(date -r "$build/strata" '+%F %T'), tree $(git describe --always --dirty 2>/dev/null || echo unknown)), $(nproc) cores, load at start $(cut -d' ' -f1-3 /proc/loadavg)"

if want a; then
# --- (a) trivial provider, 2,048 executions ----------------------------------------------------
# Rounds alternate strata and xargs so drift on a shared machine hits both; each strata round
# uses a fresh ledger and runs the 4 plans one after another (walls summed).
a_tot=() x_tot=() a_parts=()
for r in $(seq "$rounds"); do
  log "(a) round $r: strata, 4 plans x 512 at --jobs 64"
  a_ns=0 a_exec=0 parts=()
  for id in a-1 a-2 a-3 a-4; do
    read -r ns ex _ < <(srun "bench-$id" trivial "$T/a-ledger-$r.json" 64)
    expect "$ex" 512 "(a) executed"
    a_ns=$((a_ns + ns)) a_exec=$((a_exec + ex)) parts+=("$(secs "$ns")")
  done
  a_tot+=("$a_ns") a_parts+=("${parts[*]}")
  rm -f "$T/a-ledger-$r.json"*
  log "(a) round $r: xargs, $a_exec launches at -P 64"
  x_start=$(now_ns)
  seq "$a_exec" | xargs -P 64 -n 1 "$T/p-trivial-file" "$T/req.json" >/dev/null
  x_tot+=("$(($(now_ns) - x_start))")
done
a_med=$(median "${a_tot[@]}") x_med=$(median "${x_tot[@]}")
echo
echo "## (a) Trivial provider, $a_exec executions, 64 at once ($rounds rounds, alternating)"
echo
echo "| Launcher | Executions | Median wall (s) | Executions/s | All rounds (s) |"
echo "|---|---:|---:|---:|---|"
echo "| \`strata run --jobs 64\` (4 plans x 512, one ledger) | $a_exec | $(secs "$a_med") | $(awk -v n="$a_exec" -v t="$a_med" 'BEGIN { printf "%.0f", n / (t / 1e9) }') | $(all_secs "${a_tot[@]}") |"
echo "| \`seq $a_exec \| xargs -P 64 -n 1 p-trivial-file req.json\` | $a_exec | $(secs "$x_med") | $(awk -v n="$a_exec" -v t="$x_med" 'BEGIN { printf "%.0f", n / (t / 1e9) }') | $(all_secs "${x_tot[@]}") |"
echo
echo "Wall ratio strata/xargs (medians): **$(ratio "$a_med" "$x_med")x** (target <= 1.5). Request: $req_bytes bytes."
echo "Per-plan strata walls (s), by round: $(printf '[%s] ' "${a_parts[@]}")"

fi

if want b; then
# --- (b) 200 ms provider, the full matrix (768 executions) at --jobs 96 -----------------------
# One invocation each: strata runs the full-matrix plan on a fresh ledger, xargs launches the same
# provider 768 times; rounds alternate them so drift on a shared machine hits both.
b_tot=() bx_tot=()
for r in $(seq "$rounds"); do
  log "(b) round $r: strata, one full-matrix plan of 768 at --jobs 96, 200 ms provider"
  read -r ns b_exec _ < <(srun bench-b sleep200 "$T/b-ledger-$r.json" 96)
  expect "$b_exec" 768 "(b) executed"
  b_tot+=("$ns")
  rm -f "$T/b-ledger-$r.json"*
  log "(b) round $r: xargs -P 96, $b_exec launches of the same 200 ms provider"
  x_start=$(now_ns)
  seq "$b_exec" | xargs -P 96 -n 1 "$T/p-sleep200-file" "$T/req.json" >/dev/null
  bx_tot+=("$(($(now_ns) - x_start))")
done
b_med=$(median "${b_tot[@]}") bx_med=$(median "${bx_tot[@]}")
b_ideal=$(awk -v n="$b_exec" 'BEGIN { printf "%.3f", int((n + 95) / 96) * 0.2 }')
echo
echo "## (b) 200 ms provider, the full matrix: $b_exec executions, 96 at once ($rounds rounds)"
echo
echo "| Run | Executions | Median wall (s) | Ideal (s) | Wall/ideal | All rounds (s) |"
echo "|---|---:|---:|---:|---:|---|"
echo "| \`strata run --jobs 96\` (one full-matrix plan, balanced-task-strata 768) | $b_exec | $(secs "$b_med") | $b_ideal | **$(awk -v t="$b_med" -v i="$b_ideal" 'BEGIN { printf "%.2f", t / 1e9 / i }')x** | $(all_secs "${b_tot[@]}") |"
echo "| \`seq $b_exec \| xargs -P 96 -n 1 p-sleep200-file req.json\` (the machine's launch cost) | $b_exec | $(secs "$bx_med") | $b_ideal | $(awk -v t="$bx_med" -v i="$b_ideal" 'BEGIN { printf "%.2f", t / 1e9 / i }')x | $(all_secs "${bx_tot[@]}") |"
echo
echo "Ideal = ceil($b_exec / 96) waves x 200 ms. strata/xargs (medians): **$(ratio "$b_med" "$bx_med")x** (target <= 1.05)."

fi

if want c; then
# --- (c) ledger growth ------------------------------------------------------------------------
# Steady state of a study that grows its ledger one run at a time: a pre-filled ledger of
# n - 512 observations (written by the Node generator, so strata has not verified it yet) gets
# one 512-execution run first (the warm-up: it reads and verifies the whole ledger once), then
# the measured 512-execution run starts with n existing observations. Then the same command
# runs again with everything recorded (executed 0): answered from <ledger>.verified, it reads
# none of the ledger's observations. Last, the record is removed and the same resume reads and
# verifies the whole ledger (the fallback, and what every resume cost before the record held
# the execution keys).
c_rows=() c_ms=()
for n in 1000 10000 99488; do  # 99,488 + 512 = 100,000, the ledger maximum
  pre=$((n - 512))
  src=$cache/ledger-$pre.json
  if [ ! -s "$src" ]; then
    log "(c) generating $src ..."
    node scripts/bench/make-ledger.mjs "$pre" "$src.partial.$$"
    mv "$src.partial.$$" "$src"  # only a complete file is ever reused
  fi
  cp "$src" "$T/c-ledger-$n.json"
  sync "$T/c-ledger-$n.json"
  log "(c) warm-up: 512 executions against $pre observations (first read and verification)"
  read -r w_ns w_ex _ _ < <(srun bench-c-0 trivial "$T/c-ledger-$n.json" 64)
  log "(c) 512 executions against $n existing observations"
  read -r ns ex _ kb < <(srun bench-c-1 trivial "$T/c-ledger-$n.json" 64)
  log "(c) resume on $((n + ex)) observations"
  read -r r_ns r_ex r_sk r_kb < <(srun bench-c-1 trivial "$T/c-ledger-$n.json" 64)
  log "(c) resume on $((n + ex)) observations without <ledger>.verified (full read)"
  rm "$T/c-ledger-$n.json.verified"
  read -r f_ns f_ex f_sk f_kb < <(srun bench-c-1 trivial "$T/c-ledger-$n.json" 64)
  expect "$w_ex $ex $r_ex $r_sk $f_ex $f_sk" "512 512 0 512 0 512" "(c) warm-up executed, executed, resumed executed and skipped (twice)"
  "$strata" verify "$T/c-ledger-$n.json" >/dev/null || { echo "bench: (c) ledger does not verify" >&2; exit 1; }
  ms=$(awk -v t="$ns" -v e="$ex" 'BEGIN { printf "%.2f", t / 1e6 / e }')
  c_ms+=("$ms")
  c_rows+=("| $n | $(stat -c %s "$src" | awk '{ printf "%.1f", $1 / 1048576 }') | $(secs "$w_ns") | $ex | $(secs "$ns") | $ms | $(mib "$kb") | $(secs "$r_ns") ($r_ex executed, $r_sk skipped) | $(mib "$r_kb") | $(secs "$f_ns") | $(mib "$f_kb") |")
  rm -f "$T/c-ledger-$n.json"*
done
echo
echo "## (c) Cost per completion as the ledger grows (512 executions, trivial provider, --jobs 64)"
echo
echo "| Existing observations | Pre-filled ledger (MiB) | Warm-up run, first verification (s) | Executed | Wall (s) | ms per completion | Peak RSS (MiB) | Resume, same command again (s) | Peak RSS resume (MiB) | Resume without the record: full read (s) | Peak RSS full read (MiB) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${c_rows[@]}"
echo
echo "ms per completion, 99,488 vs 1,000 existing observations: **$(ratio "${c_ms[2]}" "${c_ms[0]}")x** (target <= 1.5)."
echo "Resume on the 100,000-observation ledger (99,488 + 512, everything recorded): **$(secs "$r_ns") s, $(mib "$r_kb") MiB** (target <= 0.3 s, <= 50 MiB); with the record removed (full read) $(secs "$f_ns") s, $(mib "$f_kb") MiB."

fi

if want d; then
# --- (d) peak RSS -----------------------------------------------------------------------------
log "(d) 512 x 2 s at --jobs 500"
read -r d_ns d_ex _ d_kb < <(srun bench-d-1 sleep2000 "$T/d-ledger-500.json" 500)
log "(d) 512 x trivial at --jobs 1"
read -r d1_ns d1_ex _ d1_kb < <(srun bench-d-1 trivial "$T/d-ledger-1.json" 1)
expect "$d_ex $d1_ex" "512 512" "(d) executed"
echo
echo "## (d) Peak RSS of strata (512 executions, /usr/bin/time -f %M)"
echo
echo "| Run | Executed | Wall (s) | Peak RSS (MiB) |"
echo "|---|---:|---:|---:|"
echo "| 2 s provider, \`--jobs 500\` (500 in flight) | $d_ex | $(secs "$d_ns") | $(mib "$d_kb") |"
echo "| trivial provider, \`--jobs 1\` | $d1_ex | $(secs "$d1_ns") | $(mib "$d1_kb") |"
echo
echo "RSS ratio jobs 500 / jobs 1: $(ratio "$d_kb" "$d1_kb")x."
echo
fi

echo "Load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
