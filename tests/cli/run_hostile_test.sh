#!/usr/bin/env bash
# `strata run` against hostile provider processes (spec §3.3–3.7, §3.10): every study must end
# promptly with exit 0, record the right execution status in every observation, leave a ledger
# that verifies, and leave no provider process behind.
# Usage: run_hostile_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
PLAN=$FIX/run-plan-v1.json
SUITE=$FIX/task-suite-v1.json
LIMIT=10000      # provider maxOutputBytes; the plan allows 256000, so this is the output limit
MARK=$$$RANDOM   # digits that make this script's sleep commands unique (`sleep <n>.$MARK`)
WALL_MS=15000    # "prompt finish" guard for one whole study (6 executions), not a benchmark

# Six repository roots and their sealed config.
fixture_repositories
mkdir -p "$WORK/bin" "$WORK/not-a-program"

# The ledger checker: every observation of the ledger has the expected execution fields.
cat >"$WORK/check_ledger.py" <<'PY'
import json, sys
ledger, count, expected = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
low, high = expected.pop("durationMs", [0, 10**9])  # an inclusive range, not an exact value
observations = json.load(open(ledger))["observations"]
assert len(observations) == count, f"{len(observations)} observations, expected {count}"
for o in observations:
    e = o["execution"]
    assert low <= e["durationMs"] <= high, f"durationMs {e['durationMs']} outside [{low}, {high}] in {e}"
    for key, want in expected.items():
        got = e.get(key, "<absent>")
        assert got == want, f"{o['task']['taskId']}/{o['task']['scenarioId']}/{o['task']['modelId']}: execution.{key} = {got!r}, expected {want!r} in {e}"
PY

# write_provider <name> <shell body>: an executable #!/bin/sh script $WORK/bin/<name>.sh.
write_provider() {
  printf '#!/bin/sh\n%s\n' "$2" >"$WORK/bin/$1.sh"
  chmod +x "$WORK/bin/$1.sh"
}

# make_study <name> <command path> [plan maxOutputBytes]: sealed plan (balanced 6, 1500 ms,
# one attempt, runId hostile-<name>) and provider config (all six mappings -> command).
make_study() {
  python3 - "$WORK" "$PLAN" "$SUITE" "$1" "$2" "$LIMIT" "${3:-256000}" <<'PY'
import json, sys
work, plan_path, suite_path, name, command, limit, plan_output = sys.argv[1:8]
plan = json.load(open(plan_path))
suite = json.load(open(suite_path))
for k in ("contentHash", "contentHashAlgo"):
    plan.pop(k)
assert plan["taskSuiteHash"] == suite["contentHash"]
plan["sampling"] = {"strategy": "balanced-task-strata", "sampleSize": 6}
plan["budget"] = {"maxTokens": 400000, "maxRuntimeMs": 1500, "maxOutputBytes": int(plan_output), "maxAttempts": 1}
plan["runId"] = f"hostile-{name}"
json.dump(plan, open(f"{work}/{name}.plan.payload.json", "w"))
json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1",
           "providers": [{"modelId": m, "scenarioIds": [s], "command": command, "providerNetwork": False,
                          "maxInputBytes": 1000000, "maxOutputBytes": int(limit)}
                         for m in ["low-cost-model", "reference-model"]
                         for s in ["repository-only", "deterministic-doc-bridge", "registry-assisted"]]},
          open(f"{work}/{name}.providers.payload.json", "w"))
PY
  "$STRATA" seal run-plan "$WORK/$1.plan.payload.json" -o "$WORK/$1.plan.json"
  "$STRATA" seal provider-config "$WORK/$1.providers.payload.json" -o "$WORK/$1.providers.json"
}

