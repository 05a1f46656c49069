#!/usr/bin/env bash
# CLI tests of `strata usage report` (usage-boundary spec §3, acceptance cases §4.4) on a
# fixture log home written the way the reference writer writes it.
# Usage: usage_report_test.sh <strata binary>
STRATA=$(realpath "$1")
. "$(dirname "$0")/lib.sh"

# --- the §4.4 fixture: run A (index at 10:00, done), run B (11:00, done) ---------------
HOME_A="$WORK/logs"
mkdir -p "$HOME_A/runs/2026-08"
cat >"$HOME_A/index.jsonl" <<'JSONL'
{"schema_version": 1, "at": "2026-08-06T10:00:00+00:00", "run_id": "usage-fixture-0001", "status": "done", "workflow": "cm-prd", "runtime": "codex", "project": "fixture", "log_file": "runs/2026-08/usage-fixture-0001.jsonl"}
{"schema_version": 1, "at": "2026-08-06T11:00:00+00:00", "run_id": "usage-fixture-0002", "status": "done", "workflow": "cm-ai", "runtime": "codex", "project": "fixture", "log_file": "runs/2026-08/usage-fixture-0002.jsonl"}
JSONL
cat >"$HOME_A/runs/2026-08/usage-fixture-0001.jsonl" <<'JSONL'
{"schema_version":1,"run_id":"usage-fixture-0001","at":"2026-08-06T10:00:00-07:00","workflow":"cm-prd","event":"model_usage","runtime":"codex","project":"unscoped","detail":"planner model call completed","phase":"complete","stage":"design_generation","adapter":"company-api","requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation","call_id":"planner-call-0001","role":"planner","effective_model":"provider-model-v2","usage_state":"observed","input_tokens":1200,"output_tokens":300,"cache_read_tokens":800,"cache_write_tokens":100,"duration_ms":2500,"outcome":"success","event_id":"5d0b8f3c-2c1e-5a55-9a53-6a2a7b7c9e01"}
{"schema_version":1,"run_id":"usage-fixture-0001","at":"2026-08-06T10:00:00-07:00","workflow":"cm-prd","event":"model_usage","runtime":"codex","project":"unscoped","detail":"planner model call completed","phase":"complete","stage":"design_generation","adapter":"company-api","requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation","call_id":"planner-call-0001","role":"planner","effective_model":"provider-model-v2","usage_state":"observed","input_tokens":1200,"output_tokens":300,"cache_read_tokens":800,"cache_write_tokens":100,"duration_ms":2500,"outcome":"success","event_id":"5d0b8f3c-2c1e-5a55-9a53-6a2a7b7c9e01"}
{"schema_version":1,"run_id":"usage-fixture-0001","at":"2026-08-06T10:00:00-07:00","workflow":"cm-prd","event":"model_usage","runtime":"codex","project":"unscoped","detail":"planner model call completed","phase":"complete","stage":"design_generation","adapter":"company-api","requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation","call_id":"planner-call-0001","role":"planner","effective_model":"provider-model-v2","usage_state":"observed","input_tokens":1200,"output_tokens":301,"cache_read_tokens":800,"cache_write_tokens":100,"duration_ms":2500,"outcome":"success","event_id":"conflicting-call-event"}
JSONL
cat >"$HOME_A/runs/2026-08/usage-fixture-0002.jsonl" <<'JSONL'
{"schema_version":1,"event_id":"unavailable-event","run_id":"usage-fixture-0002","at":"2026-08-06T11:00:00+00:00","workflow":"cm-ai","event":"model_usage","phase":"complete","runtime":"codex","project":"fixture","detail":"usage unavailable","call_id":"coder-call-0001","stage":"task_execution","role":"coder","adapter":"subscription-runtime","requested_model":"coder-default","source":"subscription","purpose":"cm-ai:task_execution","usage_state":"unavailable","duration_ms":700,"outcome":"success"}
{"schema_version":1,"event_id":"unavailable-error-event","run_id":"usage-fixture-0002","at":"2026-08-06T11:00:30+00:00","workflow":"cm-ai","event":"model_usage","phase":"complete","runtime":"codex","project":"fixture","detail":"usage unavailable","call_id":"coder-call-0002","stage":"task_execution","role":"coder","adapter":"subscription-runtime","requested_model":"coder-default","source":"subscription","purpose":"cm-ai:task_execution","usage_state":"unavailable","duration_ms":400,"outcome":"error"}
{"schema_version":1,"event_id":"unresolved-claim-event","run_id":"usage-fixture-0002","at":"2026-08-06T11:00:45+00:00","workflow":"cm-ai","event":"model_call","phase":"claimed","runtime":"codex","project":"fixture","detail":"reviewer call claimed","call_id":"reviewer-call-unresolved","stage":"task_review","role":"reviewer","adapter":"openai-compatible","requested_model":"reviewer-default","source":"api","purpose":"cm-ai:task_review"}
{"schema_version":1,"event_id":"mismatched-claim-event","run_id":"usage-fixture-0002","at":"2026-08-06T11:00:45+00:00","workflow":"cm-ai","event":"model_call","phase":"claimed","runtime":"codex","project":"fixture","detail":"reviewer call claimed","call_id":"mismatched-call-0001","stage":"task_review","role":"reviewer","adapter":"openai-compatible","requested_model":"reviewer-default","source":"api","purpose":"cm-ai:task_review"}
{"schema_version":1,"run_id":"usage-fixture-0002","at":"2026-08-06T11:01:00+00:00","workflow":"cm-prd","event":"model_usage","phase":"complete","runtime":"codex","project":"fixture","detail":"malformed fixture","stage":"design_generation","role":"planner","adapter":"other-api","requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation","usage_state":"observed","outcome":"success","event_id":"mismatched-usage-event","call_id":"mismatched-call-0001","input_tokens":10,"output_tokens":2}
{"schema_version":1,"event_id":"conflicting-claim-one","run_id":"usage-fixture-0002","at":"2026-08-06T11:00:45+00:00","workflow":"cm-ai","event":"model_call","phase":"claimed","runtime":"codex","project":"fixture","detail":"reviewer call claimed","call_id":"conflicting-call-0001","stage":"task_review","role":"reviewer","adapter":"openai-compatible","requested_model":"reviewer-default","source":"api","purpose":"cm-ai:task_review"}
{"schema_version":1,"event_id":"conflicting-claim-two","run_id":"usage-fixture-0002","at":"2026-08-06T11:00:45+00:00","workflow":"cm-ai","event":"model_call","phase":"claimed","runtime":"codex","project":"fixture","detail":"reviewer call claimed","call_id":"conflicting-call-0001","stage":"design_generation","role":"planner","adapter":"openai-compatible","requested_model":"planner-default","source":"api","purpose":"cm-ai:design_generation"}
{"schema_version":1,"run_id":"usage-fixture-0002","at":"2026-08-06T11:01:00+00:00","workflow":"cm-ai","event":"model_usage","phase":"complete","runtime":"codex","project":"fixture","detail":"malformed fixture","stage":"task_review","role":"reviewer","adapter":"openai-compatible","requested_model":"reviewer-default","source":"api","purpose":"cm-ai:task_review","usage_state":"observed","outcome":"success","event_id":"conflicting-usage-event","call_id":"conflicting-call-0001","input_tokens":10,"output_tokens":2}
{"schema_version":1,"run_id":"usage-fixture-0002","at":"2026-08-06T11:01:00+00:00","workflow":"cm-ai","event":"model_usage","phase":"complete","runtime":"codex","project":"fixture","detail":"malformed fixture","stage":"task_review","role":"reviewer","adapter":"openai-compatible","requested_model":"reviewer-default","source":"api","purpose":"cm-ai:task_review","usage_state":"observed","outcome":"success","event_id":"usage-before-claim-event","call_id":"usage-before-claim-0001","input_tokens":10,"output_tokens":2}
{"schema_version":1,"event_id":"claim-after-usage-event","run_id":"usage-fixture-0002","at":"2026-08-06T11:00:45+00:00","workflow":"cm-ai","event":"model_call","phase":"claimed","runtime":"codex","project":"fixture","detail":"reviewer call claimed","call_id":"usage-before-claim-0001","stage":"task_review","role":"reviewer","adapter":"openai-compatible","requested_model":"reviewer-default","source":"api","purpose":"cm-ai:task_review"}
{"schema_version":1,"run_id":"usage-fixture-0002","at":"2026-08-06T11:01:00+00:00","workflow":"cm-ai","event":"model_usage","phase":"complete","runtime":"codex","project":"fixture","detail":"malformed fixture","stage":"task_review","role":"reviewer","adapter":"openai-compatible","requested_model":"reviewer-default","source":"api","purpose":"cm-ai:task_review","usage_state":"observed","outcome":"success","event_id":"managed-without-claim-event","call_id":"managed-without-claim-0002","input_tokens":10,"output_tokens":2}
{"schema_version":1,"run_id":"usage-fixture-0002","at":"2026-08-06T11:01:00+00:00","workflow":"cm-ai","event":"model_usage","phase":"complete","runtime":"codex","project":"fixture","detail":"malformed fixture","stage":"task_execution","role":"coder","adapter":"company-api","requested_model":"coder-default","source":"api","purpose":"cm-ai:task_execution","usage_state":"observed","outcome":"success","event_id":"malformed-missing-input","call_id":"malformed-call-0001","output_tokens":4}
{"schema_version":1,"run_id":"usage-fixture-0002","at":"2026-08-06T11:01:00+00:00","workflow":"cm-ai","event":"model_usage","phase":"complete","runtime":"codex","project":"fixture","detail":"malformed fixture","stage":"task_execution","role":"coder","adapter":"company-api","requested_model":"coder-default","source":"api","purpose":"cm-ai:task_execution","usage_state":"observed","outcome":"success","event_id":"malformed-bool-input","call_id":"malformed-call-0002","input_tokens":true,"output_tokens":4}
{"schema_version":1,"run_id":"usage-fixture-0002","at":"2026-08-06T11:01:00+00:00","workflow":"cm-ai","event":"model_usage","phase":"complete","runtime":"codex","project":"fixture","detail":"malformed fixture","stage":"task_execution","role":"coder","adapter":"company-api","requested_model":"coder-default","source":"api","purpose":"cm-ai:task_execution","usage_state":"observed","outcome":"success","event_id":"malformed-negative-output","call_id":"malformed-call-0003","input_tokens":4,"output_tokens":-1}
JSONL
snapshot() { (cd "$1" && find . -printf '%p %s %T@\n' | sort | sha256sum); }
BEFORE=$(snapshot "$HOME_A")
RUN_A="$HOME_A/runs/2026-08/usage-fixture-0001.jsonl"
RUN_B="$HOME_A/runs/2026-08/usage-fixture-0002.jsonl"

