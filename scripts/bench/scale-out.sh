#!/usr/bin/env bash
# Scale-out benchmark (issue 17): one 512-execution study run two ways on this machine, side by side.
# Usage: scripts/bench/scale-out.sh [build-dir=build]
#   ROUNDS=n (default 2): rounds of (a) and (b), alternating their order; medians are reported.
#   STRATA_FIXTURES: the doc-bridge fixtures (default: the checkout's sibling shared/fixtures/doc-bridge).
#
#   The study: tests/support/study_payloads.py grown_pairwise_study, 128 tasks x 2 models x
#   2 scenarios = 512 executions, every provider a wrapper that sleeps PROVIDER_MS (default 200) ms and then runs
#   strata-example-provider, so every execution takes a fixed time and the comparison is about
#   orchestration. Ideal wall at 64 in flight: 8 waves x PROVIDER_MS (1.6 s at 200 ms).
#   (a) ONE `strata run plan suite --jobs 64` (fresh ledger), wall from exec to exit.
#   (b) the same plan as 4 shards of `--jobs 16` on a private single-node Slurm cluster
#       (tests/support/slurm_cluster.sh, 4 CPUs claimed so the 4 one-CPU array tasks can run at
#       once), submitted with examples/slurm/submit.sh (SHARDS=4 JOBS=16), the merge job
#       (`strata ledger merge` of the 4 shard ledgers, afterok on the array) included. Wall from
#       just before submit.sh to the merge's strata process exiting (the merged ledger written).
#       STRATA points at a tiny wrapper that stamps (date +%s%N) when each shard's and the merge's
#       strata starts and exits, so Slurm's own latencies are measured apart from Strata's work:
#         submit -> first shard running, submit -> last shard running, last shard end -> merge
#         start; plus the merge's own run and the polled end (the merge job gone from squeue,
#         polled every 0.1 s, which also counts how many array tasks ran at once).
#       scontrol show job times (whole seconds) are printed for the last round as a cross-check.
#   The merge once more by hand on the last round's shard ledgers, under /usr/bin/time (wall, peak RSS).
#   Correctness, outside the timings: each (a) run executed 512; every shard log says Executed
#   128; the merged ledger verifies (`strata verify`), holds 512 observations, and lists the
#   executions in the same order as the (a) ledger.
# Needs root (the Slurm daemons run as root) and Slurm + MUNGE (scripts/setup.sh --slurm). The
# cluster and the temporary directory are removed on exit, whatever happens.
set -euo pipefail

cd "$(dirname "$0")/../.."  # repo root
repo=$(pwd)
build=${1:-build}
rounds=${ROUNDS:-2}
PATH=$PATH:/usr/sbin:/sbin
[ "$(id -u)" -eq 0 ] || { echo "scale-out bench: run as root (it starts slurmctld, slurmd and munged)" >&2; exit 1; }
for f in "$build/strata" "$build/strata-example-provider"; do
  [ -x "$f" ] || { echo "not found: $f (build it first)" >&2; exit 1; }
done
for tool in python3 /usr/bin/time munged mungekey slurmctld slurmd sbatch squeue scancel sinfo scontrol; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool (Slurm: bash scripts/setup.sh --slurm)" >&2; exit 1; }
done
FIX=${STRATA_FIXTURES:-$(realpath -m ../shared/fixtures/doc-bridge)}
[ -f "$FIX/task-suite-v1.json" ] || { echo "doc-bridge fixtures not found in $FIX (set STRATA_FIXTURES)" >&2; exit 1; }

. tests/support/slurm_cluster.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/strata-scale-out-bench.XXXXXX")
chmod 755 "$T"
trap 'slurm_cluster_stop; [ -n "${KEEP_BENCH_DIR:-}" ] || rm -rf "$T"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# Private copies, so a rebuild in the middle of the benchmark cannot swap the binaries under it.
cp "$build/strata" "$T/strata"
cp "$build/strata-example-provider" "$T/example-provider"
strata=$T/strata

