#!/usr/bin/env bash
# Verifier benchmark (issue 42, docs/VERIFIER.md): what `strata run --verify` costs per execution
# beyond its checks' own run time, and what a repository's prepared layer costs.
# Usage: scripts/bench/verify-phase.sh [--strata PATH] [--executions N] [--jobs J]
#   --strata PATH   the strata binary (default: build/strata under the repository root found from
#                   this script's place); strata-workspace-exec must sit beside it.
#   --executions N  executions per run (default 64; rounded up to a multiple of 4)
#   --jobs J        strata run --jobs (default 1: per-execution figures are exact only at 1)
#   ROUNDS=n (default 3) rounds of part (a), the variants alternating; medians are reported.
#   CHECK_SLEEP=s (default 0.05) the sleeping checks' `sleep` argument; SETUP_SECONDS=s (default 1)
#   the set-up's sleep in part (b); BIG_LAYER_MB=m (default 200) the size of part (c)'s layer.
#   KEEP_BENCH_DIR=1 keeps the temporary directory.
#
# The study: the example study's suite (examples/study) grown to P = ceil(N / 16) repository ids
# sharing one root (a suite holds 4 tasks per repository; a pairwise plan samples 2 models x 2
# scenarios of each task), one attempt per execution; every task's acceptanceChecks replaced by two
# checks. The provider is a shell script beside the study's artifacts (so --confine binds it back)
# that reads the request and prints one fixed, valid answer (claiming 2 of 2 checks passed); it
# writes nothing. The repository: 20 small files in 4 directories (not a git checkout).
#
# (a) Per execution, side by side, each on a fresh ledger, all `--workspace overlay --confine`:
#     plain    the suite with checks `true`, without --verify (the checks are never run);
#     true     the same with --verify: two checks `true` (their own time about 0);
#     sleep    a suite whose two checks are `sleep $CHECK_SLEEP`, with --verify (own time known:
#              2 x CHECK_SLEEP per execution).
#     Three views of the verifier phase's cost per execution:
#     - wall: (wall_variant - wall_plain) x J / N (at --jobs 1 each execution runs after the other);
#     - cycle: the median gap between consecutive observations' observedAt (set as each execution
#       ends, after its verifier), minus plain's: one execution's cost without the per-run costs
#       (--jobs 1 only);
#     - ledger: the median of the observations' measurements.verifierDurationMs, and beside it the
#       sum of the checks' durationMs from <ledger>.verifier/<key>.json.
#     "Beyond the checks" = the cost minus the checks' own known time (0 for `true`, 2 x CHECK_SLEEP
#     for sleep). Target: at most 10 ms per execution.
# (b) A prepared layer against none: the suite whose checks are `test -f ready.txt` and `true`,
#     --verify with a sealed verifier config, three runs one after another:
#     no set-up   a config with defaults only (no repositories entry): check 1 fails (no ready.txt);
#     set-up      a config whose every repository entry has setup `sleep $SETUP_SECONDS; echo ok >
#                 ready.txt` (all P ids share one tree and one set-up text: one layer key), a fresh
#                 ledger: the set-up should be paid once, wall - no-set-up's ≈ SETUP_SECONDS, not
#                 N x (or P x) it; both checks pass, and workspaceChangedFiles stays 0 (the
#                 set-up's outputs are not the agent's);
#     re-use      the set-up run's command again on the same ledger path after deleting only
#                 <ledger> and <ledger>.journal (the layer <ledger>.prepared/<key>/ and the other
#                 records beside the ledger stay): every execution runs again, from the kept layer,
#                 and no set-up is paid (wall ≈ no set-up's).
# (c) A big layer: the set-up of (b) that also writes BIG_LAYER_MB MB of random bytes as 10 kB
#     files (`split`: 20,000 files for 200 MB, a node_modules' worth), then the same re-use run:
#     re-use − no set-up = what each run pays at its start to check the layer's digest (every
#     file read) plus what the bigger lower layer costs the executions' overlays.
#
# Every run is checked: N observations, all completed; with --verify every observation carries the
# verified counts and its verifier output file. Everything lives in one temporary directory
# (repository, artifacts, ledgers), removed on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
strata_arg="" executions=64 jobs=1
while [ $# -gt 0 ]; do
  case $1 in
    --strata) strata_arg=${2:?--strata needs a path}; shift 2 ;;
    --strata=*) strata_arg=${1#*=}; shift ;;
    --executions) executions=${2:?--executions needs a number}; shift 2 ;;
    --executions=*) executions=${1#*=}; shift ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --jobs=*) jobs=${1#*=}; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "verify-phase.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
# --strata is relative to the caller's directory; the default to the repository root.
if [ -n "$strata_arg" ]; then strata_src=$(realpath -m "$strata_arg"); else strata_src=$root/build/strata; fi
[[ $executions =~ ^[0-9]+$ && $executions -ge 1 ]] || { echo "--executions: a positive number" >&2; exit 2; }
[[ $jobs =~ ^[0-9]+$ && $jobs -ge 1 ]] || { echo "--jobs: a positive number" >&2; exit 2; }
rounds=${ROUNDS:-3}
check_sleep=${CHECK_SLEEP:-0.05}
setup_seconds=${SETUP_SECONDS:-1}
big_layer_mb=${BIG_LAYER_MB:-200}
cd "$root"
for binary in "$strata_src" "$(dirname "$strata_src")/strata-workspace-exec"; do
  [ -x "$binary" ] || { echo "not found: $binary (build it first)" >&2; exit 1; }
done
for tool in python3 bwrap; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done
# (the help read whole: grep -q stops reading early, and with pipefail strata's SIGPIPE fails the test)
"$strata_src" run --help | grep -c -- --verify >/dev/null ||
  { echo "$strata_src: strata run has no --verify (build the verifier first)" >&2; exit 1; }
executions=$(( (executions + 3) / 4 * 4 ))  # pairwise sampling: 2 models x 2 scenarios
repos=$(( (executions + 15) / 16 ))

T=$(mktemp -d "${TMPDIR:-/tmp}/strata-verify-bench.XXXXXX")
[ -n "${KEEP_BENCH_DIR:-}" ] || trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/study" "$T/repos" "$T/res" "$T/cmd"
# Private copies, so a rebuild during the benchmark cannot swap them (strata finds
# strata-workspace-exec beside itself).
cp -p "$strata_src" "$(dirname "$strata_src")/strata-workspace-exec" "$T/bin/"
strata=$T/bin/strata
tree=$(git describe --always --dirty 2>/dev/null || echo unknown)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

log() { echo "[bench] $*" >&2; }
now_ns() { date +%s%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }  # calc <format> <awk expression>
shown() { local s; s=$(printf '%q ' "$@"); s=${s% }; echo "${s//$T/\$W}"; }  # a command, the work dir as $W

# --- repository and study ----------------------------------------------------------------------
python3 - "$T/repos/small" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(20):
    directory = f"{root}/dir{i % 4}"
    os.makedirs(directory, exist_ok=True)
    with open(f"{directory}/file{i:02d}.txt", "w") as out:
        out.write(f"line {i}\n" * (150 + 100 * (i % 3)))
PY
# The provider: the request read to its end, one fixed valid answer, nothing written.
cat >"$T/study/provider.sh" <<'SH'
#!/bin/sh
cat >/dev/null
echo '{"taskOutcome":"success","evidenceQuality":"high","safetyOutcome":"safe","evidenceIds":[],"clarificationRequests":0,"reworkCount":0,"toolCalls":0,"measurements":{"acceptanceChecksPassed":2,"acceptanceChecksTotal":2,"acceptanceChecksExecuted":2},"inputTokens":100,"outputTokens":20,"tokenMethod":"provider"}'
SH
chmod +x "$T/study/provider.sh"

python3 - "$T" "$root/examples/study" "$repos" "$executions" "$check_sleep" "$setup_seconds" "$big_layer_mb" <<'PY'
import json, sys
T, examples, count, size, check_sleep, setup_seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
big_layer_mb = int(sys.argv[7])
base = json.load(open(f"{examples}/task-suite.payload.json"))
ids = [f"consumer-{i:02d}" for i in range(1, count + 1)]
tasks = []
for i in ids:
    tasks += [json.loads(json.dumps(t).replace("consumer-01", i)) for t in base["tasks"]]
variants = {  # suite name -> its two checks' commands
    "true": ["true", "true"],
    "sleep": [f"sleep {check_sleep}", f"sleep {check_sleep}"],
    "ready": ["test -f ready.txt", "true"],
}
for name, commands in variants.items():
    suite = json.loads(json.dumps(base))
    suite_tasks = json.loads(json.dumps(tasks))
    for t in suite_tasks:
        t["acceptanceChecks"] = [{"id": f"check-{letter}", "command": c, "expected": "The command exits 0."}
                                 for letter, c in zip("ab", commands)]
    suite.update(population=ids, tasks=suite_tasks, maxRuns=1000)
    json.dump(suite, open(f"{T}/study/suite-{name}.payload.json", "w"))
    plan = json.load(open(f"{examples}/run-plan.payload.json"))
    plan["taskIds"] = [t["id"] for t in suite_tasks]
    plan["sampling"]["sampleSize"] = size
    plan["budget"].update(maxAttempts=1, maxRuntimeMs=60000)  # one attempt = one execution
    plan["runId"] = f"verify-bench-{name}"
    json.dump(plan, open(f"{T}/study/plan-{name}.payload.json", "w"))
providers = json.load(open(f"{examples}/provider-config.payload.json"))
providers.pop("adjudicator", None)  # strata run never calls it
for p in providers["providers"]:
    p["command"] = f"{T}/study/provider.sh"
json.dump(providers, open(f"{T}/study/providers.payload.json", "w"))
json.dump({"type": "controlled-study-repository-config", "schemaVersion": 1, "configVersion": "bench",
           "repositories": [{"id": i, "root": f"{T}/repos/small"} for i in ids]},
          open(f"{T}/study/repos.payload.json", "w"))
head = {"type": "strata-verifier-config", "schemaVersion": 1, "defaults": {"timeoutMs": 60000, "maxOutputBytes": 65536}}
json.dump(head, open(f"{T}/study/verifier-none.payload.json", "w"))
setup = dict(head, repositories=[{"repositoryId": i, "setup": f"sleep {setup_seconds}; echo ok > ready.txt",
                                  "setupTimeoutMs": 600000} for i in ids])
json.dump(setup, open(f"{T}/study/verifier-setup.payload.json", "w"))
big = f"sleep {setup_seconds}; echo ok > ready.txt; mkdir big && head -c {big_layer_mb * 1000000} /dev/urandom | split -b 10000 -a 5 - big/f"
json.dump(dict(head, repositories=[{"repositoryId": i, "setup": big, "setupTimeoutMs": 600000} for i in ids]),
          open(f"{T}/study/verifier-big.payload.json", "w"))
PY
"$strata" seal provider-config "$T/study/providers.payload.json" -o "$T/study/providers.json" >/dev/null
"$strata" seal repository-config "$T/study/repos.payload.json" -o "$T/study/repos.json" >/dev/null
for name in none setup big; do
  "$strata" seal verifier-config "$T/study/verifier-$name.payload.json" -o "$T/study/verifier-$name.json" >/dev/null
done
for name in true sleep ready; do
  "$strata" seal task-suite "$T/study/suite-$name.payload.json" -o "$T/study/suite-$name.json" >/dev/null
  python3 - "$T/study/plan-$name.payload.json" "$T/study/suite-$name.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
plan["taskSuiteHash"] = json.load(open(sys.argv[2]))["contentHash"]
json.dump(plan, open(sys.argv[1], "w"))
PY
  "$strata" seal run-plan "$T/study/plan-$name.payload.json" -o "$T/study/plan-$name.json" >/dev/null
done

# --- one measured run --------------------------------------------------------------------------
# measure <result name> <suite> <ledger dir> [strata run args...]: one `strata run` with the ledger
# at <ledger dir>/ledger.json (the caller makes or keeps the directory); checks it and appends
# "<wall s> <executions> <cycle ms> <verifierDurationMs median> <checks' durationMs sum median>
#  <verifier - checks median> <verifiedChecksPassed values> <workspaceChangedFiles values> <layers>"
# to $T/res/<name> ("-" where a figure does not apply). The command goes to $T/cmd/<name>.
measure() {
  local name=$1 suite=$2 dir=$3 start end
  shift 3
  local command=("$strata" run "$T/study/plan-$suite.json" "$T/study/suite-$suite.json"
    --providers "$T/study/providers.json" --repositories "$T/study/repos.json"
    --ledger "$dir/ledger.json" --jobs "$jobs" --text --workspace overlay --confine "$@")
  shown "${command[@]}" >"$T/cmd/$name"
  start=$(now_ns)
  "${command[@]}" >"$T/out" 2>"$T/err" ||
    { echo "bench: $name: strata run failed ($(shown "${command[@]}")): $(cat "$T/err")" >&2; exit 1; }
  end=$(now_ns)
  # Lines strata wrote on stderr (the layer's set-up, warnings), kept for the report.
  [ ! -s "$T/err" ] || sed "s/^/[$name] /" "$T/err" >>"$T/res/stderr"
  # Outside the timing: what the run did, from its ledger and the records beside it.
  python3 - "$dir/ledger.json" "$name" "$executions" "$jobs" <<'PY' >"$T/facts" || exit 1
import glob, json, os, statistics, sys
from datetime import datetime
ledger, name, expected, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
observations = json.load(open(ledger))["observations"]
if len(observations) != expected:
    sys.exit(f"bench: {name}: {len(observations)} observations, expected {expected}")
bad = [o["execution"]["status"] for o in observations if o["execution"]["status"] != "completed"]
if bad:
    sys.exit(f"bench: {name}: {len(bad)} execution(s) did not complete: {sorted(set(bad))}")
m = [o.get("measurements", {}) for o in observations]
verified = any("verifiedChecksTotal" in x for x in m)
def values(key):
    return ",".join(sorted({str(x.get(key, "none")) for x in m}))
cycle = "-"
if jobs == 1:
    ends = sorted(datetime.fromisoformat(o["observedAt"].replace("Z", "+00:00")) for o in observations)
    cycle = f"{statistics.median((b - a).total_seconds() * 1000 for a, b in zip(ends, ends[1:])):.1f}"
verifier = checks = own = "-"
if verified:
    missing = [x for x in m if "verifierDurationMs" not in x or "verifiedChecksTotal" not in x]
    if missing:
        sys.exit(f"bench: {name}: {len(missing)} observation(s) without verifierDurationMs/verifiedChecksTotal")
    files = glob.glob(ledger + ".verifier/*.json")
    if len(files) != expected:
        sys.exit(f"bench: {name}: {len(files)} verifier output files in {ledger}.verifier, expected {expected}")
    sums = {}
    for f in files:
        record = json.load(open(f))
        sums[record["executionKey"]] = sum(c.get("durationMs", 0) for c in record["checks"])
    durations = [x["verifierDurationMs"] for x in m]
    verifier = f"{statistics.median(durations):.1f}"
    checks = f"{statistics.median(sums.values()):.1f}"
    # Per execution: its phase minus its own checks' measured time, when the keys can be paired.
    keyed = [(o.get("executionKey") or o.get("execution", {}).get("key"), x["verifierDurationMs"]) for o, x in zip(observations, m)]
    pairs = [d - sums[k] for k, d in keyed if k in sums]
    own = f"{statistics.median(pairs):.1f}" if len(pairs) == expected else f"{statistics.median(durations) - statistics.median(sums.values()):.1f}~"
layers = len(glob.glob(ledger + ".prepared/*/")) if os.path.isdir(ledger + ".prepared") else 0
print(len(observations), cycle, verifier, checks, own,
      values("verifiedChecksPassed") if verified else "-", values("workspaceChangedFiles"), layers)
PY
  echo "$(calc %.3f "($end - $start) / 1e9") $(cat "$T/facts")" >>"$T/res/$name"
}

# field <result name> <column>: the median over the rounds of one column of $T/res/<name>.
# shellcheck disable=SC2046  # the values, split on purpose
field() { median $(awk -v c="$2" '{ print $c }' "$T/res/$1"); }
# text <result name> <column>: the column's distinct values over the rounds.
text() { awk -v c="$2" '{ print $c }' "$T/res/$1" | sort -u | paste -sd/ -; }

log "$executions executions per run ($repos repository ids, one root), --jobs $jobs; (a) $rounds rounds"
# Warm-up (not measured): the page cache, bwrap and the overlay module.
rm -rf "$T/run" && mkdir "$T/run"
measure warm-up true "$T/run" --verify
rm -rf "$T/run" "$T/res/warm-up"

# --- (a) the verifier phase per execution ------------------------------------------------------
variants=(plain true sleep)
for round in $(seq "$rounds"); do
  order=("${variants[@]}")
  [ $((round % 2)) = 1 ] || order=(sleep true plain)  # every other round reversed, for drift
  for v in "${order[@]}"; do
    log "(a) round $round: $v"
    rm -rf "$T/run" && mkdir "$T/run"
    case $v in
      plain) measure a-plain true "$T/run" ;;
      true) measure a-true true "$T/run" --verify ;;
      sleep) measure a-sleep sleep "$T/run" --verify ;;
    esac
    rm -rf "$T/run"
  done