# --- spec 85: text output, exact ------------------------------------------------------
run usage report --log-home "$HOME_A" --last 2
expect_code 0 "85 text"
expect_out "CM API Usage（最近 2 次运行）
- calls: observed 1 | unavailable 2 | unresolved claims 4 | invalid 8
- tokens: input 1200 | output 300 | cache read 800 | cache write 100
- outcomes: success 2 | error 1 | blocked 0 | cancelled 0
- observed duration: 3600 ms across 3 calls
- cm-prd/design_generation | planner | company-api | provider-model-v2 (effective) | success | calls 1, in 1200, out 300, cache-read 800, cache-write 100
- unresolved: cm-ai/task_review | reviewer | openai-compatible | reviewer-default | claims 4
- 缺失 usage 保持 unavailable；未完成 claim 单独报告且不计调用/Token；未推测缺失用量，也未换算费用。" "85 text"

# --- spec 84, 86: the warnings, in order, each prefixed -------------------------------
expect_true "[ \"\$ERR\" = \"strata usage report: warning: conflicting model_call identity at $RUN_B:7
strata usage report: warning: ignored malformed model_usage at $RUN_B:12 (invalid input count)
strata usage report: warning: ignored malformed model_usage at $RUN_B:13 (invalid input count)
strata usage report: warning: ignored malformed model_usage at $RUN_B:14 (invalid output count)
strata usage report: warning: ignored model_usage with mismatched claim identity at $RUN_B:5
strata usage report: warning: ignored model_usage with mismatched claim identity at $RUN_B:8
strata usage report: warning: ignored model_usage with mismatched claim identity at $RUN_B:9
strata usage report: warning: ignored managed model_usage without prior claim at $RUN_B:11
strata usage report: warning: ignored duplicate model_usage call_id at $RUN_A:3\" ]" "86 warnings in order"

