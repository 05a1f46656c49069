#!/usr/bin/env bash
# `strata run` with endpoint providers (docs/ENDPOINTS.md) against the test HTTPS server:
# executions complete with the endpoint's measured usage, the server never sees more requests
# in flight than the endpoint allows, 429/503 answers (with and without Retry-After) on a third
# of the requests are waited out, failures become the documented outcomes, pre-flight refuses
# bad variables, and the API key appears nowhere Strata writes.
# Usage: run_endpoint_test.sh <strata binary> <strata-test-server binary> <example provider binary>
STRATA=$(realpath "$1")
SERVER=$(realpath "$2")
PROVIDER=$(realpath "$3")
. "$(dirname "$0")/lib.sh"
SECRET="sk-strata-endpoint-secret-$$"

start_test_server "$SERVER"
stat_of() { control GET stats | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
# What the model answers: a valid provider response (the run's stdout contract).
control POST reply --data-binary '{"taskOutcome":"partial","evidenceQuality":"medium","safetyOutcome":"safe","evidenceIds":[],"inputTokens":1,"outputTokens":1,"tokenMethod":"estimate"}' >/dev/null

make_example_study "$PROVIDER" ok throttled failing preflight
# Every provider entry calls the endpoint, at most 3 requests in flight.
endpoint_study "$WORK/providers.json" "$WORK/providers.payload.json"
"$STRATA" seal provider-config "$WORK/providers.payload.json" -o "$WORK/providers.json" >/dev/null
export STUDY_BASE_URL=https://127.0.0.1:$PORT/v1 STUDY_API_KEY=$SECRET

# observations <ledger> <runId>: "status:errorCode:tokenMethod:inputTokens:cached" per observation, sorted and counted.
observations() {
  python3 - "$1" "$2" <<'PY'
import collections, json, sys
ledger, run = sys.argv[1:3]
c = collections.Counter()
for o in json.load(open(ledger))["observations"]:
    if o["runId"] != run: continue
    e = o["execution"]
    c[f'{e["status"]}:{e.get("errorCode", "-")}:{e.get("tokenMethod", "-")}:{e.get("inputTokens", "-")}:{o.get("measurements", {}).get("cachedInputTokens", "-")}'] += 1
print(" ".join(f"{n}x{k}" for k, n in sorted(c.items())))
PY
}

L=$WORK/ledger.json
# --- a study over the endpoint -----------------------------------------------------------------
# Six provider entries name the same endpoint, each with maxConcurrency 3: they share its limit.
# Answers take 50 ms so requests overlap.
fault usage-cached,delay:50
JOBS=16 study_run ok "$L"
expect_code 0 "endpoint run"
expect_out_has "Executed: 16" "endpoint run executes every execution"
expect_true "[ \"\$(observations '$L' append-ok)\" = '16xcompleted:-:provider:20:16' ]" "completed with the endpoint's usage (20 in, 16 cached)"
expect_true "[ \"\$(stat_of max_in_flight)\" -le 3 ]" "never more than maxConcurrency requests in flight (shared by the entries)"
expect_true "[ \"\$(stat_of max_in_flight)\" -ge 2 ]" "requests did overlap (the bound above is not vacuous)"
expect_true "[ \"\$(stat_of requests)\" -eq 16 ]" "one request per execution"
run verify --text "$L"; expect_code 0 "the ledger verifies"
before=$(stat_of requests)
JOBS=16 study_run ok "$L"
expect_out_has "Skipped: 16" "a second run skips everything"
expect_true "[ \"\$(stat_of requests)\" -eq $before ]" "and sends nothing"

# --- an endpoint adjudicator judges that ledger -----------------------------------------------------
endpoint_study "$WORK/providers.json" "$WORK/judge.payload.json" judge=endpoint-judge maxConcurrency=2 parameters=
"$STRATA" seal provider-config "$WORK/judge.payload.json" -o "$WORK/judge.json" >/dev/null
control POST reply --data-binary '{"outcome":"success","confidence":0.9,"reasonCodes":["checks-passed"]}' >/dev/null
fault ok
run adjudicate "$L" "$WORK/suite.json" --adjudicator "$WORK/judge.json" --output "$WORK/judged.json" --jobs 8 --text
expect_code 0 "endpoint adjudication"
expect_true "[ \"\$(python3 -c 'import json,sys; print(sorted({(o[\"adjudication\"][\"actor\"], o[\"adjudication\"][\"outcome\"]) for o in json.load(open(sys.argv[1]))[\"observations\"]}))' '$WORK/judged.json')\" = \"[('endpoint-judge', 'success')]\" ]" \
  "every observation judged by the endpoint adjudicator"
run verify --text "$WORK/judged.json"; expect_code 0 "the adjudicated ledger verifies"
expect_true "[ \"\$(stat_of max_in_flight)\" -le 3 ]" "the judge's requests stay within the limits too"
control POST reply --data-binary '{"taskOutcome":"partial","evidenceQuality":"medium","safetyOutcome":"safe","evidenceIds":[],"inputTokens":1,"outputTokens":1,"tokenMethod":"estimate"}' >/dev/null

# --- 429 and 503 on a third of the requests ------------------------------------------------------
for throttle in ${THROTTLES:-throttle:429 throttle:429:1 throttle:503:1}; do
  fault "$throttle"
  rm -f "$L"*
  throttled_before=$(stat_of throttled)
  JOBS=16 study_run throttled "$L"
  expect_code 0 "$throttle: run"
  expect_true "[ \"\$(observations '$L' append-throttled)\" = '16xcompleted:-:provider:11:-' ]" "$throttle: every execution completes"
  expect_true "[ \"\$(stat_of throttled)\" -gt $throttled_before ]" "$throttle: the server did throttle"
  expect_true "[ \"\$(stat_of max_in_flight)\" -le 3 ]" "$throttle: never more than maxConcurrency in flight"
done

# --- failures ---------------------------------------------------------------------------------------
fault status:500
study_run failing "$L"
expect_code 0 "HTTP 500: the run completes"
expect_true "[ \"\$(observations '$L' append-failing)\" = '16xfailed:http-500:-:-:-' ]" "HTTP 500: failed, errorCode http-500"
fault invalid-json
rm -f "$L"*
study_run failing "$L"
expect_true "[ \"\$(observations '$L' append-failing)\" = '16xinvalid-output:invalid-json:-:-:-' ]" "invalid JSON body: invalid-output"
fault ok

# --- pre-flight ---------------------------------------------------------------------------------------
STUDY_API_KEY= study_run preflight "$WORK/none.json" --dry-run
expect_code 2 "no key"
expect_err_has ": environment variable STUDY_API_KEY is not set." "no key: message"
STUDY_BASE_URL=http://example.com/v1 study_run preflight "$WORK/none.json"
expect_code 2 "plain http to a remote host"
expect_err_has "STUDY_BASE_URL must use https (plain http only to a loopback host)." "plain http: message"
STUDY_BASE_URL="https://user:pw@127.0.0.1:$PORT/v1" study_run preflight "$WORK/none.json"
expect_err_has "STUDY_BASE_URL cannot contain credentials or query data." "credentials in the URL: message"
expect_file_absent "$WORK/none.json" "pre-flight failures write no ledger"

# --- Strata out of descriptors: never an endpoint outcome ------------------------------------------
# Under ulimit -n 64 with N descriptors inherited from the caller (which the --jobs budget cannot
# see), for N across the range where connections start to fail: a run either completes or stops
# with exit 2 and an error, and never records an execution as unavailable; where the sockets run
# out, the error says so and gives the advice, and the next run completes each execution once.
# Not under the sanitizers: UBSan's vptr check probes memory through a pipe and, with no
# descriptor free, fails on correct code (a false "invalid vptr") before Strata can react.
few_descriptors_strata "$STRATA" "$WORK/fd-exhausted-strata"
if sanitized_build "$STRATA"; then
  echo "skip: descriptor exhaustion under the sanitizers (see above)"
else
  socket_stops=0
  for n in $(seq 40 58); do
    L=$WORK/fds-$n.json
    STRATA=$WORK/fd-exhausted-strata INHERITED=$n JOBS=16 study_run ok "$L"
    expect_true "[ '$CODE' = 0 ] || [ '$CODE' = 2 ]" "$n inherited descriptors: completes or stops (exit $CODE)"
    expect_true "! cat '$L' '$L.journal' 2>/dev/null | grep -q '\"unavailable\"'" "$n inherited descriptors: nothing recorded as unavailable"
    if grep -qF "strata: cannot reach an endpoint (cannot open a socket: Too many open files); lower --jobs or raise the open-file limit (ulimit -n)" "$WORK/stderr"; then
      socket_stops=$((socket_stops + 1))
      expect_code 2 "$n inherited descriptors: sockets ran out: exit 2"
      JOBS=16 study_run ok "$L"
      expect_true "observations '$L' append-ok | grep -qx '16xcompleted:-:provider:[0-9]*:[0-9-]*'" "$n inherited descriptors: the next run completes each execution once"
    fi
  done
  expect_true "[ $socket_stops -gt 0 ]" "some descriptor count made the sockets run out ($socket_stops of 19)"
fi

# --- the key is nowhere ----------------------------------------------------------------------------
expect_true "! grep -rqF --exclude=server.info -- '$SECRET' '$WORK'" "the API key is in no file strata wrote or printed"

finish
