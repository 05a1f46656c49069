#!/usr/bin/env bash
# `strata call` end to end: the real binary, the real event log, the test HTTPS server.
# Usage: call_test.sh <strata binary> <strata-test-server binary>
STRATA=$(realpath "$1")
SERVER=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
P=$WORK/project S=$WORK/specs H=$WORK/logs
mkdir -p "$P" "$S" "$H"
export CM_WORKFLOW_LOG_HOME=$H
SECRET="fixture-api-secret-$$"

start_test_server "$SERVER"
BASE=https://127.0.0.1:$PORT/v1
requests() { control GET requests; }

PACKET='{"stable_prefix":{"safety":"DO_NOT_LOG_STABLE safety boundary","workflow":"cm-prd design generation","project_rules":"stay inside the approved requirement","role":"planner","output_schema":"return the compact plan only"},"dynamic_packet":{"workflow":"cm-prd","stage":"design_generation","role":"planner","objective":"DO_NOT_LOG_DYNAMIC create one plan","identifiers":{"feature":"1.fixture"},"constraints":["no implementation"],"expected_output":"plan"}}'

# call <call id> [extra flags]: the standard adapter call with the standard packet.
call() {
  local id=$1
  shift
  printf '%s' "$PACKET" | CM_OPENAI_COMPATIBLE_ENABLED=true CM_OPENAI_COMPATIBLE_BASE_URL=$BASE \
    CM_OPENAI_COMPATIBLE_API_KEY=$SECRET "$STRATA" call --workflow cm-prd --stage design_generation --role planner \
    --runtime codex --requested-model planner-default --call-id "$id" --timeout-seconds 2 --project-root "$P" \
    --specs-dir "$S" --run-id adapter-fixture-0001 "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  CODE=$?
  OUT=$(cat "$WORK/stdout")
  ERR=$(cat "$WORK/stderr")
}
LOG="$S/运行日志.jsonl"
rows() {  # rows <call id>: the events recorded for that call id, comma-separated
  python3 -c "
import json, sys
out = []
for line in open('$LOG', encoding='utf-8'):
    line = line.strip()
    if line:
        e = json.loads(line)
        if e.get('call_id') == '$1':
            out.append(e['event'] + ':' + e.get('usage_state', '') + ':' + e.get('outcome', ''))
print(','.join(out))"
}

run usage log --workflow cm-prd --event run_start --phase start --runtime codex --project-root "$P" --specs-dir "$S" \
  --run-id adapter-fixture-0001 --detail "adapter fixture started"
expect_code 0 "run_start written"

# --- rejected before any HTTP -------------------------------------------------------------
printf '%s' "$PACKET" | "$STRATA" call --workflow cm-prd --stage design_generation --role planner --runtime codex \
  --requested-model planner-default --call-id rejected-1 --project-root "$P" --specs-dir "$S" >"$WORK/stdout" 2>"$WORK/stderr"
CODE=$?
expect_code 2 "4.1 case 1 not enabled"
expect_true "grep -q 'strata call: OpenAI-compatible calls are not explicitly enabled' '$WORK/stderr'" "4.1 case 1 message"
call rejected-2 --runtime gpt
expect_code 2 "4.1 case 15 a parser error exits 2"
printf '%s' "$PACKET" | CM_OPENAI_COMPATIBLE_ENABLED=true CM_OPENAI_COMPATIBLE_BASE_URL=$BASE \
  CM_OPENAI_COMPATIBLE_API_KEY="$SECRET"$'\r\n'"line-two" "$STRATA" call --workflow cm-prd --stage design_generation \
  --role planner --runtime codex --requested-model planner-default --call-id rejected-3 --project-root "$P" \
  --specs-dir "$S" >"$WORK/stdout" 2>"$WORK/stderr"
CODE=$?
expect_code 2 "4.1 case 10 bad key"
expect_true "grep -q 'API key contains unsupported characters' '$WORK/stderr' && ! grep -q 'line-two' '$WORK/stderr'" "4.1 case 10 key never echoed"
expect_true "[ \"\$(requests)\" = 0 ] && ! grep -q rejected- '$LOG'" "4.1 case 31 no claim, no HTTP"

