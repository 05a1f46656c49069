#!/usr/bin/env bash
# Full-matrix plans (study-v1 §3.1 step 4; issue 14 part 1): a 128-task suite with one replicate
# and a balanced-task-strata plan of sampleSize 768 (= 128 tasks x 2 models x 3 scenarios) runs
# every cell exactly once, in `strata select`'s order; 762 (one stratum below) still takes the
# balanced path and its message; 767 and 774 are still refused by the plan check. A resume of the
# finished run executes nothing.
# Usage: run_full_matrix_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"

# A provider that answers at once (compiled here: 768 launches of a shell or Python provider would
# cost seconds under the sanitizers for nothing this test checks).
cat >"$WORK/answer.c" <<'C'
#include <stdio.h>
#include <unistd.h>
int main(void) {
  char buf[65536];
  while (read(0, buf, sizeof buf) > 0) {}
  printf("{\"inputTokens\":3,\"outputTokens\":5,\"tokenMethod\":\"provider\",\"taskOutcome\":\"success\"}\n");
  return fflush(stdout) == 0 ? 0 : 5;
}
C
cc -O2 -o "$WORK/answer" "$WORK/answer.c" || { echo "FAIL: cannot compile the provider" >&2; exit 1; }

# The suite: 32 repositories (consumer-07..32 copy the tasks of consumer-01..06), 128 tasks, one
# replicate; plans of the given sample sizes; one provider entry per (model, scenario).
python3 - "$WORK" "$FIX" <<'PY'
import json, sys
from study_payloads import grown_tasks, provider_entries, unsealed, write_provider_config, write_repository_config
work, fix = sys.argv[1:3]
suite, plan = unsealed(f"{fix}/task-suite-v1.json"), unsealed(f"{fix}/run-plan-v1.json")
ids, tasks = grown_tasks(suite)
suite.update(population=ids, tasks=tasks, maxRuns=1000, replicatesPerTask=1)
json.dump(suite, open(f"{work}/suite.payload.json", "w"))
plan["taskIds"] = [t["id"] for t in tasks]
plan["budget"] = {"maxTokens": 400000, "maxRuntimeMs": 60000, "maxOutputBytes": 256000, "maxAttempts": 1}
for size in (768, 762, 767, 774):
    plan["runId"] = f"full-matrix-{size}"
    plan["sampling"] = {"strategy": "balanced-task-strata", "sampleSize": size}
    json.dump(plan, open(f"{work}/plan-{size}.payload.json", "w"))
write_repository_config(f"{work}/repos", ids, f"{work}/repos.payload.json")
write_provider_config(provider_entries(f"{work}/answer"), f"{work}/providers.payload.json")
PY
"$STRATA" seal task-suite "$WORK/suite.payload.json" -o "$WORK/suite.json" >/dev/null
SUITE_HASH=$(python3 -c "import json; print(json.load(open('$WORK/suite.json'))['contentHash'])")
for size in 768 762; do
  sed -i "s/\"taskSuiteHash\": \"[0-9a-f]*\"/\"taskSuiteHash\": \"$SUITE_HASH\"/" "$WORK/plan-$size.payload.json"
  "$STRATA" seal run-plan "$WORK/plan-$size.payload.json" -o "$WORK/plan-$size.json" >/dev/null
done
"$STRATA" seal repository-config "$WORK/repos.payload.json" -o "$WORK/repos.json" >/dev/null
"$STRATA" seal provider-config "$WORK/providers.payload.json" -o "$WORK/providers.json" >/dev/null

study_run() {  # study_run <sample size> [extra args]
  local size=$1
  shift
  run run "$WORK/plan-$size.json" "$WORK/suite.json" --providers "$WORK/providers.json" \
    --repositories "$WORK/repos.json" --ledger "$WORK/ledger-$size.json" "$@"
}

# 768: every cell, once, in the order of the whole matrix.
study_run 768 --jobs 16 --text
expect_code 0 "768: the full-matrix plan runs"
expect_out_has "Executed: 768" "768: every cell executed"
expect_err_empty "768: nothing on stderr"
run select "$WORK/suite.json"
expect_code 0 "select: the suite's whole matrix"
cp "$WORK/stdout" "$WORK/select.json"
expect_true "python3 - '$WORK/ledger-768.json' '$WORK/select.json' <<'PY'
import json, sys
observations = json.load(open(sys.argv[1]))['observations']
matrix = json.load(open(sys.argv[2]))['executions']
cell = lambda e: (e['taskId'], e['repositoryId'], e['category'], e['scenarioId'], e['modelId'], e['replicate'], e['variantId'])
assert len(matrix) == 768, len(matrix)
got = [cell(o['task']) for o in observations]
assert len(set(got)) == 768, f'{len(set(got))} distinct cells of {len(got)}'
assert got == [cell(e) for e in matrix], 'the ledger is not in the matrix order'
assert all(o['execution']['status'] == 'completed' for o in observations)
PY" "768: the ledger holds each of the 768 cells once, in the order of strata select"
run verify --text "$WORK/ledger-768.json"
expect_code 0 "768: strata verify"

# A resume of the finished run launches nothing.
study_run 768 --jobs 16 --text
expect_code 0 "768 resumed: exit 0"
expect_out_has "Executed: 0" "768 resumed: nothing left to execute"

# 762 (one stratum below the matrix): the balanced path, which has no 129th task.
study_run 762 --jobs 16
expect_code 2 "762: the balanced path cannot select past the last task"
expect_err_has "Unable to select a balanced execution for task 128." "762: the balanced path's message"
expect_true "[ ! -e '$WORK/ledger-762.json' ]" "762: no ledger written"

# 767 (not divisible) and 774 (one stratum above): the plan check refuses them, as before.
for size in 767 774; do
  sed -i "s/\"taskSuiteHash\": \"[0-9a-f]*\"/\"taskSuiteHash\": \"$SUITE_HASH\"/" "$WORK/plan-$size.payload.json"
  run seal run-plan "$WORK/plan-$size.payload.json" -o "$WORK/plan-$size.json"
  expect_code 2 "$size: the plan check refuses it"
  expect_err_has "Sampling must be a positive balanced subset of the task strata." "$size: the plan check's message"
  expect_true "[ ! -e '$WORK/plan-$size.json' ]" "$size: nothing sealed"
done

finish
