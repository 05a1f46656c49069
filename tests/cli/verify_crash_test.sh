#!/usr/bin/env bash
# The verifier phase survives a crash loop (issue 42, docs/VERIFIER.md): a study of 4 repositories
# x 4 tasks x 4 arms (64 executions) under --workspace overlay --confine --verify, whose tasks each
# have two checks, SIGKILLed at moments observed in the phase, not by a clock: while the first
# check runs, while the second runs, just after an execution's verifier output file appears (its
# observation not yet durable), and once at a random moment. After every kill: no check process
# is left, and every observation the ledger and its journal hold is there once, with a complete
# verified record (never an observation without its verified counts). A final run completes the
# study: every execution exactly once, each verified 2 of 2, the repositories unchanged.
# Usage: verify_crash_test.sh <strata binary> <fixtures dir> [kills=8]
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
KILLS=${3:-8}
CODE=0
. "$(dirname "$0")/lib.sh"
MARK=$$$RANDOM  # digits: in the checks' sleep arguments, found by pgrep -f

python3 - "$WORK" "$FIX" "$MARK" <<'PY'
import json, os, sys
from study_payloads import grown_pairwise_study, provider_entries, write_provider_config, write_repository_config
work, fix, mark = sys.argv[1:4]
suite, plan, ids = grown_pairwise_study(fix, 20000, 4)
# sleep 0.05<MARK> is a sleep of about 50 ms whose command line names this test (and which check).
checks = [{"id": "first", "command": f"sleep 0.05{mark}; grep -q fixed fixed.txt", "expected": "fixed"},
          {"id": "second", "command": f"sleep 0.06{mark}; test -f fixed.txt", "expected": "fixed"}]
for t in suite["tasks"]:
    t["acceptanceChecks"] = checks
json.dump(suite, open(f"{work}/suite.payload.json", "w"))
plan["runId"] = "verify-crash-01"
json.dump(plan, open(f"{work}/plan.payload.json", "w"))
write_repository_config(f"{work}/repos", ids, f"{work}/repos.payload.json")
for i in ids:
    open(f"{work}/repos/{i}/README.md", "w").write(f"{i}\n")
write_provider_config(provider_entries(f"{work}/bin/provider.sh"), f"{work}/providers.payload.json")
PY
seal_study "$WORK"
cp -a "$WORK/repos" "$WORK/pristine"
mkdir -p "$WORK/bin"
cat >"$WORK/bin/provider.sh" <<'SH'
#!/bin/sh
# Fixes its workspace and claims both checks passed.
cat >/dev/null
echo fixed > fixed.txt
echo '{"inputTokens":3,"outputTokens":5,"tokenMethod":"provider","measurements":{"acceptanceChecksPassed":2,"acceptanceChecksTotal":2,"acceptanceChecksExecuted":2}}'
SH
chmod +x "$WORK/bin/provider.sh"

LEDGER=$WORK/ledger.json
ARGS=("$WORK/plan.json" "$WORK/suite.json" --providers "$WORK/providers.json" --repositories "$WORK/repos.json"
  --ledger "$LEDGER" --jobs 4 --workspace overlay --confine --verify --kill-grace-ms 300 --json)

# recorded_check <what>: the ledger's and the journal's observations (a torn last journal line
# is what a kill may leave, and the next start drops it) are each there once, each with its
# complete verified record.
cat >"$WORK/recorded.py" <<'PY'
import collections, json, os, sys
ledger, final = sys.argv[1], sys.argv[2] == "final"
observations = json.load(open(ledger))["observations"] if os.path.exists(ledger) else []
if os.path.exists(ledger + ".journal"):
    lines = open(ledger + ".journal", "rb").read().split(b"\n")
    for line in lines[:-1]:
        observations.append(json.loads(line))