log() { echo "[bench] $*" >&2; }
now_ns() { date +%s%N; }
secs() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }  # ns -> s
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
all_secs() { local s="" v; for v in "$@"; do s+="$(secs "$v") "; done; echo "${s% }"; }
fail() { echo "bench: $*" >&2; exit 1; }

# --- the study ---------------------------------------------------------------------------------
provider_ms=${PROVIDER_MS:-200}
provider_s=$(awk -v m="$provider_ms" 'BEGIN { printf "%.3f", m / 1000 }')
ideal_s=$(awk -v m="$provider_ms" 'BEGIN { printf "%.1f", 8 * m / 1000 }')
cat >"$T/provider" <<SH
#!/bin/sh
sleep $provider_s
exec '$T/example-provider' "\$@"
SH
chmod +x "$T/provider"
python3 - "$T" "$FIX" <<'PY'
import json, sys
sys.path.insert(0, "tests/support")
from study_payloads import grown_pairwise_study, provider_entries, write_provider_config, write_repository_config
T, fix = sys.argv[1:3]
suite, plan, ids = grown_pairwise_study(fix, 60000)
plan["runId"] = "bench-scale-out"
json.dump(suite, open(f"{T}/suite.payload.json", "w"))
json.dump(plan, open(f"{T}/plan.payload.json", "w"))
write_repository_config(f"{T}/repos", ids, f"{T}/repos.payload.json")
write_provider_config(provider_entries(f"{T}/provider", ["--model", "any"]), f"{T}/providers.payload.json")
PY
"$strata" seal task-suite "$T/suite.payload.json" -o "$T/suite.json" >/dev/null
"$strata" seal repository-config "$T/repos.payload.json" -o "$T/repos.json" >/dev/null
"$strata" seal provider-config "$T/providers.payload.json" -o "$T/providers.json" >/dev/null
python3 - "$T" <<'PY'
import json, sys
T = sys.argv[1]
plan = json.load(open(f"{T}/plan.payload.json"))
plan["taskSuiteHash"] = json.load(open(f"{T}/suite.json"))["contentHash"]
json.dump(plan, open(f"{T}/plan.payload.json", "w"))
PY
"$strata" seal run-plan "$T/plan.payload.json" -o "$T/plan.json" >/dev/null
planned=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sampling"]["sampleSize"])' "$T/plan.json")
[ "$planned" = 512 ] || fail "the plan selects $planned executions, not 512"

# STRATA for the Slurm jobs: stamps each strata process's start and exit (one line each, O_APPEND).
cat >"$T/strata-stamped" <<SH
#!/usr/bin/env bash
echo "start \$(date +%s%N) \${SLURM_ARRAY_TASK_ID:-merge}" >>"\$STAMPS"
'$strata' "\$@"
rc=\$?
echo "end \$(date +%s%N) \${SLURM_ARRAY_TASK_ID:-merge}" >>"\$STAMPS"
exit \$rc
SH
chmod +x "$T/strata-stamped"

# order <ledger>: the ledger's execution keys, one per line, in ledger order.
order() {
  python3 - "$1" <<'PY'
import json, sys
for o in json.load(open(sys.argv[1]))["observations"]:
    t = o["task"]
    print(o["runId"], t["taskId"], t["repositoryId"], t["modelId"], t["scenarioId"], t["replicate"])
PY
}

# --- (a) one strata run, --jobs 64 ---------------------------------------------------------------
# run_single <round>: prints the wall in ns; checks Executed: 512.
run_single() {
  local start end out
  start=$(now_ns)
  out=$("$strata" run "$T/plan.json" "$T/suite.json" --providers "$T/providers.json" --repositories "$T/repos.json" \
    --ledger "$T/a-$1.json" --jobs 64 --text) || fail "(a) strata run failed: $out"
  end=$(now_ns)
  [ "$(sed -n 's/^Executed: //p' <<<"$out")" = 512 ] || fail "(a) did not execute 512: $out"
  echo "$((end - start))"
}

