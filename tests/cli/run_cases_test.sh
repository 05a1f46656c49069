#!/usr/bin/env bash
# `strata run` with real provider processes on the canonical plan and suite: spec cases
# 36, 42-45, 49, resume, --jobs determinism, interrupts, the lock, and the journal.
# Usage: run_cases_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
BUILD=$(dirname "$STRATA")
. "$(dirname "$0")/lib.sh"
PLAN=$FIX/run-plan-v1.json
SUITE=$FIX/task-suite-v1.json
SECRET="sk-strata-test-$$-do-not-leak"
export OPENAI_API_KEY=$SECRET STRATA_TEST_OUT=$WORK/out
mkdir -p "$WORK/out"

# make_study <name> <command> [plan overrides as python dict] [extra provider fields]
make_study() {
  python3 - "$WORK" "$FIX" "$@" <<'PY'
import json, os, sys
from study_payloads import FIXTURE_REPOSITORIES, provider_entries, unsealed, write_provider_config, write_repository_config
work, fix, name, command = sys.argv[1:5]
plan_overrides = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
provider_extra = json.loads(sys.argv[6]) if len(sys.argv) > 6 else {}
os.makedirs(f"{work}/{name}", exist_ok=True)
write_repository_config(f"{work}/repos", FIXTURE_REPOSITORIES, f"{work}/{name}/repos.payload.json")
write_provider_config(provider_entries(command, **{"envAllowlist": ["STRATA_TEST_OUT"], **provider_extra}),
                      f"{work}/{name}/providers.payload.json")
plan = unsealed(f"{fix}/run-plan-v1.json")
for k, v in plan_overrides.items():
    if k == "budget":
        plan["budget"].update(v)
    else:
        plan[k] = v
json.dump(plan, open(f"{work}/{name}/plan.payload.json", "w"))
PY
  "$STRATA" seal repository-config "$WORK/$1/repos.payload.json" -o "$WORK/$1/repos.json"
  "$STRATA" seal provider-config "$WORK/$1/providers.payload.json" -o "$WORK/$1/providers.json"
  "$STRATA" seal run-plan "$WORK/$1/plan.payload.json" -o "$WORK/$1/plan.json"
}

# study_run <name> [extra args]: runs strata run on study <name> with its own ledger.
study_run() {
  local name=$1
  shift
  run run "$WORK/$name/plan.json" "$SUITE" --providers "$WORK/$name/providers.json" \
    --repositories "$WORK/$name/repos.json" --ledger "$WORK/$name/ledger.json" --kill-grace-ms 200 "$@"
}