# run_study <name>: runs the study (--kill-grace-ms 300), leaving $CODE, $OUT, $ERR and $ELAPSED_MS.
run_study() {
  local start end
  start=$(date +%s%N)
  run run "$WORK/$1.plan.json" "$SUITE" --providers "$WORK/$1.providers.json" --repositories "$WORK/repos.json" \
    --ledger "$WORK/$1.ledger.json" --kill-grace-ms 300 --json
  end=$(date +%s%N)
  ELAPSED_MS=$(((end - start) / 1000000))
}

# survivors: live (non-zombie) processes started by this script's providers.
survivors() {
  local pid stat
  for pid in $(pgrep -f "$WORK/bin/"; pgrep -f "sleep [0-9]+\.$MARK"); do
    stat=$(ps -o stat= -p "$pid" 2>/dev/null) || continue
    case $stat in Z*) ;; *) echo "$pid" ;; esac
  done
}

# expect_no_survivors <name>: nothing of the study is still running (what is, is killed).
expect_no_survivors() {
  local left
  sleep 0.2
  left=$(survivors)
  checks=$((checks + 1))
  if [ -n "$left" ]; then
    fail "$1: provider processes survived the run: $(ps -o pid=,stat=,args= -p "$(echo $left | tr ' ' ,)" 2>/dev/null | tr '\n' ';')"
    for pid in $left; do kill -KILL "$pid" 2>/dev/null; done
  fi
}

