#!/usr/bin/env bash
# `strata run` crash safety (spec §3.10): a study of 512 executions is SIGKILLed at random moments
# and re-run each time; the final ledger holds every planned execution exactly once, verifies,
# and a further re-run executes nothing.
# Usage: run_crash_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
KILLS=10

# A suite of 32 repositories x 4 tasks = 128 tasks, the most a suite may hold (consumer-07..32 copy
# the tasks of consumer-01..06), a pairwise plan over all 128 tasks with sampleSize 4 x 128 = 512,
# 32 repository roots, and a provider for all six mappings. The provider answers after 0-250 ms
# (with 0-50 ms a whole run took ~0.8 s on 2 cores and 8 of the 10 kills came after the end), so a
# whole run takes ~5 s with 16 jobs and most of the kills below land mid-run.
python3 - "$WORK" "$FIX" <<'PY'
import json, sys
from study_payloads import grown_pairwise_study, provider_entries, write_provider_config, write_repository_config
work, fix = sys.argv[1:3]
suite, plan, ids = grown_pairwise_study(fix, 10000)
json.dump(suite, open(f"{work}/suite.payload.json", "w"))
plan["runId"] = "crash-test-01"
json.dump(plan, open(f"{work}/plan.payload.json", "w"))
write_repository_config(f"{work}/repos", ids, f"{work}/repos.payload.json")
write_provider_config(provider_entries(f"{work}/bin/provider.sh"), f"{work}/providers.payload.json")
PY
"$STRATA" seal task-suite "$WORK/suite.payload.json" -o "$WORK/suite.json"
# The plan must name the new suite's hash.
python3 -c "
import json
p = json.load(open('$WORK/plan.payload.json'))
p['taskSuiteHash'] = json.load(open('$WORK/suite.json'))['contentHash']
json.dump(p, open('$WORK/plan.payload.json', 'w'))
"
"$STRATA" seal run-plan "$WORK/plan.payload.json" -o "$WORK/plan.json"
"$STRATA" seal repository-config "$WORK/repos.payload.json" -o "$WORK/repos.json"
"$STRATA" seal provider-config "$WORK/providers.payload.json" -o "$WORK/providers.json"

mkdir -p "$WORK/bin"
cat >"$WORK/bin/provider.sh" <<'SH'
#!/bin/bash
# Sleeps 0-250 ms, then answers with valid metrics.
printf -v delay '0.%03d' $((RANDOM % 251))
sleep "$delay"
echo '{"inputTokens":3,"outputTokens":5,"tokenMethod":"provider"}'
SH
chmod +x "$WORK/bin/provider.sh"

ARGS=("$WORK/plan.json" "$WORK/suite.json" --providers "$WORK/providers.json" --repositories "$WORK/repos.json"
  --ledger "$WORK/ledger.json")

# kill_leftovers: providers orphaned by a SIGKILLed runner lead their own process groups.
kill_leftovers() {
  local pid
  for pid in $(pgrep -f "$WORK/bin/provider.sh"); do
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
  done
}
trap 'kill_leftovers; rm -rf "$WORK"' EXIT

run run "${ARGS[@]}" --dry-run --json
expect_code 0 "dry run"
PLANNED=$(python3 -c "import json; print(json.load(open('$WORK/stdout'))['summary']['planned'])")
expect_true "[ '$PLANNED' -ge 200 ]" "at least 200 executions planned (got $PLANNED)"

# Ten runs, each SIGKILLed after a random 0.05-0.6 s (a run that finished first just exits).
killed=0
finished=0
for round in $(seq 1 $KILLS); do
  "$STRATA" run "${ARGS[@]}" --jobs 16 --json >"$WORK/round-$round.out" 2>"$WORK/round-$round.err" &
  pid=$!
  sleep "$(python3 -c 'import random; print(round(random.uniform(0.05, 0.6), 3))')"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  code=$?
  if [ "$code" = 137 ]; then
    killed=$((killed + 1))
  else
    finished=$((finished + 1))
    CODE=$code
    expect_code 0 "round $round finished before its kill: exit 0 ($(head -c 300 "$WORK/round-$round.err"))"
  fi
done
echo "crash rounds: $killed killed mid-run, $finished finished before the kill"
expect_true "[ $killed -ge 1 ]" "at least one run was killed mid-run (else this test proves nothing)"

# Orphaned providers of the killed runs end on their own (they only sleep <= 250 ms).
sleep 0.3

run run "${ARGS[@]}" --jobs 16 --json
expect_code 0 "final run"
expect_true "python3 -c '
import json
s = json.load(open(\"$WORK/stdout\"))[\"summary\"]
assert s[\"status\"] == \"completed\" and s[\"planned\"] == $PLANNED, s
assert s[\"executed\"] + s[\"skipped\"] == $PLANNED, s
'" "final run summary"

expect_true "python3 -c '
import collections, json
obs = json.load(open(\"$WORK/ledger.json\"))[\"observations\"]
keys = collections.Counter(
    tuple(o[\"task\"][k] for k in (\"taskId\", \"repositoryId\", \"scenarioId\", \"modelId\", \"replicate\", \"variantId\"))
    for o in obs)
dups = {k: n for k, n in keys.items() if n > 1}
assert not dups, f\"duplicated execution keys: {dups}\"
assert len(obs) == $PLANNED, f\"{len(obs)} observations, planned $PLANNED\"
assert len(keys) == $PLANNED, f\"{len(keys)} distinct keys, planned $PLANNED\"
assert all(o[\"runId\"] == \"crash-test-01\" for o in obs)
bad = [(o[\"task\"][\"taskId\"], o[\"execution\"]) for o in obs if o[\"execution\"][\"status\"] != \"completed\"]
assert not bad, f\"{len(bad)} not completed, first: {bad[0]}\"
'" "ledger holds every planned execution exactly once, all completed"

# The ledger's keys are exactly the selection's: a further run finds every one recorded.
run run "${ARGS[@]}" --json
expect_code 0 "re-run"
expect_true "python3 -c '
import json
s = json.load(open(\"$WORK/stdout\"))[\"summary\"]
assert (s[\"status\"], s[\"planned\"], s[\"executed\"], s[\"skipped\"]) == (\"completed\", $PLANNED, 0, $PLANNED), s
'" "re-run executes nothing and skips every planned execution"

run verify --text "$WORK/ledger.json"
expect_code 0 "strata verify"

kill_leftovers
finish
