#!/usr/bin/env bash
# The run-wide budget (issue 14 part 2): --max-tokens and --max-cost-usd on `strata run` and
# `strata adjudicate`. Every task's budget.maxTokens is 1,000, so an execution's worst case is
# 1,000 tokens per attempt (priced at the entry's highest rate, 2 USD per million: $0.002).
# - A provider that reports exactly 1,000 tokens: a limit of k x 1,000 records exactly k, at
#   --jobs 16, with random completion order, whatever the order; exit 4, Status: budget-reached;
#   a resume with a higher limit goes on; the limit counts the invocation, the summary also shows
#   the ledger's total for the run; without a limit the rest runs and exit is 0.
# - A cost limit: real costs (cached input at its own rate) replace the reservations, so more
#   than limit / worst case run, but the spend never passes the limit and stops only when the
#   next worst case cannot fit.
# - Failures, timeouts (no usage reported) keep their worst case, for every attempt; the run
#   ends (no reservation is left waiting).
# - A cost limit with a provider entry without pricing is refused before anything runs.
# - The same for adjudication: exact k judgements, no output ledger until the batch is done,
#   a re-run goes on from the checkpoint.
# Usage: run_budget_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"

# budgeted <mode> <max sleep ms> [input output cached]: reads the request, sleeps 0..max ms, then
#   ok:   answers with the given token counts;  fail: exits 1 without an answer;
#   hang: sleeps 60 s (past the attempt deadline);  judge: answers as an adjudicator.
cat >"$WORK/budgeted.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char** argv) {
  char buf[65536];
  while (read(0, buf, sizeof buf) > 0) {}
  if (argc < 3) return 2;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  srand((unsigned)(now.tv_nsec ^ getpid()));
  usleep((useconds_t)(rand() % (atoi(argv[2]) + 1)) * 1000);
  if (strcmp(argv[1], "fail") == 0) return 1;
  if (strcmp(argv[1], "hang") == 0) { sleep(60); return 0; }
  const char* in = argc > 3 ? argv[3] : "600";
  const char* out = argc > 4 ? argv[4] : "400";
  const char* cached = argc > 5 ? argv[5] : "0";
  if (strcmp(argv[1], "judge") == 0)
    printf("{\"outcome\":\"success\",\"confidence\":0.9,\"reasonCodes\":[\"budget\"],\"inputTokens\":%s,"
           "\"outputTokens\":%s,\"tokenMethod\":\"provider\"}\n", in, out);
  else
    printf("{\"inputTokens\":%s,\"outputTokens\":%s,\"tokenMethod\":\"provider\",\"taskOutcome\":\"success\","
           "\"measurements\":{\"cachedInputTokens\":%s}}\n", in, out, cached);
  return fflush(stdout) == 0 ? 0 : 5;
}
C
cc -O2 -o "$WORK/budgeted" "$WORK/budgeted.c" || { echo "FAIL: cannot compile the provider" >&2; exit 1; }

# The fixture suite with every task's budget.maxTokens at 1,000; a pairwise plan of all 96 cells
# (maxAttempts as given); provider configs: <name>.providers.json.
python3 - "$WORK" "$FIX" <<'PY'
import json, sys
from study_payloads import FIXTURE_REPOSITORIES, provider_entries, unsealed, write_repository_config
work, fix = sys.argv[1:3]
suite = unsealed(f"{fix}/task-suite-v1.json")
for t in suite["tasks"]:
    t["budget"]["maxTokens"] = 1000
json.dump(suite, open(f"{work}/suite.payload.json", "w"))
write_repository_config(f"{work}/repos", FIXTURE_REPOSITORIES, f"{work}/repos.payload.json")
pricing = {"currency": "USD", "inputPerMillionUsd": 1, "cachedInputPerMillionUsd": 0.5, "outputPerMillionUsd": 2}
def config(name, args, priced=True, unpriced_entries=()):
    entries = provider_entries(f"{work}/budgeted", args)
    for e in entries:
        if priced and (e["modelId"], e["scenarioIds"][0]) not in unpriced_entries:
            e["pricing"] = pricing
    doc = {"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1", "providers": entries,
           "adjudicator": {"id": "budget-judge", "modelId": "reference-model", "command": f"{work}/budgeted",
                           "args": ["judge", "20", "600", "400"], "providerNetwork": False,
                           "maxInputBytes": 1000000, "maxOutputBytes": 10000, "pricing": pricing}}
    json.dump(doc, open(f"{work}/{name}.providers.payload.json", "w"))