# --- 32: success -------------------------------------------------------------------------------
call planner-call-0001
expect_code 0 "32 success"
expect_out "hello from the test server" "32 stdout is the content"
expect_err_empty "32 no stderr"
expect_true "[ \"\$(rows planner-call-0001)\" = 'model_call::,model_usage:observed:success' ]" "32 claim then observed usage"
# --- 35: the same call id again is refused before HTTP ---------------------------------------
call planner-call-0001
expect_code 2 "35 rerun"
expect_err_has "call_id already completed" "35 message"
expect_true "[ \"\$(requests)\" = 1 ]" "35 no second request"
# --- 36, 37: no usage; HTTP 503 -------------------------------------------------------------
fault usage-missing
call planner-call-0002
expect_code 0 "36 no usage"
expect_true "[ \"\$(rows planner-call-0002)\" = 'model_call::,model_usage:unavailable:success' ]" "36 usage unavailable"
fault status:503
call planner-call-0003
expect_code 1 "37 HTTP 503"
expect_out "" "37 stdout empty"
expect_true "grep -qx 'strata call: HTTP 503' '$WORK/stderr' && ! grep -q 'injected failure' '$WORK/stderr'" "37 status only, body not echoed"
expect_true "[ \"\$(rows planner-call-0003)\" = 'model_call::,model_usage:unavailable:error' ]" "37 error recorded"
# --- 42, 43: redirect and reset -------------------------------------------------------------
fault redirect
call planner-call-0004
expect_code 1 "42 redirect"
expect_err_has "HTTP 302" "42 status"
fault reset
call planner-call-0005
expect_code 1 "43 reset"
expect_err_has "request failed" "43 message"
# --- 47: two processes race for one call id ------------------------------------------------------
fault ok
before=$(requests)
( call planner-call-race; echo "$CODE" >"$WORK/race1" ) &
first=$!
( call planner-call-race; echo "$CODE" >"$WORK/race2" ) &
second=$!
wait "$first" "$second"
codes=$(sort "$WORK/race1" "$WORK/race2" | tr '\n' ' ')
expect_true "[ '$codes' = '0 2 ' ]" "47 exit codes are {0, 2} (got $codes)"
expect_true "[ \$((\$(requests) - before)) = 1 ]" "47 exactly one request"
expect_true "[ \"\$(rows planner-call-race)\" = 'model_call::,model_usage:observed:success' ]" "47 one claim, one usage"
# --- 45/46: proxy variables are never used ----------------------------------------------------
python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])" >"$WORK/proxy.port"
before=$(requests)
HTTPS_PROXY=http://127.0.0.1:1 HTTP_PROXY=http://127.0.0.1:1 ALL_PROXY=http://127.0.0.1:1 https_proxy=http://127.0.0.1:1 \
  http_proxy=http://127.0.0.1:1 all_proxy=http://127.0.0.1:1 call planner-call-proxy
expect_code 0 "46 proxies ignored: the call goes direct"
# --- the drop-in name ----------------------------------------------------------------------------
ln -s "$STRATA" "$WORK/cm-openai-compatible-call"
printf '%s' "$PACKET" | "$WORK/cm-openai-compatible-call" --workflow cm-prd --stage design_generation --role planner \
  --runtime codex --requested-model planner-default --call-id dropin-1 --project-root "$P" --specs-dir "$S" >"$WORK/stdout" 2>"$WORK/stderr"
CODE=$?
expect_code 2 "drop-in rejects like the reference"
expect_true "grep -qx 'cm-openai-compatible-call: OpenAI-compatible calls are not explicitly enabled; set CM_OPENAI_COMPATIBLE_ENABLED=true' '$WORK/stderr'" "drop-in prefix"
# --- 38: privacy ---------------------------------------------------------------------------------
expect_true "! grep -rq -e '$SECRET' -e DO_NOT_LOG_STABLE -e DO_NOT_LOG_DYNAMIC -e 'hello from the test server' '$S' '$H'" "38 no secret, prompt or result in any log"
finish