# --- (b) 4 shards of --jobs 16 on Slurm, then the merge -------------------------------------------
# run_sharded <round>: prints "<wall ns> <submit->first running ns> <submit->last running ns>
# <last shard end->merge start ns> <merge run ns> <merge end->gone from squeue ns> <max tasks at once
# (polled)> <max shards at once (stamps)> <shard run ns, min> <shard run ns, max> <array id> <merge id>".
run_sharded() {
  local job=$T/b-$1 t0 sub array_id merge_id seen running max_running=0 gone_ns info
  mkdir -p "$job"
  export STAMPS=$job/stamps
  : >"$STAMPS"
  t0=$(now_ns)
  sub=$(cd "$job" && env STRATA="$T/strata-stamped" PLAN="$T/plan.json" SUITE="$T/suite.json" \
    PROVIDERS="$T/providers.json" REPOSITORIES="$T/repos.json" SHARDS=4 JOBS=16 \
    bash "$repo/examples/slurm/submit.sh") || fail "submit.sh failed: $sub"
  array_id=$(sed -n 's/^array job: \([0-9]*\).*/\1/p' <<<"$sub")
  merge_id=$(sed -n 's/^merge job: \([0-9]*\).*/\1/p' <<<"$sub")
  [ -n "$array_id" ] && [ -n "$merge_id" ] || fail "no job ids from submit.sh: $sub"
  log "(b) round $1: array job $array_id, merge job $merge_id"
  local until=$(($(date +%s) + 180))
  while :; do
    seen=$(squeue -h -j "$array_id,$merge_id" -o '%i %T' 2>/dev/null) || seen="?"
    [ -n "$seen" ] || break
    running=$(grep -c "^${array_id}_[0-9]* RUNNING" <<<"$seen" || true)
    [ "$running" -le "$max_running" ] || max_running=$running
    [ "$(date +%s)" -lt "$until" ] || fail "(b) jobs still queued after 180 s: $seen"
    sleep 0.1
  done
  gone_ns=$(now_ns)
  for id in "${array_id}_0" "${array_id}_1" "${array_id}_2" "${array_id}_3" "$merge_id"; do
    info=$(scontrol show job "$id" 2>/dev/null) || info=""
    grep -q 'JobState=COMPLETED ' <<<"$info" && grep -q 'ExitCode=0:0' <<<"$info" ||
      fail "(b) job $id did not complete: $(scontrol show job "$id" 2>&1 | grep -oE 'JobState=[A-Z_]+|ExitCode=[0-9:]+' | tr '\n' ' ')"
  done
  [ -s "$job/ledger.json" ] || fail "(b) no merged ledger"
  for i in 0 1 2 3; do
    [ "$(sed -n 's/^Executed: //p' "$job/logs/strata-shard-${array_id}_$i.out")" = 128 ] ||
      fail "(b) shard $i did not execute 128: $(tail -n 5 "$job/logs/strata-shard-${array_id}_$i.out")"
  done
  python3 - "$STAMPS" "$t0" "$gone_ns" "$max_running" "$array_id" "$merge_id" <<'PY'
import sys
stamps, t0, gone, polled, array_id, merge_id = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
start, end = {}, {}
for line in open(stamps):
    kind, ns, who = line.split()
    (start if kind == "start" else end)[who] = int(ns)
shards = [str(i) for i in range(4)]
assert all(s in start and s in end for s in shards + ["merge"]), (start, end)
# Most shards whose strata ran at the same moment (from the stamps).
events = sorted([(start[s], 1) for s in shards] + [(end[s], -1) for s in shards])
live = at_once = 0
for _, d in events:
    live += d
    at_once = max(at_once, live)
runs = [end[s] - start[s] for s in shards]
print(end["merge"] - t0, min(start[s] for s in shards) - t0, max(start[s] for s in shards) - t0,
      start["merge"] - max(end[s] for s in shards), end["merge"] - start["merge"], gone - end["merge"],
      polled, at_once, min(runs), max(runs), array_id, merge_id)
PY
}