config("exact", ["ok", "20", "600", "400"])
config("cached", ["ok", "20", "400", "400", "200"])
config("fail", ["fail", "20"])
config("hang", ["hang", "0"])
# Unpriced: two entries the plan uses, one it does not (registry-assisted is not sampled).
config("unpriced", ["ok", "20"], unpriced_entries={("low-cost-model", "deterministic-doc-bridge"),
                                                  ("low-cost-model", "registry-assisted"), ("reference-model", "repository-only")})
plan = unsealed(f"{fix}/run-plan-v1.json")
plan["sampling"] = {"strategy": "pairwise-task-strata", "sampleSize": 96,
                    "scenarioIds": ["repository-only", "deterministic-doc-bridge"]}
for name, attempts, runtime in (("one", 1, 60000), ("two", 2, 60000), ("short", 1, 300)):
    plan["runId"] = f"budget-{name}"
    plan["budget"] = {"maxTokens": 1000, "maxRuntimeMs": runtime, "maxOutputBytes": 256000, "maxAttempts": attempts}
    json.dump(plan, open(f"{work}/{name}.plan.payload.json", "w"))
PY
"$STRATA" seal task-suite "$WORK/suite.payload.json" -o "$WORK/suite.json" >/dev/null
SUITE_HASH=$(python3 -c "import json; print(json.load(open('$WORK/suite.json'))['contentHash'])")
for name in one two short; do
  sed -i "s/\"taskSuiteHash\": \"[0-9a-f]*\"/\"taskSuiteHash\": \"$SUITE_HASH\"/" "$WORK/$name.plan.payload.json"
  "$STRATA" seal run-plan "$WORK/$name.plan.payload.json" -o "$WORK/$name.plan.json" >/dev/null
done
for name in exact cached fail hang unpriced; do
  "$STRATA" seal provider-config "$WORK/$name.providers.payload.json" -o "$WORK/$name.providers.json" >/dev/null
done
"$STRATA" seal repository-config "$WORK/repos.payload.json" -o "$WORK/repos.json" >/dev/null

budget_run() {  # budget_run <plan> <providers> <ledger> [extra args]
  local plan=$1 providers=$2 ledger=$3
  shift 3
  run run "$WORK/$plan.plan.json" "$WORK/suite.json" --providers "$WORK/$providers.providers.json" \
    --repositories "$WORK/repos.json" --ledger "$WORK/$ledger" --jobs 16 --kill-grace-ms 200 "$@"
}
# observations <ledger>: how many observations the ledger holds (each execution once, checked).
observations() {
  python3 - "$1" <<'PY'
import json, sys
obs = json.load(open(sys.argv[1]))["observations"]
keys = [json.dumps(o["task"], sort_keys=True) for o in obs]
assert len(set(keys)) == len(keys), "an execution recorded twice"
print(len(obs))
PY
}
# ledger_spend <ledger>: "<tokens> <cost>" summed over its observations.
ledger_spend() {
  python3 - "$1" <<'PY'
import json, sys
obs = json.load(open(sys.argv[1]))["observations"]
tokens = sum(o["execution"].get("inputTokens", 0) + o["execution"].get("outputTokens", 0) for o in obs)
cost = sum(o.get("measurements", {}).get("agentCostUsd", 0) for o in obs)
print(tokens, f"{cost:.8f}")
PY
}

# --- exactly k: a limit of k worst cases, usage equal to the worst case -----------------------
for round in 1 2; do  # two rounds: the completion order differs (random sleeps)
  budget_run one exact "exact-$round.json" --max-tokens 7000 --text
  expect_code 4 "exact $round: budget reached, exit 4"
  expect_out_has "Status: budget-reached" "exact $round: the summary says so"
  expect_out_has "Executed: 7" "exact $round: seven executed"
  expect_out_has "Spent: 7000 tokens, \$0.0098 (limit 7000 tokens)" "exact $round: spent tokens and cost"
  expect_out_has "Run total in the ledger: 7000 tokens, \$0.0098" "exact $round: the run's total"
  expect_true "[ \"\$(observations '$WORK/exact-$round.json')\" = 7 ]" "exact $round: exactly 7 observations recorded"
  run verify --text "$WORK/exact-$round.json"
  expect_code 0 "exact $round: strata verify"
