#!/usr/bin/env bash
# `strata call` when the event log cannot be written (usage-boundary spec §1.5, §1.11, §4.2
# cases 40 and 41), end to end as an unprivileged user: file modes do not stop root, so as
# root every `strata` run here is dropped to uid/gid 65534 with setpriv.
#   40: the provider answers 503 and the usage event cannot be written -> exit 4
#   41: the provider answers 200 and the usage event cannot be written -> exit 3
# and, derived from the §1.5 claim table, a claim that cannot be written -> exit 2, nothing
# recorded, no HTTP request.
# Like the reference fixture, the server makes the project log read-only (0400) while it
# handles the request, i.e. after the claim was written; strata-test-server cannot touch
# files, so a small plain-HTTP loopback server (allowed for loopback, §1.3) is used here.
# Usage: call_permissions_test.sh <strata binary>
STRATA=$(realpath "$1")
. "$(dirname "$0")/lib.sh"   # $WORK is mode 755 under /tmp: the unprivileged user can reach it
umask 022

if [ "$(id -u)" != 0 ]; then
  AS_USER=()                # already unprivileged: file modes bite as they are
elif command -v setpriv >/dev/null; then
  AS_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
  echo "SKIP: running as root without setpriv(1): file modes cannot be made to bite (exit 77)" >&2
  exit 77
fi
as_user() { "${AS_USER[@]}" "$@"; }
expect_err() { checks=$((checks + 1)); [ "$ERR" = "$1" ] || fail "$2: stderr differs (expected: $1)"; }