# ledger_check <name> <python expression over `obs` (list of observations)> <label>
ledger_check() {
  expect_true "python3 -c '
import json
obs = json.load(open(\"$WORK/$1/ledger.json\"))[\"observations\"]
assert $2, [(o[\"execution\"][\"status\"], o[\"execution\"].get(\"errorCode\")) for o in obs][:4]
'" "$3"
}

script() {  # script <path> <body>: an executable provider
  printf '%s\n' "$2" >"$1"
  chmod +x "$1"
}

# --- 49: a real run records 24 observations; the second run skips them all ----------
script "$WORK/p-empty" '#!/bin/sh
cat >/dev/null
echo "{}"'
make_study empty "$WORK/p-empty"
study_run empty --text
expect_code 0 "49 run"
expect_out_has "Executed: 24" "49 executed 24"
expect_out_has "Ledger: $WORK/empty/ledger.json" "49 ledger path"
ledger_check empty 'len(obs) == 24 and all(o["execution"]["status"] == "completed" for o in obs)' "49 ledger has 24 completed"
run verify "$WORK/empty/ledger.json"
expect_code 0 "49 ledger verifies"
study_run empty --text
expect_out_has "Executed: 0" "49 second run executes nothing"
expect_out_has "Skipped: 24" "49 second run skips 24"
# Observations are in selection order (the balanced sample's order).
expect_true "python3 -c '
import json, subprocess
obs = json.load(open(\"$WORK/empty/ledger.json\"))[\"observations\"]
assert [o[\"task\"][\"taskId\"] for o in obs] == [t[\"id\"] for t in json.load(open(\"$SUITE\"))[\"tasks\"]]
'" "ledger lists the run in selection order"

# --- 44, 45: exactly one request on stdin; exactly the allowed environment ------------
script "$WORK/p-record" '#!/usr/bin/python3
import json, os, sys
data = sys.stdin.buffer.read()
t = json.loads(data)["task"]
name = os.path.join(os.environ["STRATA_TEST_OUT"], "-".join([t["taskId"], t["modelId"], t["scenarioId"]]))
open(name + ".stdin", "wb").write(data)
# Python itself adds LC_CTYPE when it coerces the C locale; everything else came from strata.
json.dump({k: v for k, v in os.environ.items() if k != "LC_CTYPE"}, open(name + ".env", "w"))
print("{}")'
make_study record "$WORK/p-record"
study_run record
expect_code 0 "44 run"
expect_true "python3 -c '
import json, os
obs = json.load(open(\"$WORK/record/ledger.json\"))[\"observations\"]
for o in obs:
    t = o[\"task\"]
    name = \"$WORK/out/%s-%s-%s\" % (t[\"taskId\"], t[\"modelId\"], t[\"scenarioId\"])
    assert os.path.getsize(name + \".stdin\") == o[\"contextBytes\"], name
    env = json.load(open(name + \".env\"))
    assert set(env) <= {\"PATH\", \"HOME\", \"TMPDIR\", \"STRATA_TEST_OUT\", \"DOC_BRIDGE_STUDY_SESSION_ID\", \"PWD\"}, sorted(env)
    assert \"OPENAI_API_KEY\" not in env
'" "44/45 stdin size equals contextBytes; only allowed variables"
expect_true "grep -q '943d89810d470b215a49f998a9c17471-1' '$WORK/out/consumer-01-discovery-low-cost-model-repository-only.env'" "45 session id"
expect_true "! grep -rq '$SECRET' '$WORK/record' '$WORK/out'" "the credential variable reaches no file"

# --- 36, 42: timeouts terminate the group promptly ----------------------------------
script "$WORK/p-sleepy" '#!/bin/sh
sleep 10.4242 &
sleep 10'
make_study sleepy "$WORK/p-sleepy" '{"budget": {"maxRuntimeMs": 20}, "runId": "timeouts-01"}'
start=$(date +%s%N)
study_run sleepy --jobs 24
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_code 0 "36 run"
ledger_check sleepy 'all(o["execution"]["status"] == "timed-out" and o["execution"]["errorCode"] == "timeout" and o["execution"]["signal"] == "SIGTERM" and o["execution"]["exitCode"] is None for o in obs)' "36 every attempt timed out"
expect_true "[ $elapsed_ms -lt 8000 ]" "42 the run returns promptly (${elapsed_ms} ms)"
sleep 0.2
expect_true "! pgrep -f 'sleep 10.4242' | xargs -r ps -o stat= -p | grep -qv Z" "42 grandchildren are terminated"

# --- 43: a second attempt after a failure -------------------------------------------
script "$WORK/p-retry" '#!/bin/sh
cat >/dev/null
case "$DOC_BRIDGE_STUDY_SESSION_ID" in *-1) exit 1 ;; esac
echo "{}"'
make_study retry "$WORK/p-retry" '{"budget": {"maxAttempts": 2}, "runId": "retry-01"}'
study_run retry
ledger_check retry 'all(o["execution"]["status"] == "completed" for o in obs) and len(obs) == 24' "43 second attempt recorded"

# --- --round --------------------------------------------------------------------------
make_study rounds "$WORK/p-empty" '{"runId": "rounds-01"}'
study_run rounds --round round-7
ledger_check rounds 'all(o["round"] == "round-7" for o in obs)' "--round recorded"
bad_input "bad --round" "\$.round: expected a reference" \
  run "$WORK/rounds/plan.json" "$SUITE" --providers "$WORK/rounds/providers.json" \
  --repositories "$WORK/rounds/repos.json" --ledger "$WORK/rounds/other.json" --round "Round 7"

# --- 50: a ledger that holds the run id under another plan ---------------------------
cp "$WORK/empty/ledger.json" "$WORK/rounds/conflict.json"
python3 -c "
import json
p = json.load(open('$WORK/rounds/plan.payload.json'))
p['runId'] = json.load(open('$PLAN'))['runId']
p['docBridgeVersion'] = '9.9.9'
json.dump(p, open('$WORK/rounds/plan2.payload.json', 'w'))"
"$STRATA" seal run-plan "$WORK/rounds/plan2.payload.json" -o "$WORK/rounds/plan2.json"
bad_input "50 plan hash conflict" "Ledger already contains run phase-7-canonical-metrics-01 with a different plan hash." \
  run "$WORK/rounds/plan2.json" "$SUITE" --providers "$WORK/rounds/providers.json" \
  --repositories "$WORK/rounds/repos.json" --ledger "$WORK/rounds/conflict.json"
expect_true "cmp -s '$WORK/empty/ledger.json' '$WORK/rounds/conflict.json'" "50 the ledger is untouched"

# --- --jobs 16 and --jobs 1 record the same observations ------------------------------
make_study jobs "strata-example-provider" '{"runId": "jobs-01"}' '{"args": ["--model", "any"]}'
PATH="$BUILD:$PATH" study_run jobs --jobs 16
expect_code 0 "jobs 16"
cp -r "$WORK/jobs" "$WORK/jobs1"
rm -f "$WORK/jobs1/ledger.json"*
PATH="$BUILD:$PATH" run run "$WORK/jobs/plan.json" "$SUITE" --providers "$WORK/jobs/providers.json" \
  --repositories "$WORK/jobs/repos.json" --ledger "$WORK/jobs1/ledger.json" --jobs 1
expect_code 0 "jobs 1"
PATH="$BUILD:$PATH" study_run jobs --jobs 16 --text
expect_out_has "Skipped: 24" "second --jobs 16 run skips all"
expect_true "python3 -c '
import json
def strip(path):
    out = []
    for o in json.load(open(path))[\"observations\"]:
        o = dict(o); o.pop(\"observedAt\"); o.pop(\"contentHash\")
        o[\"execution\"] = {k: v for k, v in o[\"execution\"].items() if k != \"durationMs\"}
        out.append(json.dumps(o, sort_keys=True))
    return out
a, b = strip(\"$WORK/jobs/ledger.json\"), strip(\"$WORK/jobs1/ledger.json\")
assert len(a) == 24 and a == b
'" "--jobs 16 and --jobs 1 agree apart from timing"

# journal_lines_at_least <journal> <n>: waits until the journal holds n complete lines (a bounded
# poll, at most 60 s). The signals below land on observed progress, not after a fixed sleep: on
# a loaded machine under ASan a run had not recorded anything 1.3 s after its start.
journal_lines_at_least() {
  for _ in $(seq 3000); do
    [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ] && return 0
    sleep 0.02
  done
  return 1
}

# --- SIGINT: stop, keep completed work, exit 130; re-run resumes -------------------------
script "$WORK/p-slow" '#!/bin/sh
cat >/dev/null
sleep 0.3
echo "{}"'
make_study slow "$WORK/p-slow" '{"runId": "slow-01"}'
"$STRATA" run "$WORK/slow/plan.json" "$SUITE" --providers "$WORK/slow/providers.json" --repositories "$WORK/slow/repos.json" \
  --ledger "$WORK/slow/ledger.json" --jobs 2 >"$WORK/slow/out" 2>"$WORK/slow/err" &
pid=$!
expect_true "journal_lines_at_least '$WORK/slow/ledger.json.journal' 1" "the slow run records its first observation within 60 s"
# The lock refuses a second run on the same ledger meanwhile.
bad_input "a second run is refused" "is in use by another strata run" \
  run "$WORK/slow/plan.json" "$SUITE" --providers "$WORK/slow/providers.json" --repositories "$WORK/slow/repos.json" \
  --ledger "$WORK/slow/ledger.json"
kill -INT $pid
wait $pid
CODE=$?
expect_code 130 "SIGINT exits 130"
expect_true "grep -q 're-run the same command to resume' '$WORK/slow/err'" "SIGINT explains how to resume"
expect_true "[ ! -s '$WORK/slow/out' ]" "SIGINT prints nothing on stdout"
kept=$(python3 -c "import json; print(len(json.load(open('$WORK/slow/ledger.json'))['observations']))")
expect_true "[ $kept -gt 0 ] && [ $kept -lt 24 ]" "SIGINT keeps the completed observations ($kept)"
expect_true "[ ! -s '$WORK/slow/ledger.json.journal' ]" "SIGINT folds the journal"
run verify "$WORK/slow/ledger.json"
expect_code 0 "interrupted ledger verifies"
study_run slow --jobs 8 --text
expect_out_has "Executed: $((24 - kept))" "resume runs only the rest"
ledger_check slow 'len(obs) == 24 and len({json.dumps(o["task"], sort_keys=True) for o in obs}) == 24' "resume records each execution once"

# --- a torn journal line is reported and dropped ------------------------------------------
printf '{"type":"controlled-study-obs' >>"$WORK/slow/ledger.json.journal"
run verify --text "$WORK/slow/ledger.json"
expect_code 0 "verify with a torn journal"
expect_out_has "journal: dropped an incomplete last line" "verify reports the torn line"
study_run slow --text
expect_code 0 "run after a torn journal"
expect_err_has "dropped an incomplete last line" "run reports the torn line"
expect_true "[ ! -s '$WORK/slow/ledger.json.journal' ]" "the torn line is gone"

# --- SIGKILL leaves the journal; ledger and verify read it ---------------------------------
make_study killed "$WORK/p-slow" '{"runId": "killed-01"}'
"$STRATA" run "$WORK/killed/plan.json" "$SUITE" --providers "$WORK/killed/providers.json" --repositories "$WORK/killed/repos.json" \
  --ledger "$WORK/killed/ledger.json" --jobs 4 >/dev/null 2>&1 &
pid=$!
expect_true "journal_lines_at_least '$WORK/killed/ledger.json.journal' 1" "the killed run records its first observation within 60 s"
kill -KILL $pid
wait $pid 2>/dev/null
journal_lines=$(wc -l <"$WORK/killed/ledger.json.journal")
expect_true "[ $journal_lines -gt 0 ]" "SIGKILL leaves durable journal lines ($journal_lines)"
run ledger --text "$WORK/killed/ledger.json"
expect_code 0 "ledger reads the journal"
expect_out_has "Observations: $journal_lines" "ledger counts journal observations"
expect_err_has "not yet folded" "ledger says the journal is included"
run verify --text "$WORK/killed/ledger.json"
expect_out_has "journal: $journal_lines verified observation(s) not yet folded" "verify counts the journal"
study_run killed --text --jobs 8
expect_out_has "Executed: $((24 - journal_lines))" "resume after SIGKILL runs only the rest"
sleep 0.5  # providers of the killed run finish on their own

# --- a fresh run on a folded ledger appends its block without rewriting the file ------------------
cp "$WORK/empty/ledger.json" "$WORK/append.json"
before=$(stat -c %s "$WORK/append.json")
run run "$WORK/rounds/plan.json" "$SUITE" --providers "$WORK/rounds/providers.json" --repositories "$WORK/rounds/repos.json" \
  --ledger "$WORK/append.json" --text
expect_code 0 "append run"
expect_out_has "Executed: 24" "append run executes its plan"
expect_true "cmp -s <(head -c \$((before - 140)) '$WORK/append.json') <(head -c \$((before - 140)) '$WORK/empty/ledger.json')" "the old bytes are kept"
expect_true "\"$STRATA\" seal ledger '$WORK/append.json' | cmp -s - '$WORK/append.json'" "the appended file is byte-identical to a full rewrite"
run verify "$WORK/append.json" --text
expect_code 0 "the appended ledger verifies"
ledger_check_file() { python3 -c "import json; o = json.load(open('$1'))['observations']; assert $2"; }
expect_true "ledger_check_file '$WORK/append.json' 'len(o) == 48 and [x[\"runId\"] for x in o] == [\"phase-7-canonical-metrics-01\"] * 24 + [\"rounds-01\"] * 24'" "the new run's block follows the old one"

expect_true "! grep -rq '$SECRET' '$WORK'" "the credential value appears in no file written"
finish
