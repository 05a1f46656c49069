#!/usr/bin/env bash
# Workspaces survive a crash loop (issue 26): a study of 512 executions (16 per repository) with --workspace overlay
# --confine, and another with --workspace copy --confine, SIGKILLed at random moments (while
# workspaces are made, run in and removed) and re-run each time. After every kill no provider
# process is left (they die with Strata); the next start sweeps what was left and names it; at
# the end the ledger holds every execution exactly once, completed, no workspace, probe or mount
# is left, and the repositories are unchanged.
# Usage: workspace_crash_test.sh <strata binary> <fixtures dir> [kills per mode] [repositories=32]
# (the sanitizer suite runs 8 repositories, 128 executions: every kill point, a quarter the work)
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
KILLS=${3:-8}
REPOSITORIES=${4:-32}
CODE=0
. "$(dirname "$0")/lib.sh"

# 32 repositories of 200 small files each (a copy takes some milliseconds: kills land in it too),
# the suite grown to them, a pairwise plan over all 128 tasks (512 executions).
python3 - "$WORK" "$FIX" "$REPOSITORIES" <<'PY'
import json, os, sys
from study_payloads import grown_pairwise_study, provider_entries, write_provider_config, write_repository_config
work, fix, repositories = sys.argv[1], sys.argv[2], int(sys.argv[3])
suite, plan, ids = grown_pairwise_study(fix, 20000, repositories)
json.dump(suite, open(f"{work}/suite.payload.json", "w"))
plan["runId"] = "workspace-crash-01"
json.dump(plan, open(f"{work}/plan.payload.json", "w"))
write_repository_config(f"{work}/repos", ids, f"{work}/repos.payload.json")
for i in ids:
    for d in range(10):
        os.makedirs(f"{work}/repos/{i}/d{d}", exist_ok=True)
        for f in range(20):
            open(f"{work}/repos/{i}/d{d}/f{f}.txt", "w").write(f"{i} {d} {f}\n" * 20)
write_provider_config(provider_entries(f"{work}/bin/provider.sh"), f"{work}/providers.payload.json")
PY
seal_study "$WORK"
cp -a "$WORK/repos" "$WORK/pristine"

mkdir -p "$WORK/bin"
MARK=$$$RANDOM
cat >"$WORK/bin/provider.sh" <<SH
#!/bin/bash
# Writes into its workspace, sleeps 0-250 ms, answers.
cat >/dev/null
echo changed >> d0/f0.txt
printf -v delay '0.%03d$MARK' \$((RANDOM % 251))
sleep "\$delay"
echo '{"inputTokens":3,"outputTokens":5,"tokenMethod":"provider"}'
SH
chmod +x "$WORK/bin/provider.sh"

# leftovers: provider processes still running (none may outlive the Strata that started them).
leftovers() { pgrep -f "$MARK" | tr '\n' ' '; }

# crash_loop <mode args...>: KILLS runs SIGKILLed after a random 0.05-1.0 s, then a final run.
crash_loop() {
  local name=$1 ledger=$WORK/$1.json round killed=0 pid code left
  shift
  for round in $(seq 1 "$KILLS"); do
    "$STRATA" run "$WORK/plan.json" "$WORK/suite.json" --providers "$WORK/providers.json" --repositories "$WORK/repos.json" \
      --ledger "$ledger" --jobs 16 --json "$@" >"$WORK/round.out" 2>"$WORK/round.err" &
    pid=$!
    sleep "$(python3 -c 'import random; print(round(random.uniform(0.05, 1.0), 3))')"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    code=$?
    if [ "$code" = 137 ]; then
      killed=$((killed + 1))
      # The parent-death signals are delivered at once; a survivor (the race the launcher and PID 1
      # close) would run its provider's remaining 0-250 ms, so the look comes soon after.
      sleep 0.3
      left=$(leftovers)
      expect_true "[ -z '$left' ]" "$name round $round: no provider outlives the killed strata (left: $left)"
      [ -n "$left" ] && kill -KILL $left 2>/dev/null
    else
      CODE=$code
      expect_code 0 "$name round $round finished before its kill ($(head -c 300 "$WORK/round.err"))"
    fi
    expect_true "! grep -q '$WORK' /proc/mounts" "$name round $round: no mount left in Strata's namespace"
  done
  echo "$name: $killed of $KILLS runs killed mid-run"
  expect_true "[ $killed -ge 1 ]" "$name: at least one run was killed mid-run"
  local stale
  stale=$(ls -A "$ledger.workspaces" 2>/dev/null | wc -l)
  run run "$WORK/plan.json" "$WORK/suite.json" --providers "$WORK/providers.json" --repositories "$WORK/repos.json" \
    --ledger "$ledger" --jobs 16 --json "$@"
  expect_code 0 "$name: final run"
  if [ "$stale" -gt 0 ]; then
    expect_true "[ \$(grep -c 'removed a workspace an interrupted run left' '$WORK/stderr') = $stale ]" \
      "$name: the final run swept and named the $stale workspaces the last kill left"
  fi
  expect_true "python3 -c '
import collections, json
obs = json.load(open(\"$ledger\"))[\"observations\"]
keys = collections.Counter(json.dumps(o[\"task\"], sort_keys=True) for o in obs)
assert max(keys.values()) == 1 and len(obs) == $((REPOSITORIES * 16)), (len(obs), max(keys.values()))
bad = [o[\"execution\"] for o in obs if o[\"execution\"][\"status\"] != \"completed\" or o[\"measurements\"][\"workspaceChangedFiles\"] != 1]
assert not bad, bad[0]
'" "$name: every execution exactly once, completed, one file changed in its workspace"
  expect_true "[ -z \"\$(ls -A '$ledger.workspaces' 2>/dev/null)\" ] && ! ls -d '$ledger'.workspace-probe-* >/dev/null 2>&1" \
    "$name: no workspace or probe left"
  expect_true "diff -r '$WORK/pristine' '$WORK/repos' >/dev/null" "$name: the repositories are unchanged"
  run verify --text "$ledger"
  expect_code 0 "$name: strata verify"
}

crash_loop overlay --workspace overlay --confine
crash_loop copy --workspace copy --confine
finish