# --- spec 82, 83: JSON, exact -----------------------------------------------------------
run usage report --log-home "$HOME_A" --last 2 --json
expect_code 0 "82 json"
expect_out '{"schema_version":1,"source":"cm-global-log-mirror","missing_usage_policy":"unavailable-not-guessed","unresolved_claim_policy":"reported-not-counted","summary":{"runs":2,"observed_calls":1,"unavailable_calls":2,"unresolved_claims":4,"invalid_calls":8,"outcomes":{"success":2,"error":1,"blocked":0,"cancelled":0},"input_tokens":1200,"output_tokens":300,"cache_read_tokens":800,"cache_write_tokens":100,"duration_ms":3600,"duration_observed_calls":3},"groups":[{"workflow":"cm-prd","stage":"design_generation","role":"planner","adapter":"company-api","model":"provider-model-v2","model_source":"effective","outcome":"success","calls":1,"input_tokens":1200,"output_tokens":300,"cache_read_tokens":800,"cache_write_tokens":100,"duration_ms":2500,"duration_observed_calls":1}],"unavailable_groups":[{"workflow":"cm-ai","stage":"task_execution","role":"coder","outcome":"error","calls":1,"duration_ms":400,"duration_observed_calls":1},{"workflow":"cm-ai","stage":"task_execution","role":"coder","outcome":"success","calls":1,"duration_ms":700,"duration_observed_calls":1}],"unresolved_groups":[{"workflow":"cm-ai","stage":"task_review","role":"reviewer","adapter":"openai-compatible","requested_model":"reviewer-default","source":"api","claims":4}]}' "82-83 json"
expect_err_has "ignored malformed model_usage" "84"
expect_err_has "conflicting model_call identity" "84"
expect_err_has "mismatched claim identity" "84"
expect_err_lines 9 "84 nine warnings"