keys = collections.Counter(json.dumps(o["task"], sort_keys=True) for o in observations)
assert not keys or max(keys.values()) == 1, ("recorded twice", [k for k, n in keys.items() if n > 1][:2])
for o in observations:
    m = o.get("measurements", {})
    got = [m.get(k) for k in ("verifiedChecksTotal", "verifiedChecksExecuted", "verifiedChecksPassed",
                              "verifiedCheck.first", "verifiedCheck.second")]
    assert o["execution"]["status"] == "completed" and got == [2, 2, 2, 1, 1], (o["task"], o["execution"], got)
    assert "verifier" in o["adjudication"].get("reason", ""), o["adjudication"]
if final:
    assert len(observations) == 64, len(observations)
print(len(observations))
PY

# wait_for <condition> <pid>: true once the condition holds while the run is still going.
wait_for() {
  local i
  for i in $(seq 1 400); do
    kill -0 "$2" 2>/dev/null || return 1
    eval "$1" && return 0
    sleep 0.01
  done
  return 1
}
outputs() { ls "$LEDGER.verifier" 2>/dev/null | wc -l; }

killed=0
for round in $(seq 1 "$KILLS"); do
  before=$(outputs)
  "$STRATA" run "${ARGS[@]}" >"$WORK/round.out" 2>"$WORK/round.err" &
  pid=$!
  case $((round % 4)) in
    1) point="while the first check runs"; wait_for "pgrep -f 'sleep 0.05$MARK' >/dev/null" "$pid" ;;
    2) point="while the second check runs"; wait_for "pgrep -f 'sleep 0.06$MARK' >/dev/null" "$pid" ;;
    3) point="just after a verifier output file appeared"; wait_for "[ \$(outputs) -gt $before ]" "$pid" ;;
    0) point="at a random moment"; sleep "$(python3 -c 'import random; print(round(random.uniform(0.1, 1.5), 3))')" ;;
  esac
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  code=$?
  if [ "$code" = 137 ]; then
    killed=$((killed + 1))
    sleep 0.3
    left=$(pgrep -f "$MARK" | tr '\n' ' ')
    expect_true "[ -z '$left' ]" "round $round (killed $point): no check or provider outlives the killed strata (left: $left)"
    [ -n "$left" ] && kill -KILL $left 2>/dev/null
  else
    CODE=$code
    expect_code 0 "round $round finished before its kill ($(head -c 300 "$WORK/round.err"))"
  fi
  expect_true "python3 '$WORK/recorded.py' '$LEDGER' round >'$WORK/count' 2>'$WORK/recorded.err'" \
    "round $round (killed $point): every recorded observation once, with its complete verified record ($(tail -1 "$WORK/recorded.err"))"
  echo "round $round: killed $point, $(cat "$WORK/count") recorded" >&2
done
echo "$killed of $KILLS runs killed mid-run" >&2
expect_true "[ $killed -ge $((KILLS / 2)) ]" "at least half the runs were killed mid-run ($killed)"

run run "${ARGS[@]}"
expect_code 0 "final run"
expect_true "python3 '$WORK/recorded.py' '$LEDGER' final >/dev/null" "final: all 64 executions once, each verified 2 of 2"
expect_true "diff -r '$WORK/pristine' '$WORK/repos' >/dev/null" "final: the repositories are unchanged"
expect_true "[ -z \"\$(ls -A '$LEDGER.workspaces' 2>/dev/null)\" ] && ! grep -q '$WORK' /proc/mounts" "final: no workspace or mount left"
# The pids cgroups of the checks a kill cut short (their launchers died with Strata) were removed
# by the launchers after them; those of finished checks by their own. (A launcher removes its own
# before it exits, so a cgroup still there once its launcher is gone was left: the directory is
# looked at again after the process, or another test's check ending meanwhile would count.)
leaked() {
  local d
  for d in /sys/fs/cgroup/pids/strata-processes/*/; do
    ! kill -0 "$(basename "$d")" 2>/dev/null && [ -d "$d" ] && echo "$d"
  done
}
if [ -d /sys/fs/cgroup/pids/strata-processes ]; then
  expect_true "[ -z \"\$(leaked)\" ]" "final: no pids cgroup of a killed check left ($(leaked | head -3 | tr '\n' ' '))"
fi
run verify --text "$LEDGER"
expect_code 0 "final: strata verify"
finish
