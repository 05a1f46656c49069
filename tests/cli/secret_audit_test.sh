#!/usr/bin/env bash
# The secret audit (docs/RELIABILITY.md, "Secrets"): one recognisable fake API key in every
# variable that could carry it (an endpoint's apiKeyEnv, CM_OPENAI_COMPATIBLE_API_KEY and the
# unrelated OPENAI_API_KEY), then, in one work directory, `strata run` with endpoint and process
# providers (successes, 429/500/401 answers, a 401 whose error body quotes the key, answers that
# name the key as their model, a refused connection with the key in the base URL's path,
# pre-flight refusals of URLs holding the key, a dry run, --json and --text, a crash mid-append
# and its resume), `strata adjudicate` with an endpoint judge (success, HTTP 500, the quoting 401,
# the key as model, a kill and its resume) and a process judge, `strata call` (success, exit 1 and
# exit 2 paths, the same hostile answers), the usage log and `strata usage report`, `strata
# ledger` and `strata verify`.
# Every stdout and stderr is kept. At the end the key, its first and last 12 characters, and the
# base64 of the key and of "Bearer <key>" are looked for in every file of the work directory
# (ledgers, journals, .verified, undo records, event logs, log home, HOME, TMPDIR, provider
# dumps, captured outputs): none may be found. The audit is shown not to be vacuous: a witness
# endpoint saw the key in the Authorization header and nowhere else in the requests, a provider
# that allowlists OPENAI_API_KEY does see it (as a hash), the providers and judges that do not
# allowlist it dump their whole environment and request, and the ledgers, journals, undo records
# and events the grep covers exist.
# Usage: secret_audit_test.sh <strata binary> <strata-test-server binary> <example provider binary>
STRATA=$(realpath "$1")
SERVER=$(realpath "$2")
PROVIDER=$(realpath "$3")
. "$(dirname "$0")/lib.sh"
KEY="sk-strata-audit-$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')"

# Everything Strata could write lands in $WORK: HOME, TMPDIR, the log home, and (below) its cwd.
mkdir -p "$WORK/out" "$WORK/home" "$WORK/tmp" "$WORK/loghome" "$WORK/project" "$WORK/specs" "$WORK/call-specs" \
  "$WORK/dumps" "$WORK/snapshots" "$WORK/bin"
export HOME=$WORK/home TMPDIR=$WORK/tmp CM_WORKFLOW_LOG_HOME=$WORK/loghome
# The key in the endpoint's variable, the call's variable and an unrelated one.
export STUDY_API_KEY=$KEY CM_OPENAI_COMPATIBLE_API_KEY=$KEY OPENAI_API_KEY=$KEY AUDIT_VISIBLE=visible-to-providers
P=$WORK/project S=$WORK/specs
EVENT_LOG="$S/运行日志.jsonl"