# --- the rounds -----------------------------------------------------------------------------------
log "starting the Slurm cluster (4 CPUs claimed on a $(nproc)-core machine)"
c0=$(now_ns)
slurm_cluster_start 4 || fail "the Slurm cluster did not start"
cluster_up=$(now_ns)
log "cluster up in $(secs $((cluster_up - c0))) s; warm-up: one (a) run and one trivial Slurm job, not timed"
run_single warm >/dev/null
rm -f "$T/a-warm.json"*
warm=$(sbatch --parsable -o /dev/null --wrap true)
while [ -n "$(squeue -h -j "${warm%%;*}" 2>/dev/null)" ]; do sleep 0.1; done

wa=() wb=() lf=() ll=() lm=() mr=() mg=() srmin=() srmax=() pol=() once=()
for r in $(seq "$rounds"); do
  if ((r % 2)); then parts="a b"; else parts="b a"; fi
  for p in $parts; do
    if [ "$p" = a ]; then
      log "(a) round $r: one strata run, --jobs 64"
      w=$(run_single "$r") || exit 1
      wa+=("$w")
      log "(a) round $r: $(secs "${wa[-1]}") s"
    else
      log "(b) round $r: 4 shards of --jobs 16 on Slurm + merge"
      read -r w f l m mrun g pl ao smin smax array_id merge_id < <(run_sharded "$r")
      [ -n "${w:-}" ] || fail "(b) round $r: no measurement"
      wb+=("$w") lf+=("$f") ll+=("$l") lm+=("$m") mr+=("$mrun") mg+=("$g") pol+=("$pl") once+=("$ao") srmin+=("$smin") srmax+=("$smax")
      last_array=$array_id last_merge=$merge_id last_b=$r
      log "(b) round $r: $(secs "$w") s (array $array_id, merge $merge_id)"
    fi
  done
done

# scontrol's own times for the last (b) round (whole seconds), before the cluster goes away.
job_times() {
  scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | grep -E '^(SubmitTime|StartTime|EndTime)=' | tr '\n' ' '
}
sctl_rows=()
for id in "${last_array}_0" "${last_array}_1" "${last_array}_2" "${last_array}_3" "$last_merge"; do
  sctl_rows+=("| $id | $(job_times "$id" | sed 's/SubmitTime=\([^ ]*\) StartTime=\([^ ]*\) EndTime=\([^ ]*\) /\1 | \2 | \3/') |")
done

# --- the merge by hand, and correctness -------------------------------------------------------------
job=$T/b-$last_b
shards=()
for i in 0 1 2 3; do shards+=("$job/ledgers/shard-$i.json"); done
log "merge by hand on round $last_b's shard ledgers, under /usr/bin/time"
/usr/bin/time -f '%e %M' -o "$T/merge-time" "$strata" ledger merge "${shards[@]}" --plan "$T/plan.json" --suite "$T/suite.json" \
  --require-complete -o "$T/merged-again.json" --text >"$T/merge-out" 2>&1 || fail "merge by hand failed: $(cat "$T/merge-out")"
read -r merge_wall merge_kb <"$T/merge-time"

for r in $(seq "$rounds"); do
  merged=$T/b-$r/ledger.json
  "$strata" verify "$merged" >/dev/null || fail "round $r: the merged ledger does not verify"
  n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["observations"]))' "$merged")
  [ "$n" = 512 ] || fail "round $r: the merged ledger holds $n observations, not 512"
  "$strata" verify "$T/a-$r.json" >/dev/null || fail "round $r: the (a) ledger does not verify"
  order "$merged" >"$T/order-b-$r"
  order "$T/a-$r.json" >"$T/order-a-$r"
  cmp -s "$T/order-a-$r" "$T/order-b-$r" || fail "round $r: merged ledger order differs from the single run's"
