#!/usr/bin/env bash
# `strata adjudicate` run again never judges twice (issue 28, part 2; docs/DECISIONS.md "An
# adjudication that never bills twice"): the same command after a completed batch, and after a
# kill at every step of the end of a batch (the process stops itself at the step through
# STRATA_TEST_STOP_AT, the test sees it stopped there and SIGKILLs it: on observed progress, not
# on a clock), judges nothing again, counted at the judge; the output then verifies and holds
# every judgement. Another input ledger, adjudicator configuration or selection into the same
# output is refused (exit 2, the output untouched, no judge called) unless --force; a batch
# chained on the output itself is not; a receipt whose output changed is ignored.
# Usage: adjudicate_rerun_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1

# Two ledgers of 6 observations (runs x and y), and two configurations of one counting judge.
python3 - "$FIX" "$WORK" <<'PY'
import json, sys
fix, work = sys.argv[1:3]
suite = json.load(open(f"{fix}/task-suite-v1.json"))
plan = json.load(open(f"{fix}/run-plan-v1.json"))
for name, runs in (("ledger", "xxxyyy"), ("other", "xyxyxy")):
    obs = []
    for i, run in enumerate(runs):
        task = suite["tasks"][i]
        obs.append({"type": "controlled-study-observation", "schemaVersion": 1, "observationVersion": "v1",
            "observedAt": "2026-12-04T12:00:0%d.000Z" % i, "runId": run, "planHash": plan["contentHash"],
            "task": {"taskId": task["id"], "repositoryId": task["repositoryId"], "category": task["category"],
                     "scenarioId": "repository-only", "modelId": "low-cost-model", "replicate": 0,
                     "variantId": "variant-a", "difficulty": task["difficulty"]},
            "model": plan["models"][0], "scenario": plan["scenarios"][0],
            "execution": {"status": "completed", "exitCode": 0, "signal": None, "durationMs": 10 + i,
                          "responseBytes": 2, "stderrBytes": 0},
            "contextBytes": 100, "evidenceIds": ["entrypoint-evidence"], "measurements": {"acceptanceChecksPassed": 1},
            "adjudication": {"status": "pending"}})
    for i, o in enumerate(obs):
        json.dump(o, open(f"{work}/{name}-obs{i}.payload.json", "w"))
for name, limit in (("judge", 10000), ("judge2", 20000)):
    json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1",
               "providers": [{"modelId": "low-cost-model", "scenarioIds": ["repository-only"], "command": "true",
                              "providerNetwork": False, "maxInputBytes": 1000, "maxOutputBytes": 1000}],
               "adjudicator": {"id": "judge-one", "modelId": "reference-model", "command": f"{work}/judge",
                               "providerNetwork": False, "maxInputBytes": 1000000, "maxOutputBytes": limit}},
              open(f"{work}/{name}.payload.json", "w"))
PY
for name in ledger other; do
  for i in 0 1 2 3 4 5; do "$STRATA" seal observation "$name-obs$i.payload.json" -o "$name-obs$i.json" >/dev/null; done
  python3 -c "
import json, sys
obs = [json.load(open('$name-obs%d.json' % i)) for i in range(6)]
json.dump({'type': 'controlled-study-observation-ledger', 'schemaVersion': 1, 'ledgerVersion': 'v1', 'observations': obs}, open('$name.payload.json', 'w'))"
  "$STRATA" seal ledger "$name.payload.json" -o "$name.json" >/dev/null
done
for name in judge judge2; do "$STRATA" seal provider-config "$name.payload.json" -o "$name.json" >/dev/null; done
cp "$FIX/task-suite-v1.json" suite.json
printf '%s\n' '#!/bin/sh' "cat >/dev/null; echo call >>'$WORK/calls'" \
  'echo "{\"outcome\":\"success\",\"confidence\":0.9,\"reasonCodes\":[\"rubric-match\"],\"inputTokens\":100,\"outputTokens\":30,\"tokenMethod\":\"provider\"}"' >judge
chmod +x judge
calls() { [ -e calls ] && wc -l <calls || echo 0; }
hash_of() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['contentHash'])" "$1"; }
# every observation of the batch judged once by the judge, the others as they were
all_judged() {
  python3 - "$1" "$2" <<'PY'
import json, sys
output, run = sys.argv[1:3]
obs = json.load(open(output))["observations"]
ok = all((o["adjudication"]["status"] == "automated") == (run in ("", o["runId"])) for o in obs)
sys.exit(0 if ok and len(obs) == 6 else 1)
PY
}