# --- spec 87: --last 1 keeps the newest run only ----------------------------------------
run usage report --log-home "$HOME_A" --last 1 --json
expect_code 0 "87 --last 1"
expect_true "python3 -c 'import json,sys; s=json.load(open(\"$WORK/stdout\"))[\"summary\"]; assert (s[\"runs\"],s[\"observed_calls\"],s[\"unavailable_calls\"],s[\"invalid_calls\"])==(1,0,2,7), s'" "87 --last 1 summary"
run usage report --log-home "$HOME_A" --last=1
expect_out_has "CM API Usage（最近 1 次运行）" "87 --last=1"

# --- default --last 10; CM_WORKFLOW_LOG_HOME; --log-home wins over it; ~ expansion -------
CM_WORKFLOW_LOG_HOME="$HOME_A" run usage report
expect_code 0 "env log home"
expect_out_has "observed 1 | unavailable 2" "env log home"
CM_WORKFLOW_LOG_HOME="$WORK/nowhere" run usage report --log-home "$HOME_A" --json
expect_out_has '"runs":2' "--log-home overrides the environment"
HOME="$WORK" run usage report --log-home '~/logs' --json
expect_out_has '"runs":2' "~ expands to HOME"
HOME="$WORK" CM_WORKFLOW_LOG_HOME= run usage report --json
expect_out_has '"runs":0' "default ~/.cm-workflow/logs"
expect_file_absent "$WORK/.cm-workflow" "the default home is not created"