done

# --- (b) a prepared layer against none ---------------------------------------------------------
log "(b) no set-up"
rm -rf "$T/run" && mkdir "$T/run"
measure b-none ready "$T/run" --verify --verifier-config "$T/study/verifier-none.json"
rm -rf "$T/run" && mkdir "$T/run"
log "(b) set-up (sleep $setup_seconds), fresh ledger"
measure b-setup ready "$T/run" --verify --verifier-config "$T/study/verifier-setup.json"
ls -A "$T/run" >"$T/res/beside-before"
# Re-use: the same command on the same ledger path, the ledger and its journal deleted, nothing else.
rm -f "$T/run/ledger.json" "$T/run/ledger.json.journal"
log "(b) re-use: the same command after deleting only the ledger and its journal"
measure b-reuse ready "$T/run" --verify --verifier-config "$T/study/verifier-setup.json"
# --- (c) a big layer -------------------------------------------------------------------------------
rm -rf "$T/run" && mkdir "$T/run"
log "(c) set-up of a ${big_layer_mb} MB layer, fresh ledger"
measure c-setup ready "$T/run" --verify --verifier-config "$T/study/verifier-big.json"
big_files=$(find "$T/run/ledger.json.prepared" -path '*/big/*' -type f | wc -l)
big_bytes=$(du -sb "$T/run/ledger.json.prepared" | cut -f1)
rm -f "$T/run/ledger.json" "$T/run/ledger.json.journal"
log "(c) re-use of the big layer"
measure c-reuse ready "$T/run" --verify --verifier-config "$T/study/verifier-big.json"
prepared_keys=$(python3 -c 'import json, sys; print(json.dumps([r.get("verifier", {}).get("preparedLayers") for r in json.load(open(sys.argv[1]))["runs"].values()]))' "$T/run/ledger.json.inputs" 2>/dev/null || echo "(unread)")