done

# A resume with a higher limit goes on; the limit counts this invocation only.
budget_run one exact exact-1.json --max-tokens 5000 --text
expect_code 4 "resume: budget reached again"
expect_out_has "Executed: 5" "resume: five more"
expect_out_has "Skipped: 7" "resume: the seven recorded are skipped"
expect_out_has "Spent: 5000 tokens" "resume: the invocation's spend"
expect_out_has "Run total in the ledger: 12000 tokens" "resume: the run's total over both invocations"
expect_true "[ \"\$(observations '$WORK/exact-1.json')\" = 12 ]" "resume: 12 observations"
budget_run one exact exact-1.json
expect_code 0 "resume without a limit: exit 0"
expect_true "python3 -c 'import json,sys; s=json.load(sys.stdin)[\"summary\"]; assert s[\"status\"]==\"completed\" and s[\"executed\"]==84 and \"budget\" not in s' <'$WORK/stdout'" \
  "resume without a limit: the other 84 run, JSON summary without a budget member"
expect_true "[ \"\$(observations '$WORK/exact-1.json')\" = 96 ]" "resume without a limit: all 96"

# JSON summary of a budget-reached run.
budget_run one exact exact-json.json --max-tokens 3000 --max-cost-usd 1
expect_code 4 "json: exit 4"
expect_true "python3 -c '
import json, sys
s = json.load(sys.stdin)[\"summary\"]
assert s[\"status\"] == \"budget-reached\" and s[\"executed\"] == 3, s
assert s[\"budget\"] == {\"maxTokens\": 3000, \"maxCostUsd\": 1, \"spentTokens\": 3000, \"spentCostUsd\": 0.0042,
                         \"runTotalTokens\": 3000, \"runTotalCostUsd\": 0.0042}, s[\"budget\"]' <'$WORK/stdout'" \
  "json: status budget-reached and the budget member"

# A limit below one worst case launches nothing and records nothing.
budget_run one exact nothing.json --max-tokens 999 --text
expect_code 4 "below one worst case: exit 4"
expect_out_has "Executed: 0" "below one worst case: nothing executed"
expect_true "[ \"\$(observations '$WORK/nothing.json')\" = 0 ]" "below one worst case: no observation"

# --- a cost limit: real costs replace reservations --------------------------------------------
# Worst case $0.002; real cost (400 input of which 200 cached at $0.5, 400 output at $2) $0.0011.
budget_run one cached cost.json --max-cost-usd 0.02 --text
expect_code 4 "cost: budget reached"
read -r cost_tokens cost_usd < <(ledger_spend "$WORK/cost.json")
count=$(observations "$WORK/cost.json")
expect_true "python3 -c 'import sys; n, c = $count, $cost_usd; assert abs(c - n * 0.0011) < 1e-9 and c <= 0.02 + 1e-9 and c + 0.002 > 0.02, (n, c)'" \
  "cost: the spend ($cost_usd for $count executions) stays within \$0.02 and stops only when \$0.002 more cannot fit"
expect_true "[ $count -gt 10 ]" "cost: real costs freed room: more than 0.02 / 0.002 = 10 executions ($count)"
expect_out_has "Spent: $cost_tokens tokens, \$$(python3 -c "print(float('$cost_usd'))" | sed 's/0*$//')" "cost: the summary's spend"

# --- failures and timeouts keep their worst case, every attempt --------------------------------
budget_run two fail fail.json --max-tokens 6500 --text
expect_code 4 "fail: budget reached"
expect_out_has "Executed: 3" "fail: two attempts x 1,000 reserved and kept: 3 executions in 6,500"
expect_out_has "Spent: 6000 tokens" "fail: failures spend their worst case"
expect_true "python3 -c 'import json; o=json.load(open(\"$WORK/fail.json\"))[\"observations\"]; assert len(o)==3 and all(x[\"execution\"][\"status\"]==\"failed\" for x in o)'" \
  "fail: three failed observations"
budget_run short hang hang.json --max-tokens 2500 --text
expect_code 4 "hang: budget reached"
expect_out_has "Executed: 2" "hang: two timed-out executions in 2,500"
expect_true "python3 -c 'import json; o=json.load(open(\"$WORK/hang.json\"))[\"observations\"]; assert len(o)==2 and all(x[\"execution\"][\"status\"]==\"timed-out\" for x in o)'" \
  "hang: two timed-out observations"

# --- a cost limit needs pricing on every entry the plan uses -----------------------------------
budget_run one unpriced unpriced.json --max-cost-usd 5
expect_code 2 "unpriced: refused"
expect_err_has "--max-cost-usd needs pricing on every provider entry the plan uses; without pricing: providers[1] (low-cost-model: deterministic-doc-bridge); providers[3] (reference-model: repository-only)." \
  "unpriced: the entries the plan uses named (not providers[2], registry-assisted, which it does not sample)"
expect_out_empty "unpriced: nothing on stdout"
expect_file_absent "$WORK/unpriced.json" "unpriced: no ledger"
budget_run one unpriced unpriced.json --max-tokens 1000 --text
expect_code 4 "unpriced: a token limit needs no pricing"

# Bad limit values: usage errors, nothing written.
for bad in -1 nan abc; do
  budget_run one exact bad.json --max-cost-usd "$bad"
  expect_code 1 "--max-cost-usd $bad: a usage error"
  expect_file_absent "$WORK/bad.json" "--max-cost-usd $bad: no ledger"
done
budget_run one exact bad.json --max-tokens 1.5
expect_code 1 "--max-tokens 1.5: a usage error"
expect_file_absent "$WORK/bad.json" "--max-tokens 1.5: no ledger"

# --- adjudication ------------------------------------------------------------------------------
# The 96-observation ledger; the judge reports 1,000 tokens (the tasks' budget): exactly k.
judge() {  # judge <output> [extra args]
  local output=$1
  shift
  run adjudicate "$WORK/exact-1.json" "$WORK/suite.json" --adjudicator "$WORK/exact.providers.json" \
    --output "$WORK/$output" --jobs 16 "$@"
}
judge judged.json --max-tokens 5000 --text
expect_code 4 "adjudicate: budget reached"
expect_out_has "Status: budget-reached" "adjudicate: the summary says so"
expect_out_has "Judged: 5 of 96" "adjudicate: exactly five judged"
expect_out_has "Spent: 5000 tokens, \$0.007 (limit 5000 tokens)" "adjudicate: the spend"
expect_file_absent "$WORK/judged.json" "adjudicate: no output ledger before the batch is done"
expect_true "[ \$(wc -l <'$WORK/judged.json.adjudication-journal') = 5 ]" "adjudicate: five judgements in the checkpoint"
judge judged.json --max-tokens 4000 --text
expect_code 4 "adjudicate resumed: budget reached again"
expect_out_has "Judged: 9 of 96" "adjudicate resumed: four more"
judge judged.json --max-cost-usd 1 --text
expect_code 0 "adjudicate resumed with room: done"
expect_out_has "Adjudicated observations: 96" "adjudicate resumed with room: the output ledger"
expect_out_has "Spent: 87000 tokens, \$0.1218 (limit \$1)" "adjudicate resumed with room: the other 87 judged"
run verify --text "$WORK/judged.json"
expect_code 0 "adjudicate: strata verify"
python3 - "$WORK" <<'PY'
import json, sys
doc = json.load(open(f"{sys.argv[1]}/exact.providers.payload.json"))
del doc["adjudicator"]["pricing"]
json.dump(doc, open(f"{sys.argv[1]}/unpriced-judge.providers.payload.json", "w"))
PY
"$STRATA" seal provider-config "$WORK/unpriced-judge.providers.payload.json" -o "$WORK/unpriced-judge.providers.json" >/dev/null
run adjudicate "$WORK/exact-1.json" "$WORK/suite.json" --adjudicator "$WORK/unpriced-judge.providers.json" \
  --output "$WORK/unpriced-judged.json" --max-cost-usd 1
expect_code 2 "adjudicate unpriced: refused"
expect_err_has "--max-cost-usd needs pricing on the adjudicator; budget-judge declares none." "adjudicate unpriced: message"
expect_file_absent "$WORK/unpriced-judged.json" "adjudicate unpriced: no output"
expect_file_absent "$WORK/unpriced-judged.json.adjudication-journal" "adjudicate unpriced: no checkpoint"

finish