# --- the report never writes ----------------------------------------------------------------
expect_true "[ \"$BEFORE\" = \"\$(snapshot \"$HOME_A\")\" ]" "log home unchanged"

# --- spec 89: missing or empty home ----------------------------------------------------
run usage report --log-home "$WORK/missing" --json
expect_code 0 "89 missing home"
expect_out '{"schema_version":1,"source":"cm-global-log-mirror","missing_usage_policy":"unavailable-not-guessed","unresolved_claim_policy":"reported-not-counted","summary":{"runs":0,"observed_calls":0,"unavailable_calls":0,"unresolved_claims":0,"invalid_calls":0,"outcomes":{"success":0,"error":0,"blocked":0,"cancelled":0},"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0,"duration_ms":0,"duration_observed_calls":0},"groups":[],"unavailable_groups":[],"unresolved_groups":[]}' "89 missing home json"
expect_err_empty "89 missing home"
expect_file_absent "$WORK/missing" "89 missing home not created"
mkdir -p "$WORK/empty"
run usage report --log-home "$WORK/empty"
expect_code 0 "89 empty home text"
expect_out "CM API Usage（最近 0 次运行）
- calls: observed 0 | unavailable 0 | unresolved claims 0 | invalid 0
- tokens: input 0 | output 0 | cache read 0 | cache write 0
- outcomes: success 0 | error 0 | blocked 0 | cancelled 0
- 缺失 usage 保持 unavailable；未完成 claim 单独报告且不计调用/Token；未推测缺失用量，也未换算费用。" "89 empty home text"
expect_err_empty "89 empty home"

# --- malformed lines are skipped, with warnings; a path outside the home is refused ------
HOME_M="$WORK/malformed"
mkdir -p "$HOME_M/runs/2026-09"
printf '%s\n' \
  'not json at all' \
  '' \
  '{"schema_version":1,"at":"2026-09-01T08:00:00+00:00","run_id":"run-malformed-1","status":"running","workflow":"cm-ai","runtime":"codex","project":"p","log_file":"runs/2026-09/run-malformed-1.jsonl"}' \
  '["an array"]' \
  '{"schema_version":1,"at":"2026-09-01T07:00:00+00:00","run_id":"run-outside-01","status":"running","workflow":"cm-ai","runtime":"codex","project":"p","log_file":"../outside.jsonl"}' \
  '{"schema_version":1,"at":"not a time","run_id":"run-bad-time-1","log_file":"runs/x.jsonl"}' \
  >"$HOME_M/index.jsonl"
cp "$RUN_A" "$WORK/outside.jsonl"
RUN_M="$HOME_M/runs/2026-09/run-malformed-1.jsonl"
printf '%s\n' \
  '{"schema_version":1,"run_id":"run-malformed-1","at":"2026-09-01T08:00:00+00:00","workflow":"cm-ai","event":"run_start","runtime":"codex","project":"p","detail":"start"}' \
  '{"truncated":' \
  '   ' \
  '{"schema_version":1,"run_id":"run-malformed-1","at":"2026-09-01T08:01:00+00:00","workflow":"cm-ai","event":"model_usage","runtime":"codex","project":"p","detail":"d","phase":"complete","stage":"s","adapter":"company-api","requested_model":"m","source":"api","purpose":"p","call_id":"call-1","role":"coder","usage_state":"observed","input_tokens":5,"output_tokens":6,"outcome":"blocked","event_id":"e-1"}' \
  '{"schema_version":1,"run_id":"run-malformed-1","at":"2026-09-01T08:02:00+00:00","workflow":"cm-ai","event":"progress","runtime":"codex","project":"p","detail":"d","ratio":NaN}' \
  '{"schema_version":1,"run_id":"another-run-01","at":"2026-09-01T08:02:00+00:00","workflow":"cm-ai","event":"model_usage","runtime":"codex","project":"p","detail":"d","phase":"complete"}' \
  >"$RUN_M"