# --- report ------------------------------------------------------------------------------------
known() { case $1 in plain) echo 0 ;; true) echo 0 ;; sleep) calc %.1f "2 * $check_sleep * 1000" ;; esac; }
plain_wall=$(field a-plain 1) plain_cycle=$(field a-plain 3)
per_exec_wall() { calc %.1f "($1 - $plain_wall) * 1000 * $jobs / $executions"; }
rows=()
for v in "${variants[@]}"; do
  r=a-$v wall=$(field "a-$v" 1) cycle=$(field "a-$v" 3) k=$(known "$v")
  if [ "$v" = plain ]; then
    rows+=("| plain (no --verify) | $(field "$r" 2) | $wall | $(calc %.1f "$wall * 1000 / $executions") | $cycle | — | — | — | — | 0 | — | — | — | — | $(text "$r" 1) |")
    continue
  fi
  added_wall=$(per_exec_wall "$wall")
  if [ "$cycle" = - ]; then added_cycle=— beyond_cycle=—; else
    added_cycle=$(calc %.1f "$cycle - $plain_cycle") beyond_cycle=$(calc %+.1f "$cycle - $plain_cycle - $k"); fi
  vd=$(field "$r" 4)
  rows+=("| $v (--verify, checks \`$(jq_cmd=; [ "$v" = true ] && echo true || echo "sleep $check_sleep")\` x2) | $(field "$r" 2) | $wall | $(calc %.1f "$wall * 1000 / $executions") | $cycle | $added_wall | $added_cycle | $vd | $(field "$r" 5) | $k | **$(calc %+.1f "$added_wall - $k")** | **$beyond_cycle** | **$(calc %+.1f "$vd - $k")** | $(field "$r" 6) | $(text "$r" 1) |")