done
"$strata" verify "$T/merged-again.json" >/dev/null || fail "the merge by hand does not verify"
cmp -s "$T/merged-again.json" "$job/ledger.json" && same_again="byte-identical to" || same_again="differs from"
verified="yes: all $rounds merged ledgers verify, hold 512 observations each, in the (a) ledger's execution order"

ma=$(median "${wa[@]}") mb=$(median "${wb[@]}")
ratio=$(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.2f", b / a }')
ms() { awk -v n="$(median "$@")" 'BEGIN { printf "%.2f", n / 1e9 }'; }

echo "# Scale-out benchmark: 512 executions ($provider_ms ms each), one machine vs 4 Slurm shards + merge"
echo
echo "$(date -u '+%F %T UTC'); strata: $build/strata (built $(date -r "$build/strata" '+%F %T'), tree $(git describe --always --dirty 2>/dev/null || echo unknown)); $(nproc) cores; Slurm $(sinfo -V 2>/dev/null | awk '{ print $2 }') single node claiming 4 CPUs; $rounds round(s), order alternating; load at end $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| Run | Median wall (s) | All rounds (s) |"
echo "|---|---:|---|"
echo "| (a) \`strata run --jobs 64\`, one process (ideal 8 waves x $provider_s s = $ideal_s s) | $(secs "$ma") | $(all_secs "${wa[@]}") |"
echo "| (b) 4 shards \`--jobs 16\` on Slurm + merge job: submit.sh -> merged ledger written | $(secs "$mb") | $(all_secs "${wb[@]}") |"
echo
echo "Ratio (b)/(a), medians: **${ratio}x** (target <= 1.2)."
echo
echo "| (b) broken down (medians, s) | Median | All rounds |"
echo "|---|---:|---|"
echo "| Slurm: submit.sh -> first shard's strata running | $(ms "${lf[@]}") | $(all_secs "${lf[@]}") |"
echo "| Slurm: submit.sh -> last shard's strata running | $(ms "${ll[@]}") | $(all_secs "${ll[@]}") |"
echo "| Strata: one shard's run (128 executions, --jobs 16), shortest / longest | $(ms "${srmin[@]}") / $(ms "${srmax[@]}") | $(all_secs "${srmin[@]}") / $(all_secs "${srmax[@]}") |"
echo "| Slurm: last shard's strata exit -> merge's strata start (afterok) | $(ms "${lm[@]}") | $(all_secs "${lm[@]}") |"
echo "| Strata: merge job's strata (start -> exit) | $(ms "${mr[@]}") | $(all_secs "${mr[@]}") |"
echo "| Slurm: merge's strata exit -> merge job gone from squeue (not in (b)'s wall) | $(ms "${mg[@]}") | $(all_secs "${mg[@]}") |"
echo
echo "Shards running at once: $(echo "${once[@]}") by the strata start/exit stamps, $(echo "${pol[@]}") array tasks RUNNING at once by squeue polling (per round)."
echo
echo "Merge by hand (\`strata ledger merge\` of the 4 shard ledgers, --plan --suite --require-complete, /usr/bin/time): **${merge_wall} s wall, $(awk -v k="$merge_kb" 'BEGIN { printf "%.1f", k / 1024 }') MiB peak RSS**; output $same_again the merge job's ledger."
echo
echo "Correctness (outside the timings): $verified; each (a) run executed 512; each shard executed 128."
echo
echo "scontrol show job, last (b) round (whole seconds):"
echo
echo "| Job | SubmitTime | StartTime | EndTime |"
echo "|---|---|---|---|"
printf '%s\n' "${sctl_rows[@]}"