# hostile <name> <expected execution fields as JSON> <shell body> [plan maxOutputBytes]
hostile() {
  local name=$1 expected=$2
  write_provider "$name" "$3"
  make_study "$name" "$WORK/bin/$name.sh" "${4:-}"
  run_study "$name"
  expect_code 0 "$name: run exits 0"
  expect_true "[ $ELAPSED_MS -lt $WALL_MS ]" "$name: run took ${ELAPSED_MS} ms (bound ${WALL_MS} ms)"
  expect_true "python3 -c '
import json
s = json.load(open(\"$WORK/stdout\"))[\"summary\"]
assert (s[\"status\"], s[\"planned\"], s[\"executed\"], s[\"skipped\"]) == (\"completed\", 6, 6, 0), s
'" "$name: summary completed 6/6"
  expect_true "python3 '$WORK/check_ledger.py' '$WORK/$name.ledger.json' 6 '$expected' >&2" "$name: observations"
  run verify --text "$WORK/$name.ledger.json"
  expect_code 0 "$name: strata verify"
  expect_no_survivors "$name"
  echo "$name: ${ELAPSED_MS} ms"
}

# A timed-out attempt lasts the plan's 1500 ms (the kill grace comes after it).
TIMED_OUT='{"status": "timed-out", "exitCode": null, "signal": "SIGTERM", "errorCode": "timeout", "durationMs": [1450, 5000]}'
COMPLETED='{"status": "completed", "exitCode": 0, "signal": null, "errorCode": "<absent>", "durationMs": [0, 1449]}'
INVALID_JSON='{"status": "invalid-output", "exitCode": 0, "signal": null, "errorCode": "invalid-json"}'

# Sleeps forever: the timer (1500 ms) fires, SIGTERM to the group.
hostile sleeps "$TIMED_OUT" "sleep 1000.$MARK"

# Ignores SIGTERM (so do its children): the group is SIGKILLed after the grace, still timed-out.
hostile ignores-term "$TIMED_OUT" "trap '' TERM
while :; do sleep 0.1; done"

# A grandchild keeps stdout open after the provider printed {} and exited 0: completed at once,
# and the grandchild does not outlive the run.
hostile grandchild "$COMPLETED" "(sleep 31.$MARK) &
echo '{}'"

# Escapes the process group (setsid) holding stdout open: the runner stops waiting for the pipe
# soon after the provider exits. Nothing can reach the escaped process; it is killed here.
write_provider escapes "setsid sleep 32.$MARK &
sleep 0.3
echo '{}'"
make_study escapes "$WORK/bin/escapes.sh"
run_study escapes
expect_code 0 "escapes: run exits 0"
expect_true "[ $ELAPSED_MS -lt $WALL_MS ]" "escapes: run took ${ELAPSED_MS} ms (bound ${WALL_MS} ms)"
expect_true "python3 '$WORK/check_ledger.py' '$WORK/escapes.ledger.json' 6 '$COMPLETED' >&2" "escapes: observations"
run verify --text "$WORK/escapes.ledger.json"
expect_code 0 "escapes: strata verify"
escaped=$(pgrep -f "sleep 32\.$MARK")
expect_true "[ $(echo $escaped | wc -w) = 6 ]" "escapes: six escaped processes outlived the run (so the case tests the pipe drain)"
for pid in $escaped; do kill -KILL "$pid" 2>/dev/null; done
expect_no_survivors escapes
echo "escapes: ${ELAPSED_MS} ms"

# Prints 1 GiB: output-limit at min(provider 10000, plan 256000) = 10000 bytes kept.
hostile gigabyte \
  '{"status": "budget-exceeded", "exitCode": null, "signal": "SIGTERM", "errorCode": "output-limit", "responseBytes": 10000}' \
  "head -c 1073741824 /dev/zero"

# Endless `yes` with the plan's limit smaller than the provider's: the plan's 4096 wins.
hostile yes-plan-limit \
  '{"status": "budget-exceeded", "exitCode": null, "signal": "SIGTERM", "errorCode": "output-limit", "responseBytes": 4096}' \
  "yes" 4096

# Two JSON objects on stdout.
hostile two-objects "$INVALID_JSON" "echo '{}{}'"

# Invalid UTF-8 inside a string: decoded with U+FFFD it is one valid JSON object. The response
# is counted after decoding: 9 raw bytes, 11 bytes re-encoded (spec §3.5).
hostile invalid-utf8 \
  '{"status": "completed", "exitCode": 0, "signal": null, "errorCode": "<absent>", "responseBytes": 11}' \
  "printf '{\"a\":\"\\377\"}'"

# A NUL byte after the object is not whitespace.
hostile nul-byte "$INVALID_JSON" "printf '{}\\0'"

# Closes stdout and keeps running: EOF on stdout is not an exit; the timer still fires.
hostile closes-stdout "$TIMED_OUT" "exec 1>&-
sleep 30.$MARK"

# Never reads its stdin and exits 0 after printing {}.
hostile ignores-stdin "$COMPLETED" "echo '{}'"

# Closes stdin before the runner may have written the request (EPIPE for the runner).
hostile closes-stdin "$COMPLETED" "exec 0<&-
echo '{}'"

# Exits 0 without printing anything.
hostile silent "$INVALID_JSON" "exit 0"

# Not executable (mode 644): pre-flight refuses (§3.3), nothing is recorded.
write_provider not-executable "echo '{}'"
chmod 644 "$WORK/bin/not-executable.sh"
make_study not-executable "$WORK/bin/not-executable.sh"
run_study not-executable
expect_code 2 "not executable: pre-flight fails"
expect_err_has "is not executable at $WORK/bin/not-executable.sh" "not executable"
expect_true "[ ! -e '$WORK/not-executable.ledger.json' ] || python3 -c '
import json
assert json.load(open(\"$WORK/not-executable.ledger.json\"))[\"observations\"] == []
'" "not executable: no observation written"
expect_true "[ ! -s '$WORK/not-executable.ledger.json.journal' ]" "not executable: no journal entry"
expect_true "[ $ELAPSED_MS -lt $WALL_MS ]" "not executable: run took ${ELAPSED_MS} ms"

# A directory as the command: pre-flight refuses too.
make_study directory "$WORK/not-a-program"
run_study directory
expect_code 2 "directory: pre-flight fails"
expect_err_has "is not executable at $WORK/not-a-program" "directory"
expect_true "[ ! -e '$WORK/directory.ledger.json' ] || python3 -c '
import json
assert json.load(open(\"$WORK/directory.ledger.json\"))[\"observations\"] == []
'" "directory: no observation written"

expect_no_survivors "end of test"
finish