done

echo "# strata run --verify benchmark"
echo
echo "strata: $(shown "$strata_src") as copied at the start (built $(date -r "$strata" '+%F %T'), tree $tree); $(nproc) cores, $(findmnt -no FSTYPE -T "$T" 2>/dev/null || echo '?') at \$W, kernel $(uname -r), $(bwrap --version)"
echo "Load average at the start: $load_start; before the report: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Study: the example suite grown to $repos repository ids (one root: 20 files, $(du -sb "$T/repos/small" | cut -f1) bytes, not a git checkout), pairwise sampleSize $executions, one attempt each; provider \$W/study/provider.sh (\`cat >/dev/null\`, one fixed answer); every run \`--workspace overlay --confine --jobs $jobs\` on a fresh ledger. \$W = the temporary directory (removed)."
echo
echo "## (a) The verifier phase per execution ($rounds rounds, alternating; medians)"
echo
echo "| Variant | Executions | Wall (s) | ms per execution (wall/N) | Cycle (ms, median gap) | Added vs plain, wall × J/N (ms) | Added vs plain, cycle (ms) | verifierDurationMs (median) | Checks' durationMs, sum (median) | Checks' own known time (ms) | **Beyond the checks: wall** | **Beyond: cycle** | **Beyond: verifierDurationMs** | verifierDurationMs − its checks' durationMs (median) | All rounds' walls (s) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
printf '%s\n' "${rows[@]}"
echo
echo "Beyond the checks = the added cost per execution minus the checks' own known time (0 for \`true\`, 2 × $check_sleep s for the sleeping checks). Target: ≤ 10 ms per execution. Cycle = median gap between consecutive observations' observedAt (--jobs 1 only; — otherwise): one execution's whole cost without the per-run costs. Checks' durationMs = each check's own figure in <ledger>.verifier/<key>.json (whatever it includes of its sandbox's start). A \`~\` marks a difference of medians where observations and output files could not be paired by key."
echo "Verified counts seen: true $(text a-true 7) of 2 passed, sleep $(text a-sleep 7) of 2; workspaceChangedFiles: plain $(text a-plain 8), true $(text a-true 8), sleep $(text a-sleep 8)."
echo
echo "## (b) A prepared layer against none (one run each, in this order)"
echo
none_wall=$(field b-none 1)
echo "| Run | Executions | Wall (s) | − no set-up (s) | Set-ups paid ≈ difference / ${setup_seconds} s | verifiedChecksPassed (of 2) | workspaceChangedFiles | Layers in <ledger>.prepared | verifierDurationMs (median) |"
echo "|---|---:|---:|---:|---:|---|---|---:|---:|"
for r in none setup reuse; do
  wall=$(field "b-$r" 1)
  case $r in none) label="no set-up (config without repositories)" ;; setup) label="set-up \`sleep $setup_seconds; echo ok > ready.txt\`, fresh ledger" ;;
    reuse) label="re-use: same command, only ledger + journal deleted" ;; esac
  echo "| $label | $(field "b-$r" 2) | $wall | $(calc %+.3f "$wall - $none_wall") | $(calc %.2f "($wall - $none_wall) / $setup_seconds") | $(text "b-$r" 7) | $(text "b-$r" 8) | $(field "b-$r" 9) | $(field "b-$r" 4) |"