run usage report --log-home "$HOME_M"
expect_code 0 "malformed lines"
expect_out_has "CM API Usage（最近 2 次运行）" "malformed: both usable runs kept"
expect_out_has "- calls: observed 1 | unavailable 0 | unresolved claims 0 | invalid 0" "malformed: the valid row counts"
expect_out_has "- cm-ai/s | coder | company-api | m (requested) | blocked | calls 1, in 5, out 6, cache-read 0, cache-write 0" "malformed: group"
expect_true "[ \"\$ERR\" = \"strata usage report: warning: invalid JSON at $HOME_M/index.jsonl:1
strata usage report: warning: invalid JSON at $RUN_M:2
strata usage report: warning: ignored log path outside log home: ../outside.jsonl
strata usage report: warning: missing run log for run-outside-01\" ]" "malformed: warnings"

# --- spec 90: --last must be an integer >= 1 (exit 2, nothing on stdout) -----------------
for bad in 0 -1 -0 abc 1.5 1e1; do
  run usage report --log-home "$HOME_A" --last="$bad"
  expect_code 2 "90 --last '$bad'"
  expect_out_empty "90 --last '$bad'"
  expect_err_lines 1 "90 --last '$bad'"
  expect_err_has "strata usage report: argument --last: " "90 --last '$bad'"