# 1. A completed batch, then the same command: nothing judged again.
run adjudicate ledger.json suite.json --adjudicator judge.json --output out.json --run-id x
expect_code 0 "a batch of run x"
expect_true "[ \$(calls) = 3 ]" "three judgements"
expect_true "[ -s out.json.adjudication-receipt ] && [ ! -s out.json.adjudication-journal ]" "a receipt, the checkpoint emptied"
first=$(hash_of out.json)
cp "$WORK/stdout" first.stdout
run adjudicate ledger.json suite.json --adjudicator judge.json --output out.json --run-id x
expect_code 0 "the same command again"
expect_true "[ \$(calls) = 3 ]" "the same command again: no judge called"
expect_err_has "out.json already holds the 3 judgement(s) of this batch: nothing judged again" "the same command again says so"
expect_true "cmp -s first.stdout '$WORK/stdout' && [ \$(hash_of out.json) = $first ]" "the same command again: the same output, printed the same"
run adjudicate ledger.json suite.json --adjudicator judge.json --output out.json --run-id x --text
expect_out_has "Content hash: $first" "--text again: the output's hash"

# 2. A kill at every step of the end of a batch, then the same command.
for step in adjudication-judged adjudication-output-written adjudication-receipt-written adjudication-checkpoint-emptied; do
  rm -f calls "kill-$step.json"*
  STRATA_TEST_STOP_AT=$step "$STRATA" adjudicate ledger.json suite.json --adjudicator judge.json --output "kill-$step.json" \
    --run-id x >/dev/null 2>&1 &
  pid=$!
  stopped=no
  for _ in $(seq 500); do
    [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = T ] && { stopped=yes; break; }
    sleep 0.01
  done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  expect_true "[ $stopped = yes ]" "$step: the adjudication stopped at the step"
  expect_true "[ \$(calls) = 3 ]" "$step: three judgements before the kill"
  run adjudicate ledger.json suite.json --adjudicator judge.json --output "kill-$step.json" --run-id x
  expect_code 0 "$step: the same command after the kill"
  expect_true "[ \$(calls) = 3 ]" "$step: no judgement repeated ($(calls) judge calls)"
  expect_true "all_judged kill-$step.json x && '$STRATA' verify kill-$step.json >/dev/null" "$step: every judgement in the output, which verifies"
  expect_true "[ ! -s kill-$step.json.adjudication-journal ] && [ -s kill-$step.json.adjudication-receipt ]" "$step: the checkpoint emptied, the receipt there"
  run adjudicate ledger.json suite.json --adjudicator judge.json --output "kill-$step.json" --run-id x
  expect_true "[ \$(calls) = 3 ]" "$step: and once more, still nothing judged"
done

# 3. Another batch into the same output: refused, the output untouched, no judge called.
rm -f calls
refused() {
  local name=$1
  shift
  run adjudicate "$@" --output out.json
  expect_code 2 "$name"
  expect_err_has "out.json: The output already holds the judgements of another batch (" "$name"
  expect_err_has "judging this one would replace them. Choose another --output, or --force to replace them." "$name"
  expect_out_empty "$name"
  expect_true "[ \$(calls) = 0 ] && [ \$(hash_of out.json) = $first ]" "$name: nothing judged, the output as it was"
}
refused "another configuration" ledger.json suite.json --adjudicator judge2.json --run-id x
expect_err_has "adjudicator configuration $(hash_of judge.json | cut -c1-12), not $(hash_of judge2.json | cut -c1-12)" "another configuration is named"
refused "another selection" ledger.json suite.json --adjudicator judge.json --run-id x --limit 2
expect_err_has 'selection {"runId":"x","offset":null,"limit":null,"shard":null}, not {"runId":"x","offset":null,"limit":2,"shard":null}' "the selections are named"
refused "another input ledger" other.json suite.json --adjudicator judge.json --run-id x
expect_err_has "input ledger $(hash_of ledger.json | cut -c1-12), not $(hash_of other.json | cut -c1-12)" "the ledgers are named"
run adjudicate ledger.json suite.json --adjudicator judge2.json --run-id x --output out.json --force
expect_code 0 "--force replaces them"
expect_true "[ \$(calls) = 3 ] && all_judged out.json x" "--force: judged again with the other configuration"

# 4. A batch chained on the output itself (its input is that output): not refused.
cp out.json chained.json
cp out.json.adjudication-receipt chained.json.adjudication-receipt
run adjudicate chained.json suite.json --adjudicator judge2.json --run-id y --output chained.json
expect_code 0 "a batch chained on its own output"
expect_true "[ \$(calls) = 6 ] && all_judged chained.json ''" "the chained batch judged run y on top of run x"

# 5. A receipt whose output changed since says nothing: the batch is judged as before.
rm -f calls
"$STRATA" adjudicate ledger.json suite.json --adjudicator judge.json --output gone.json --run-id y >/dev/null
rm gone.json
run adjudicate ledger.json suite.json --adjudicator judge.json --output gone.json --run-id y
expect_code 0 "the output removed"
expect_true "[ \$(calls) = 6 ] && all_judged gone.json y" "the output removed: the batch judged again (the judgements were gone)"
finish