done
for r in setup reuse; do
  wall=$(field "c-$r" 1)
  case $r in setup) label="(c) set-up of a ${big_layer_mb} MB layer ($big_files files, $big_bytes bytes), fresh ledger" ;;
    reuse) label="(c) re-use of the big layer: its digest checked at the start" ;; esac
  echo "| $label | $(field "c-$r" 2) | $wall | $(calc %+.3f "$wall - $none_wall") | $(calc %.2f "($wall - $none_wall) / $setup_seconds") | $(text "c-$r" 7) | $(text "c-$r" 8) | $(field "c-$r" 9) | $(field "c-$r" 4) |"
done
echo
echo "Per execution from the big layer against none: $(calc %+.1f "($(field c-reuse 1) - $none_wall) * 1000 / $executions") ms (the run's whole difference spread over its executions, its start's digest check included)."
echo
echo "Beside the ledger after the set-up run (kept for the re-use run but for ledger.json and ledger.json.journal): $(paste -sd' ' "$T/res/beside-before")"
echo "Prepared keys in <ledger>.inputs (per run): $prepared_keys"
if [ -s "$T/res/stderr" ]; then
  echo
  echo "strata's stderr:"
  echo
  echo '```'
  sort -u "$T/res/stderr" | cut -c1-300 | head -n 40
  echo '```'
fi
echo
echo "## Commands (W=\$(mktemp -d); artifacts made by this script in \$W/study)"
echo
echo '```'
for r in a-plain a-true a-sleep b-none b-setup; do echo "# $r"; cat "$T/cmd/$r"; done
echo "# b-reuse: rm \$W/run/ledger.json \$W/run/ledger.json.journal, then"
cat "$T/cmd/b-reuse"
echo '```'