done
run usage report --log-home "$HOME_A" --last 0
expect_code 2 "90 --last 0"
expect_err_has "strata usage report: argument --last: must be at least 1" "90 --last 0 message"
run usage report --last
expect_code 2 "--last without a value is a usage error (exit 2, as argparse)"
run usage report --log-home "$HOME_A" --last=' +2 ' --json
expect_out_has '"runs":2' "--last is read as Python's int() reads it"
run usage report --log-home "$HOME_A" --last 99999999999999999999999 --json
expect_out_has '"runs":2' "a huge --last keeps every run"
# --- the lifecycle section: held resources and incomplete test runs per run -------------
# Run L1 holds two resources (one whose cleanup failed) and an open test case; L2 opened and
# closed everything (not listed); L3 has a release without an acquisition (state cannot be
# verified). Rows of another run inside L1's file do not count.
HOME_L="$WORK/lifecycle-logs"
mkdir -p "$HOME_L/runs/2026-08"
lrow() { # lrow <run> <event> <phase> [json members]
  printf '{"schema_version":1,"run_id":"%s","at":"2026-08-06T10:00:00+00:00","workflow":"cm-qa","event":"%s","runtime":"codex","project":"p","detail":"d","phase":"%s"%s}\n' "$1" "$2" "$3" "${4:+,$4}"
}
{
  for run in lc-run-0001 lc-run-0002 lc-run-0003; do
    printf '{"schema_version":1,"at":"2026-08-06T1%s:00:00+00:00","run_id":"%s","status":"running","workflow":"cm-qa","runtime":"codex","project":"p","log_file":"runs/2026-08/%s.jsonl"}\n' "${run: -1}" "$run" "$run"
  done
  printf '{"schema_version":1,"at":"2026-08-06T12:30:00+00:00","run_id":"lc-run-0002","status":"done","workflow":"cm-qa","runtime":"codex","project":"p","log_file":"runs/2026-08/lc-run-0002.jsonl"}\n'
} >"$HOME_L/index.jsonl"
{
  lrow lc-run-0001 resource acquired '"resource_id":"web-2","resource_kind":"proc","cleanup_required":true'
  lrow lc-run-0001 resource acquired '"resource_id":"Api-1","resource_kind":"proc","cleanup_required":true'
  lrow lc-run-0001 resource cleanup_failed '"resource_id":"Api-1","resource_kind":"proc"'
  lrow lc-run-0001 resource acquired '"resource_id":"db-9","resource_kind":"db","cleanup_required":true'
  lrow lc-run-0001 resource released '"resource_id":"db-9","resource_kind":"db"'
  lrow lc-run-0001 test_run start
  lrow lc-run-0001 test_run case_start '"case_id":"C-2"'
  lrow other-run-0009 resource acquired '"resource_id":"elsewhere","resource_kind":"vm","cleanup_required":true'
} >"$HOME_L/runs/2026-08/lc-run-0001.jsonl"
{
  lrow lc-run-0002 resource acquired '"resource_id":"vm-1","resource_kind":"vm","cleanup_required":true'
  lrow lc-run-0002 resource released '"resource_id":"vm-1","resource_kind":"vm"'
  lrow lc-run-0002 test_run start
  lrow lc-run-0002 test_run complete
} >"$HOME_L/runs/2026-08/lc-run-0002.jsonl"
lrow lc-run-0003 resource released '"resource_id":"ghost-1","resource_kind":"vm"' >"$HOME_L/runs/2026-08/lc-run-0003.jsonl"
run usage report --log-home "$HOME_L"
expect_code 0 "lifecycle text"
expect_true '[ "$(grep "^- lifecycle: " "$WORK/stdout")" = "- lifecycle: lc-run-0003 (running) | state cannot be verified
- lifecycle: lc-run-0001 (running) | open resources: Api-1 (proc, cleanup_failed), web-2 (proc) | incomplete test_run: active invocation; open cases: C-2" ]' "lifecycle text: one line per run holding something, newest first"
expect_true '[ "$(tail -1 "$WORK/stdout" | cut -c1-14)" = "- 缺失 usage" ]' "lifecycle text: before the closing policy line"
run usage report --log-home "$HOME_L" --json
expect_true 'python3 -c "
import json, sys
lifecycle = json.loads(sys.argv[1])[\"lifecycle\"]
assert [r[\"run_id\"] for r in lifecycle] == [\"lc-run-0003\", \"lc-run-0001\"], lifecycle
assert lifecycle[0] == {\"run_id\": \"lc-run-0003\", \"status\": \"running\", \"state\": \"unverifiable\", \"open_resources\": [], \"test_run_active\": False, \"open_cases\": []}
assert lifecycle[1][\"open_resources\"] == [{\"resource_id\": \"Api-1\", \"resource_kind\": \"proc\", \"phase\": \"cleanup_failed\"}, {\"resource_id\": \"web-2\", \"resource_kind\": \"proc\", \"phase\": \"acquired\"}]
assert lifecycle[1][\"test_run_active\"] is True and lifecycle[1][\"open_cases\"] == [\"C-2\"] and lifecycle[1][\"state\"] == \"open\"
" "$OUT"' "lifecycle JSON: the same runs, resources and cases"
run usage report --log-home "$HOME_A" --last 2 --json
expect_true '! grep -q lifecycle "$WORK/stdout"' "no lifecycle key when no run holds anything (the reference's bytes)"

# --- the drop-in name: cm-usage-report behaves as `strata usage report` ------------------
ln -s "$STRATA" "$WORK/cm-usage-report"
"$WORK/cm-usage-report" --log-home "$HOME_A" --last 2 >"$WORK/stdout" 2>"$WORK/stderr"; CODE=$?
expect_code 0 "drop-in cm-usage-report"
expect_true "grep -qF 'CM API Usage（最近 2 次运行）' '$WORK/stdout'" "drop-in cm-usage-report output"
expect_true "grep -qF 'cm-usage-report: warning: conflicting model_call identity' '$WORK/stderr'" "drop-in warning prefix"

run usage report --help
expect_code 0 "--help"
expect_out_has "--log-home" "--help lists --log-home"

finish