# The fixture tree belongs to the unprivileged user; the binary must be executable by it.
P=$WORK/project S=$WORK/specs H=$WORK/logs
mkdir -p "$P" "$S" "$H"
[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$P" "$S" "$H"
if ! as_user test -x "$STRATA"; then
  cp "$STRATA" "$WORK/strata" && STRATA=$WORK/strata
fi
export CM_WORKFLOW_LOG_HOME=$H
LOG="$S/运行日志.jsonl"

# The provider: counts POSTs to /v1/chat/completions; before answering one, it makes the file
# named by its argument read-only. POST /__mode/error|success picks the answer, GET /__requests
# returns the count (control requests are not counted).
cat >"$WORK/server.py" <<'PY'
import http.server, json, os, sys
target, requests, mode = sys.argv[1], 0, "error"
class Handler(http.server.BaseHTTPRequestHandler):
    def reply(self, status, body):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        self.reply(200, str(requests))
    def do_POST(self):
        global requests, mode
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path.startswith("/__mode/"):
            mode = self.path[len("/__mode/"):]
            return self.reply(200, mode)
        requests += 1
        os.chmod(target, 0o400)   # the usage event can no longer be appended
        if mode == "error":
            self.reply(503, '{"error":{"message":"DO_NOT_ECHO_PROVIDER_BODY"}}')
        else:
            self.reply(200, json.dumps({"model": "provider-model-v2", "choices": [{"message": {"content": "RESULT_WITHOUT_USAGE_LOG"}}],
                                        "usage": {"prompt_tokens": 3, "completion_tokens": 2}}))
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$WORK/server.py" "$LOG" >"$WORK/server.port" 2>"$WORK/server.err" &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; chmod -R u+w "$WORK"; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [ -s "$WORK/server.port" ] && break; sleep 0.05; done
PORT=$(cat "$WORK/server.port")
control() { curl -s -X "$1" "http://127.0.0.1:$PORT/__$2"; }
requests() { control GET requests; }

PACKET='{"stable_prefix":{"safety":"DO_NOT_LOG_STABLE safety boundary","workflow":"cm-prd design generation","project_rules":"stay inside the approved requirement","role":"planner","output_schema":"return the compact plan only"},"dynamic_packet":{"workflow":"cm-prd","stage":"design_generation","role":"planner","objective":"DO_NOT_LOG_DYNAMIC create one plan","identifiers":{"feature":"1.fixture"},"constraints":["no implementation"],"expected_output":"plan"}}'
# call <call id> [flags]: the spec's standard adapter call (§4), as the unprivileged user.
call() {
  local id=$1
  shift
  printf '%s' "$PACKET" | CM_OPENAI_COMPATIBLE_ENABLED=true CM_OPENAI_COMPATIBLE_BASE_URL="http://127.0.0.1:$PORT/v1" \
    CM_OPENAI_COMPATIBLE_API_KEY=fixture-api-secret as_user "$STRATA" call --workflow cm-prd --stage design_generation \
    --role planner --runtime codex --requested-model planner-default --call-id "$id" --timeout-seconds 2 \
    --project-root "$P" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  CODE=$?
  OUT=$(cat "$WORK/stdout")
  ERR=$(cat "$WORK/stderr")
}
STANDARD=(--specs-dir "$S" --run-id adapter-fixture-0001)
rows() {  # rows <log file> <call id>: that call id's events in the file, comma-separated
  python3 - "$1" "$2" <<'PY'
import json, sys
try:
    lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
except FileNotFoundError:
    lines = []
print(",".join(json.loads(l)["event"] for l in lines if l.strip() and json.loads(l).get("call_id") == sys.argv[2]))
PY
}
mirror() { echo "$H/runs/2026-08/adapter-fixture-0001.jsonl"; }  # not read before it exists

# The run every call below belongs to, written by the unprivileged user.
as_user "$STRATA" usage log --workflow cm-prd --event run_start --phase start --runtime codex --project-root "$P" \
  --specs-dir "$S" --run-id adapter-fixture-0001 --at 2026-08-06T10:00:00-07:00 --detail "adapter fixture started" \
  >"$WORK/stdout" 2>"$WORK/stderr"
CODE=$?
expect_code 0 "setup: run_start as the unprivileged user"
# Guard: the permission must bite for this user, or every case below would prove nothing.
cp "$LOG" "$WORK/probe" && chown 65534:65534 "$WORK/probe" 2>/dev/null; chmod 0400 "$WORK/probe"
expect_true "! as_user sh -c 'echo x >>\"$WORK/probe\"' 2>/dev/null" "setup: mode 0400 stops the test user's writes"

# ---- 40: HTTP 503, then the error outcome cannot be logged -> exit 4 ---------------------------
control POST mode/error >/dev/null
call planner-call-unlogged-error "${STANDARD[@]}"
expect_code 4 "40 exit"
expect_out_empty "40 stdout"
expect_err "strata call: HTTP 503
strata call: usage log failed" "40 stderr, exactly"
expect_true "[ \"\$(requests)\" = 1 ]" "40 exactly one request"
expect_true "[ \"\$(rows '$LOG' planner-call-unlogged-error)\" = model_call ]" "40 project log: the claim only"
expect_true "[ \"\$(rows \"\$(mirror)\" planner-call-unlogged-error)\" = model_call ]" "40 mirror: the claim only"
expect_true "[ \"\$(stat -c %a '$LOG')\" = 400 ]" "40 the log was read-only when the usage was written"
chmod 0644 "$LOG"

# ---- 41: HTTP 200, the result is printed, the success cannot be logged -> exit 3 ------------
control POST mode/success >/dev/null
call planner-call-unlogged-success "${STANDARD[@]}"
expect_code 3 "41 exit"
expect_true "[ \"\$(od -An -c '$WORK/stdout' | tr -s ' ')\" = \"\$(printf 'RESULT_WITHOUT_USAGE_LOG\n' | od -An -c | tr -s ' ')\" ]" "41 stdout is the content and one LF"
expect_err "strata call: model call completed but usage log failed; do not retry the model call automatically" "41 stderr, exactly"
expect_true "[ \"\$(requests)\" = 2 ]" "41 exactly one more request"
expect_true "[ \"\$(rows '$LOG' planner-call-unlogged-success)\" = model_call ]" "41 project log: the claim only"
expect_true "[ \"\$(rows \"\$(mirror)\" planner-call-unlogged-success)\" = model_call ]" "41 mirror: the claim only"
chmod 0644 "$LOG"
# The unresolved claim keeps blocking the call id, so the call is never repeated (exit 3 contract).
call planner-call-unlogged-success "${STANDARD[@]}"
expect_code 2 "41 retry refused"
expect_err "strata call: call_id already claimed; use a new call_id" "41 retry message"
expect_true "[ \"\$(requests)\" = 2 ]" "41 retry sends nothing"

# ---- the claim itself cannot be written -> exit 2, nothing recorded, no HTTP (§1.5) ----------
# claim_refused <case> <call id> <log that must not mention it> [call flags]
claim_refused() {
  local name=$1 id=$2 log=$3
  shift 3
  call "$id" "$@"
  expect_code 2 "$name exit"
  expect_out_empty "$name stdout"
  expect_err "strata call: model call claim could not be recorded" "$name stderr, exactly"
  expect_true "[ \"\$(requests)\" = 2 ]" "$name no request"
  expect_true "! grep -rq '$id' '$S' '$H' '$log' 2>/dev/null" "$name no claim or event anywhere"
}
# a. The project log is read-only before the call: the claim append fails.
chmod 0400 "$LOG"
claim_refused "claim: read-only project log" planner-call-readonly-log "$LOG" "${STANDARD[@]}"
chmod 0644 "$LOG"
# b. A specs dir the user cannot write (0555, no lock file yet): the project lock fails.
mkdir -p "$WORK/readonly-specs" && chmod 0555 "$WORK/readonly-specs"
claim_refused "claim: unwritable specs dir" planner-call-readonly-specs "$WORK/readonly-specs" \
  --specs-dir "$WORK/readonly-specs" --run-id adapter-fixture-0001
expect_file_absent "$WORK/readonly-specs/.cm-run.lock" "claim: unwritable specs dir: no lock file"
# c. Global-only mode, the log home cannot be created (its parent is 0555; the writer re-applies
#    0700 to the home itself, so only a parent keeps it out): the global lock fails.
mkdir -p "$WORK/readonly-parent" && chmod 0555 "$WORK/readonly-parent"
CM_WORKFLOW_LOG_HOME=$WORK/readonly-parent/logs claim_refused "claim: unwritable log home" planner-call-no-home \
  "$WORK/readonly-parent" --run-id adapter-fixture-0001
expect_file_absent "$WORK/readonly-parent/logs" "claim: unwritable log home: not created"

# Privacy holds on these paths too: no prompt, key or result in any log.
expect_true "! grep -rq -e fixture-api-secret -e DO_NOT_LOG_STABLE -e DO_NOT_LOG_DYNAMIC -e RESULT_WITHOUT_USAGE_LOG -e DO_NOT_ECHO_PROVIDER_BODY '$S' '$H'" "no secret, prompt or result in any log"
finish