start_test_server "$SERVER"
stat_of() { control GET stats | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
PROVIDER_REPLY='{"taskOutcome":"partial","evidenceQuality":"medium","safetyOutcome":"safe","evidenceIds":[],"inputTokens":1,"outputTokens":1,"tokenMethod":"estimate"}'
JUDGE_REPLY='{"outcome":"success","confidence":0.9,"reasonCodes":["checks-passed"]}'
control POST reply --data-binary "$PROVIDER_REPLY" >/dev/null

# The witness: a plain-HTTP endpoint on loopback that answers like the test server and counts the
# requests whose Authorization header is "Bearer <key>" and those carrying the key anywhere else
# (path, another header, body). GET /__mode/echo makes it answer 401 with the key in the error
# body, as real services do ("Incorrect API key provided: ..."); /__mode/model makes it answer
# normally but name the key as the response's model (the effective_model a log would record);
# /__mode/ok switches back. It gets the key through its own environment and writes nothing.
cat >"$WORK/witness.py" <<'PY'
import http.server, json, os, sys, threading
key = os.environ.pop("AUDIT_WITNESS_KEY")
replies = {"test-model": sys.argv[1], "judge-model-1": sys.argv[2]}
stats = {"requests": 0, "bearer_ok": 0, "key_elsewhere": 0}
mode = ["ok"]
lock = threading.Lock()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def answer(self, body, status=200):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        with lock:
            if self.path.startswith("/__mode/"): mode[0] = self.path[8:]
            self.answer(json.dumps(stats))
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        others = "".join(f"{k}: {v}\n" for k, v in self.headers.items() if k.lower() != "authorization")
        with lock:
            stats["requests"] += 1
            stats["bearer_ok"] += self.headers.get("Authorization") == " ".join(("Bearer", key))
            stats["key_elsewhere"] += key in others or key.encode() in body or key in self.path
            echo = mode[0] == "echo"
        if echo:
            return self.answer(json.dumps({"error": {"message": f"Incorrect API key provided: {key}.",
                                                     "type": "invalid_request_error", "code": "invalid_api_key"}}), 401)
        try:
            model = json.loads(body).get("model", "")
        except ValueError:
            model = ""
        effective = key if mode[0] == "model" else "test-model-1"
        self.answer(json.dumps({"id": "chatcmpl-witness", "object": "chat.completion", "model": effective,
                                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
                                             "content": replies.get(model, "hello from the witness")}}],
                                "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}))

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
AUDIT_WITNESS_KEY=$KEY python3 "$WORK/witness.py" "$PROVIDER_REPLY" "$JUDGE_REPLY" >"$WORK/witness.info" 2>"$WORK/witness.err" &
WITNESS_PID=$!
trap 'kill $WITNESS_PID 2>/dev/null; wait $WITNESS_PID 2>/dev/null; exec 3>&-; wait $SERVER_PID 2>/dev/null; cd /; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
for _ in $(seq 50); do [ -s "$WORK/witness.info" ] && break; sleep 0.1; done
WITNESS_URL=http://127.0.0.1:$(cat "$WORK/witness.info")/v1
witness() { curl -s "${WITNESS_URL%/v1}/__witness" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
witness_mode() { curl -s "${WITNESS_URL%/v1}/__mode/$1" >/dev/null; }
# A port nobody listens on: connections are refused.
DEAD_PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
export STUDY_BASE_URL=https://127.0.0.1:$PORT/v1 STUDY_DEAD_URL=https://127.0.0.1:$DEAD_PORT/v1

# A provider (or judge) that records its whole environment and the request it read, then answers.
# "full" writes the environment as it is; "hashed" (for a provider that allowlists the key) writes
# each name with the sha256 of its value. A provider's first attempt fails for about half the
# executions (exit 1, a line on stderr), so retries run too.
cat >"$WORK/bin/env-dump-provider" <<'SH'
#!/bin/bash
prefix=$1 mode=$2 role=$3
file="$prefix-${DOC_BRIDGE_STUDY_SESSION_ID:-judge-$$}.env"
if [ "$mode" = full ]; then
  env >"$file"
else
  while IFS= read -r -d '' pair; do
    printf '%s %s\n' "${pair%%=*}" "$(printf '%s' "${pair#*=}" | sha256sum | cut -d' ' -f1)"
  done < <(env -0) >"$file"
fi
cat >"$file.request"
if [ "$role" = judge ]; then
  printf '%s' '{"outcome":"success","confidence":0.8,"reasonCodes":["checks-passed"]}'
  exit 0
fi
case ${DOC_BRIDGE_STUDY_SESSION_ID:-} in
  [0-7]*-1) echo "first attempt fails on purpose" >&2; exit 1 ;;
esac
printf '%s' '{"taskOutcome":"partial","evidenceQuality":"medium","safetyOutcome":"safe","evidenceIds":[],"inputTokens":1,"outputTokens":1,"tokenMethod":"estimate"}'
SH
chmod 755 "$WORK/bin/env-dump-provider"
DUMPER=$WORK/bin/env-dump-provider

# cap <label> <strata args...>: runs strata (stdin from $CAP_STDIN, default /dev/null), keeps
# stdout and stderr as out/<n>-<label>.stdout/.stderr, leaves $OUT, $ERR, $CODE.
n=0
cap() {
  local label=$1 base
  shift
  n=$((n + 1))
  base=$(printf '%s/out/%02d-%s' "$WORK" "$n" "$label")
  "$STRATA" "$@" <"${CAP_STDIN:-/dev/null}" >"$base.stdout" 2>"$base.stderr"
  CODE=$?
  cp "$base.stdout" "$WORK/stdout"
  cp "$base.stderr" "$WORK/stderr"
  OUT=$(cat "$base.stdout")
  ERR=$(cat "$base.stderr")
}
expect_eq() { checks=$((checks + 1)); [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"; }
count_events() { grep -c "\"event\":\"$1\"" "$2" 2>/dev/null; }

# --- the study: two provider configs ---------------------------------------------------------
make_example_study "$PROVIDER" ok t429 s500 s401 echo refused crash
# mixed: low-cost-model calls the endpoint of STUDY_BASE_URL/STUDY_API_KEY, reference-model is the
# dumper (full, allowlisting only AUDIT_VISIBLE), the adjudicator is an endpoint judge.
# refused: low-cost-model calls STUDY_DEAD_URL (connection refused), reference-model is the dumper
# allowlisting OPENAI_API_KEY (hashed), the adjudicator is the dumper as a judge (full, no allowlist).
endpoint_study "$WORK/providers.json" "$WORK/mixed.payload.json" only=low-cost-model maxConcurrency=4 envAllowlist=
endpoint_study "$WORK/mixed.payload.json" "$WORK/mixed.payload.json" judge=mixed-judge maxConcurrency=4
endpoint_study "$WORK/providers.json" "$WORK/refused.payload.json" only=low-cost-model maxConcurrency=4 envAllowlist= \
  baseUrlEnv=STUDY_DEAD_URL transportRetries=1
python3 - "$WORK" "$DUMPER" <<'PY'
import json, sys
work, dumper = sys.argv[1:3]
for name in ("mixed", "refused"):
    config = json.load(open(f"{work}/{name}.payload.json"))
    for p in config["providers"]:
        if "endpoint" not in p:
            for k in ("command", "args", "envAllowlist"):
                p.pop(k, None)
            p["command"] = dumper
            p["args"] = [f"{work}/dumps/{name}-provider", "full" if name == "mixed" else "hashed", "provider"]
            p["envAllowlist"] = ["AUDIT_VISIBLE"] if name == "mixed" else ["OPENAI_API_KEY"]
    if name == "refused":
        config["adjudicator"] = {"id": "refused-judge", "modelId": "judge-model", "providerNetwork": False,
                                 "maxInputBytes": 1000000, "maxOutputBytes": 65536, "command": dumper,
                                 "args": [f"{work}/dumps/refused-judge", "full", "judge"]}
    json.dump(config, open(f"{work}/{name}.payload.json", "w"))
PY
"$STRATA" seal provider-config "$WORK/mixed.payload.json" -o "$WORK/mixed.json" >/dev/null
"$STRATA" seal provider-config "$WORK/refused.payload.json" -o "$WORK/refused.json" >/dev/null
cd "$WORK" || exit 1
L=$WORK/ledger.json
# study <label> <plan> <config> [more args]: `strata run` into $L with the usage log.
study() {
  local label=$1 plan=$2 config=$3
  shift 3
  cap "$label" run "$WORK/plan-$plan.json" "$WORK/suite.json" --providers "$WORK/$config.json" \
    --repositories "$WORK/repos.json" --ledger "$L" --jobs 8 --usage-log-project-root "$P" --usage-log-specs-dir "$S" "$@"
}
ledger_of() {  # ledger_of <ledger> <runId>: "<n>x<status>:<errorCode>" per kind, sorted
  python3 - "$1" "$2" <<'PY'
import collections, json, sys
c = collections.Counter()
for o in json.load(open(sys.argv[1]))["observations"]:
    if o["runId"] == sys.argv[2]:
        c[o["execution"]["status"] + ":" + o["execution"].get("errorCode", "-")] += 1
print(" ".join(f"{n}x{k}" for k, n in sorted(c.items())))
PY
}

# --- strata run ----------------------------------------------------------------------------------
study dry-run ok mixed --dry-run --json
expect_code 0 "dry run"
expect_out_has '"planned": 16' "dry run plans 16 executions"
STUDY_BASE_URL="https://audit:$KEY@127.0.0.1:$PORT/v1" study preflight-credentials ok mixed --dry-run
expect_code 2 "pre-flight: the key as URL credentials"
expect_err_has "STUDY_BASE_URL cannot contain credentials or query data." "  message names the variable only"
STUDY_BASE_URL="https://127.0.0.1:$PORT/v1?api_key=$KEY" study preflight-query ok mixed --text
expect_code 2 "pre-flight: the key as URL query"
STUDY_BASE_URL="http://$KEY.example.com/v1" study preflight-http ok mixed --text
expect_code 2 "pre-flight: plain http to a host named after the key"
expect_file_absent "$L" "pre-flight refusals write no ledger"

# The witness names the key as the responses' model: the usage events must leave it out.
before=$(witness requests)
witness_mode model
STUDY_BASE_URL=$WITNESS_URL study run-ok ok mixed --json
witness_mode ok
expect_code 0 "run: endpoint (witness) and process providers"
expect_eq "$(ledger_of "$L" append-ok)" "16xcompleted:-" "  every execution completes"
expect_true "[ \$(( \$(witness requests) - before )) -ge 8 ]" "  the witness answered the endpoint executions"
fault throttle:429
study run-429 t429 mixed --text
expect_code 0 "run: a third of the requests answered 429"
expect_eq "$(ledger_of "$L" append-t429)" "16xcompleted:-" "  every execution completes"
expect_true "[ \$(stat_of throttled) -gt 0 ]" "  the server did throttle"
fault status:500
study run-500 s500 mixed --json
expect_code 0 "run: HTTP 500"
expect_eq "$(ledger_of "$L" append-s500)" "8xcompleted:- 8xfailed:http-500" "  the endpoint executions failed"
fault status:401
study run-401 s401 mixed --text
expect_code 0 "run: HTTP 401"
expect_eq "$(ledger_of "$L" append-s401)" "8xcompleted:- 8xfailed:http-401" "  the endpoint executions failed"
witness_mode echo
STUDY_BASE_URL=$WITNESS_URL study run-echo echo mixed --json
expect_code 0 "run: HTTP 401 with the key in the error body"
expect_eq "$(ledger_of "$L" append-echo)" "8xcompleted:- 8xfailed:http-401" "  the endpoint executions failed"
witness_mode ok
fault ok
# The key in the path of a base URL that refuses connections (a base URL is never printed either).
STUDY_DEAD_URL="https://127.0.0.1:$DEAD_PORT/$KEY/v1" study run-refused refused refused --json
expect_code 0 "run: connection refused"
expect_eq "$(ledger_of "$L" append-refused)" "8xcompleted:- 8xunavailable:unavailable" "  the endpoint executions are unavailable"
# A crash after the undo record of an in-place append is written, then the resume.
# (The braces keep bash's "Killed" notice off the test's stderr.)
{ STRATA_TEST_CRASH_AT=append-undo-written STUDY_BASE_URL=$WITNESS_URL study run-crash crash mixed --text; } 2>/dev/null
expect_code 137 "run killed mid-append"
mkdir -p "$WORK/snapshots/crash" && cp -a "$L"* "$WORK/snapshots/crash/"
expect_true "[ -s '$WORK/snapshots/crash/ledger.json.append-undo' ] && [ -s '$WORK/snapshots/crash/ledger.json.journal' ]" \
  "  the undo record and the journal it left are kept for the audit"
STUDY_BASE_URL=$WITNESS_URL study run-resume crash mixed --text
expect_code 0 "resume after the crash"
expect_err_has "undid an append cut short" "  undoes the append"
expect_eq "$(ledger_of "$L" append-crash)" "16xcompleted:-" "  every execution recorded"
expect_true "[ -s '$L.verified' ]" "  the .verified record exists"

# --- strata ledger, strata verify ---------------------------------------------------------------
cap verify verify --text "$L" "$WORK/mixed.json" "$WORK/refused.json"
expect_code 0 "the ledger and configs verify"
cap ledger-json ledger --json "$L"
expect_code 0 "strata ledger --json"
cap ledger-text ledger --text "$L"
expect_code 0 "strata ledger --text"

# --- strata adjudicate ---------------------------------------------------------------------------
J=$WORK/judged
before=$(witness bearer_ok)
STUDY_BASE_URL=$WITNESS_URL cap adjudicate-ok adjudicate "$L" "$WORK/suite.json" --adjudicator "$WORK/mixed.json" \
  --output "$J-ok.json" --run-id append-ok --jobs 8 --usage-log-project-root "$P" --usage-log-specs-dir "$S" --json
expect_code 0 "adjudication by the endpoint judge (witness)"
expect_true "[ \$(( \$(witness bearer_ok) - before )) -eq 16 ]" "  sixteen judgements, each with the key in its Authorization header"
fault status:500
cap adjudicate-500 adjudicate "$L" "$WORK/suite.json" --adjudicator "$WORK/mixed.json" --output "$J-500.json" \
  --run-id append-s500 --jobs 8 --usage-log-project-root "$P" --usage-log-specs-dir "$S" --text
expect_code 0 "adjudication answered HTTP 500 (judgements pending)"
witness_mode echo
STUDY_BASE_URL=$WITNESS_URL cap adjudicate-echo adjudicate "$L" "$WORK/suite.json" --adjudicator "$WORK/mixed.json" \
  --output "$J-echo.json" --run-id append-s401 --jobs 8 --usage-log-project-root "$P" --usage-log-specs-dir "$S" --json
expect_code 0 "adjudication answered HTTP 401 with the key in the error body (judgements pending)"
witness_mode model
STUDY_BASE_URL=$WITNESS_URL cap adjudicate-model adjudicate "$L" "$WORK/suite.json" --adjudicator "$WORK/mixed.json" \
  --output "$J-model.json" --run-id append-refused --jobs 8 --usage-log-project-root "$P" --usage-log-specs-dir "$S" --text
expect_code 0 "adjudication whose answers name the key as their model"
witness_mode ok
# Killed while judging (the journal has judgements), then resumed.
fault delay:300
"$STRATA" adjudicate "$L" "$WORK/suite.json" --adjudicator "$WORK/mixed.json" --output "$J-killed.json" --run-id append-t429 \
  --jobs 2 --usage-log-project-root "$P" --usage-log-specs-dir "$S" >"$WORK/out/adjudicate-killed.stdout" \
  2>"$WORK/out/adjudicate-killed.stderr" &
pid=$!
for _ in $(seq 100); do [ -s "$J-killed.json.adjudication-journal" ] && break; sleep 0.05; done
kill -9 "$pid"
wait "$pid" 2>/dev/null
mkdir -p "$WORK/snapshots/adjudication" && cp -a "$J-killed.json"* "$WORK/snapshots/adjudication/" 2>/dev/null
expect_true "[ -s '$WORK/snapshots/adjudication/judged-killed.json.adjudication-journal' ]" "adjudication killed with judgements in its journal"
fault ok
cap adjudicate-resume adjudicate "$L" "$WORK/suite.json" --adjudicator "$WORK/mixed.json" --output "$J-killed.json" \
  --run-id append-t429 --jobs 8 --usage-log-project-root "$P" --usage-log-specs-dir "$S" --text
expect_code 0 "  the resumed adjudication finishes"
cap adjudicate-process adjudicate "$L" "$WORK/suite.json" --adjudicator "$WORK/refused.json" --output "$J-process.json" \
  --run-id append-ok --jobs 8 --text
expect_code 0 "adjudication by a process judge that does not allowlist the key"
cap verify-judged verify --json "$J-ok.json" "$J-500.json" "$J-echo.json" "$J-model.json" "$J-killed.json" "$J-process.json"
expect_code 0 "the adjudicated ledgers verify"

# --- strata call ---------------------------------------------------------------------------------
PACKET='{"stable_prefix":{"safety":"audit safety","workflow":"cm-prd design generation","project_rules":"none","role":"planner","output_schema":"plain text"},"dynamic_packet":{"workflow":"cm-prd","stage":"design_generation","role":"planner","objective":"answer","identifiers":{"feature":"1.audit"},"constraints":[],"expected_output":"text"}}'
printf '%s' "$PACKET" >"$WORK/packet.json"
cap usage-run-start usage log --workflow cm-prd --event run_start --phase start --runtime codex --project-root "$P" \
  --specs-dir "$WORK/call-specs" --run-id audit-call-0001 --detail "secret audit"
expect_code 0 "run_start of the call's run"
# call <label> <call id> <base URL> [key]: one `strata call` with the packet on stdin.
call() {
  CAP_STDIN=$WORK/packet.json CM_OPENAI_COMPATIBLE_ENABLED=true CM_OPENAI_COMPATIBLE_BASE_URL=$3 \
    CM_OPENAI_COMPATIBLE_API_KEY=${4:-$KEY} cap "$1" call --workflow cm-prd --stage design_generation --role planner \
    --runtime codex --requested-model planner-default --call-id "$2" --timeout-seconds 3 --project-root "$P" \
    --specs-dir "$WORK/call-specs" --run-id audit-call-0001
}
before=$(witness bearer_ok)
call call-witness audit-call-1 "$WITNESS_URL"
expect_code 0 "call: success (witness)"
expect_out "hello from the witness" "  prints the model's text"
expect_true "[ \$(( \$(witness bearer_ok) - before )) -eq 1 ]" "  the key went in the Authorization header"
call call-tls audit-call-2 "https://127.0.0.1:$PORT/v1"
expect_code 0 "call: success (TLS)"
witness_mode echo
call call-echo audit-call-9 "$WITNESS_URL"
expect_code 1 "call: HTTP 401 with the key in the error body exits 1"
witness_mode model
call call-model audit-call-10 "$WITNESS_URL"
expect_code 0 "call: an answer naming the key as its model"
witness_mode ok
fault status:500
call call-500 audit-call-3 "https://127.0.0.1:$PORT/v1"
expect_code 1 "call: HTTP 500 exits 1"
fault status:401
call call-401 audit-call-4 "https://127.0.0.1:$PORT/v1"
expect_code 1 "call: HTTP 401 exits 1"
fault ok
call call-refused audit-call-5 "https://127.0.0.1:$DEAD_PORT/$KEY/v1"
expect_code 1 "call: connection refused (the key in the base URL's path) exits 1"
call call-credentials audit-call-6 "https://audit:$KEY@127.0.0.1:$PORT/v1"
expect_code 2 "call: the key as URL credentials exits 2"
expect_err_has "cannot contain credentials or query data" "  message"
call call-scheme audit-call-7 "ftp://127.0.0.1:$PORT/$KEY"
expect_code 2 "call: a base URL that is not HTTP(S) exits 2"
call call-badkey audit-call-8 "https://127.0.0.1:$PORT/v1" "$KEY"$'\r\n'"$KEY"
expect_code 2 "call: a key with a line break exits 2"
expect_err_has "API key contains unsupported characters" "  message"

# --- strata usage report -------------------------------------------------------------------------
cap usage-report-text usage report --log-home "$WORK/loghome"
expect_code 0 "usage report (text)"
cap usage-report-json usage report --json --log-home "$WORK/loghome"
expect_code 0 "usage report (JSON)"
expect_true "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d[\"groups\"])' '$WORK/out/$(printf %02d $n)-usage-report-json.stdout'" \
  "  the report has groups"

# --- not vacuous ---------------------------------------------------------------------------------
expect_true "[ \$(witness bearer_ok) -ge 30 ] && [ \$(witness bearer_ok) -eq \$(witness requests) ]" \
  "the witness saw the key in the Authorization header of every request ($(witness requests))"
expect_eq "$(witness key_elsewhere)" 0 "  and in no path, other header or body"
expect_true "[ \$(stat_of requests) -ge 50 ]" "the test server answered requests ($(stat_of requests))"
claims=$(count_events model_call "$EVENT_LOG") usages=$(count_events model_usage "$EVENT_LOG")
expect_true "[ ${claims:-0} -ge 100 ] && [ ${usages:-0} -ge 100 ]" "the event log has claims ($claims) and usage events ($usages)"
expect_true "[ \$(count_events model_usage '$WORK/call-specs/运行日志.jsonl') -ge 4 ]" "the call's event log has usage events"
expect_true "[ -s '$WORK/loghome/index.jsonl' ] && ls '$WORK'/loghome/runs/*/*.jsonl >/dev/null" "the log home has its index and run files"
expect_true "[ \$(ledger_counts '$L' | grep -o '=16' | wc -l) -eq 7 ]" "the ledger holds the seven runs"
expect_true "[ \$(ls '$WORK'/out/*.stdout | wc -l) -ge 35 ] && [ \$(ls '$WORK'/out/*.stderr | wc -l) -ge 35 ]" \
  "every output was captured ($(ls "$WORK"/out/*.stdout | wc -l) commands)"
full_dumps=$(ls "$WORK"/dumps/mixed-provider-*.env "$WORK"/dumps/refused-judge-*.env 2>/dev/null | wc -l)
expect_true "[ $full_dumps -ge 50 ]" "providers and judges that do not allowlist the key dumped their environment ($full_dumps)"
expect_true "[ -z \"\$(grep -Lx 'AUDIT_VISIBLE=visible-to-providers' '$WORK'/dumps/mixed-provider-*.env)\" ]" \
  "  every one of them sees its allowlisted variable"
expect_true "grep -qF '\"taskId\"' '$WORK'/dumps/mixed-provider-*.request" "  and their requests were recorded"
key_hash=$(printf '%s' "$KEY" | sha256sum | cut -d' ' -f1)
hashed=$(ls "$WORK"/dumps/refused-provider-*.env | wc -l)
expect_true "[ $hashed -ge 8 ] && [ \$(grep -lx 'OPENAI_API_KEY $key_hash' '$WORK'/dumps/refused-provider-*.env | wc -l) -eq $hashed ]" \
  "a provider that allowlists OPENAI_API_KEY does get the key ($hashed dumps)"
expect_true "! grep -q -e '^STUDY_API_KEY ' -e '^CM_OPENAI_COMPATIBLE_API_KEY ' '$WORK'/dumps/refused-provider-*.env" \
  "  and none of the key variables it does not allowlist"

# --- the audit -------------------------------------------------------------------------------------
# hits <fixed string>: the files of the work directory holding it (FIFOs and sockets skipped).
hits() { grep -rlF -D skip -- "$1" "$WORK"; }
audit() {
  local found
  found=$(hits "$1")
  checks=$((checks + 1))
  [ -z "$found" ] || { failures=$((failures + 1)); echo "FAIL: $2 found in:" >&2; echo "$found" | sed 's/^/  /' >&2; }
}
files=$(find "$WORK" -type f | wc -l)
expect_true "[ $files -ge 200 ]" "the audit covers the work directory ($files files)"
audit "$KEY" "the key"
audit "${KEY:0:12}" "the key's first 12 characters"
audit "${KEY: -12}" "the key's last 12 characters"
audit "$(printf '%s' "$KEY" | base64 -w0)" "the key in base64"
audit "$(printf 'Bearer %s' "$KEY" | base64 -w0)" "'Bearer <key>' in base64"
audit "Bearer " "an Authorization header"
finish
