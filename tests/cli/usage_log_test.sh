#!/usr/bin/env bash
# `strata usage log` (cm-log-event, usage-boundary spec §2): the §4.3 writer acceptance
# cases that apply to one writer, concurrent writers, a lock held by another process, and
# a Python cross-check of every written line (json.dumps bytes and UUIDv5 event ids).
# Usage: usage_log_test.sh <strata binary>
STRATA=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1
umask 022

# fresh: a new P/S/H fixture under $WORK/<name>; sets P S H and CM_WORKFLOW_LOG_HOME.
fresh() {
  local base="$WORK/$1"
  mkdir -p "$base/project" "$base/specs"
  P=$(realpath "$base/project")
  S=$(realpath "$base/specs")
  H="$base/logs"
  export CM_WORKFLOW_LOG_HOME="$H"
}
start_run() {
  run usage log --workflow cm-prd --event run_start --phase start --runtime codex --project-root "$P" \
    --specs-dir "$S" --run-id adapter-fixture-0001 --detail "adapter fixture started"
}
# py <expression over o (stdout JSON)>: true when the Python expression is true.
py() { python3 -c "import json,sys; o=json.loads(sys.argv[1]); sys.exit(0 if ($1) else 1)" "$OUT" 2>/dev/null; }
lines() { grep -c . "$1" 2>/dev/null || echo 0; }

CLAIM='{"call_id":"planner-call-0001","stage":"design_generation","role":"planner","adapter":"openai-compatible","requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation"}'
claim() { # claim <call id>
  run usage log --workflow cm-prd --event model_call --phase claimed --runtime codex --project-root "$P" \
    --specs-dir "$S" --run-id adapter-fixture-0001 --detail "planner model call claimed" \
    --data-json "${CLAIM/planner-call-0001/$1}"
}

# ---- 57: run_start with specs ----
fresh t57
start_run
expect_code 0 "57 run_start"
expect_err_empty "57 no stderr"
expect_true 'py "o[\"project_log\"] == \"$S/运行日志.jsonl\" and o[\"global_written\"] is True and o[\"degraded\"] is False and o[\"pointer_written\"] is True and o[\"deduplicated\"] is False"' "57 stdout fields"
GLOBAL=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["global_log"])' "$OUT")
expect_true '[ "$(dirname "$(dirname "$GLOBAL")")" = "$(realpath "$H")/runs" ] && [ "$(basename "$GLOBAL")" = adapter-fixture-0001.jsonl ]' "57 global log path"
expect_true '[ -f "$S/.cm-run.json" ]' "57 pointer exists"
expect_true 'cmp -s "$S/运行日志.jsonl" "$GLOBAL" && [ "$(lines "$GLOBAL")" = 1 ]' "57 identical single lines"
expect_true 'python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if r[0][\"status\"]==\"running\" and r[0][\"schema_version\"]==1 else 1)" "$H/index.jsonl"' "57 index first row running"

# ---- 58: non-ASCII specs directory name: ASCII-only stdout with \u escapes ----
mkdir -p "$WORK/t58/规格" "$WORK/t58/project"
export CM_WORKFLOW_LOG_HOME="$WORK/t58/logs"
run usage log --workflow cm-prd --event run_start --runtime codex --project-root "$WORK/t58/project" \
  --specs-dir "$WORK/t58/规格" --run-id adapter-fixture-0058 --detail "non-ascii"
expect_code 0 "58 exit"
expect_out_has '\u89c4\u683c/\u8fd0\u884c\u65e5\u5fd7.jsonl' "58 escaped project_log"
expect_true '! LC_ALL=C grep -q -P "[^\x20-\x7e]" "$WORK/stdout"' "58 stdout is ASCII"
expect_true 'py "o[\"project_log\"].endswith(\"运行日志.jsonl\")"' "58 decoded project_log"

# ---- 59: exact retry of run_done ----
fresh t59
start_run
for i in 1 2; do
  run usage log --workflow cm-prd --event run_done --phase complete --runtime codex --project-root "$P" \
    --specs-dir "$S" --run-id adapter-fixture-0001 --at 2026-08-06T11:00:00Z --detail "run finished"
  expect_code 0 "59 run_done $i"
  eval "ID$i=\$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])[\"event_id\"])' \"\$OUT\")"
done
expect_true 'py "o[\"deduplicated\"] is True"' "59 retry deduplicated"
expect_true '[ "$ID1" = "$ID2" ]' "59 same event id"
expect_true '[ "$(python3 -c "import json,sys; print([json.loads(l)[\"status\"] for l in open(sys.argv[1])])" "$H/index.jsonl")" = "['"'"'running'"'"', '"'"'done'"'"']" ]' "59 index [running, done]"

# ---- 60: the spec's event-id vector through the writer (global-only, no paths) ----
fresh t60
for at in 2026-07-29T16:00:00Z 2026-07-30T09:30:00+08:00; do
  run usage log --workflow cm-ai --event progress --phase execute --runtime codex --project 示例 \
    --run-id 20260729T160000Z-active01 --at "$at" --detail 任务执行中 --data-json '{"feature":"1.login"}'
  expect_code 0 "60 exit ($at)"
  expect_out_has '"event_id":"85b8ed7a-364d-5a22-ae19-9e60fae968e6"' "60 vector ($at)"
done

# ---- 61: eight concurrent identical run_start writes without a run id ----
fresh t61
for i in 1 2 3 4 5 6 7 8; do
  "$STRATA" usage log --workflow cm-prd --event run_start --phase start --runtime codex --project-root "$P" \
    --specs-dir "$S" --detail "concurrent start" >"$WORK/t61/out$i" 2>"$WORK/t61/err$i" &
done
wait
CODE=0
expect_true 'python3 - "$WORK/t61" <<'"'"'PY'"'"'
import json, sys
outs = [json.loads(open(f"{sys.argv[1]}/out{i}").read()) for i in range(1, 9)]
assert len({o["run_id"] for o in outs}) == 1, "run ids differ"
assert sum(1 for o in outs if o["deduplicated"] is False) == 1, "not exactly one new write"
PY' "61 same run id, exactly one deduplicated:false"
expect_true '[ "$(grep -c "\"event\":\"run_start\"" "$S/运行日志.jsonl")" = 1 ]' "61 one run_start line"

# ---- two concurrent writers racing the same claim ----
fresh race
start_run
for i in 1 2; do "$STRATA" usage log --workflow cm-prd --event model_call --phase claimed --runtime codex \
  --project-root "$P" --specs-dir "$S" --run-id adapter-fixture-0001 --detail "planner model call claimed" \
  --data-json "$CLAIM" >"$WORK/race/same$i" 2>"$WORK/race/same-err$i"; echo $? >"$WORK/race/same-code$i" & done
wait
expect_true '[ "$(cat "$WORK"/race/same-code*)" = "0
0" ] && [ "$(cat "$WORK"/race/same1 "$WORK"/race/same2 | grep -c "\"deduplicated\":false")" = 1 ] && [ "$(cat "$WORK"/race/same1 "$WORK"/race/same2 | grep -c "\"deduplicated\":true")" = 1 ]' \
  "race: identical claims: one deduplicated:false, one deduplicated:true"
DIFFERENT=${CLAIM/planner-call-0001/planner-call-0002}
for i in 1 2; do "$STRATA" usage log --workflow cm-prd --event model_call --phase claimed --runtime codex \
  --project-root "$P" --specs-dir "$S" --run-id adapter-fixture-0001 --detail "planner model call claimed" \
  --data-json "${DIFFERENT/design_generation\"/design_generation-$i\"}" >"$WORK/race/diff$i" 2>"$WORK/race/diff-err$i"
  echo $? >"$WORK/race/diff-code$i" & done
wait
expect_true '[ "$(sort "$WORK"/race/diff-code* | tr "\n" " ")" = "0 2 " ] && grep -q "model_call call_id already claimed with different payload" "$WORK"/race/diff-err*' \
  "race: different claims: one written, one refused"
expect_true '[ "$(grep -c "\"call_id\":\"planner-call-000[12]\"" "$S/运行日志.jsonl")" = 2 ]' "race: one claim line per call id"

# ---- 62: a sensitive key creates nothing ----
fresh t62
run usage log --workflow cm-prd --event progress --runtime codex --specs-dir "$S" --detail x --data-json '{"api_key":"secret-zzz"}'
expect_code 2 "62 exit"
expect_err_has "strata usage log: sensitive log field is forbidden: data.api_key" "62 message"
expect_true '! grep -q secret-zzz "$WORK/stderr"' "62 value not echoed"
expect_file_absent "$H" "62 log home"

# ---- 63: the log home is a regular file ----
fresh t63
echo "not a directory" >"$H"
# start, then complete: the test_run lifecycle (usage-lifecycle.md) refuses a second start
for detail in first second; do
  [ "$detail" = first ] && phase=start || phase=complete
  run usage log --workflow cm-prd --event test_run --phase $phase --runtime codex --project-root "$P" \
    --specs-dir "$S" --run-id adapter-fixture-0001 --detail "$detail"
  expect_code 0 "63 specs mode exit ($detail)"
  expect_err_has "strata usage log: global mirror unavailable; project log retained" "63 stderr ($detail)"
  expect_true 'py "o[\"global_written\"] is False and o[\"degraded\"] is True"' "63 stdout ($detail)"
done
expect_true '[ "$(python3 -c "import json,sys; print([(r[\"event\"], r.get(\"phase\")) for r in map(json.loads, open(sys.argv[1]))])" "$S/运行日志.jsonl")" = "[('"'"'test_run'"'"', '"'"'start'"'"'), ('"'"'degrade'"'"', '"'"'global_log'"'"'), ('"'"'test_run'"'"', '"'"'complete'"'"')]" ]' "63 project log [test_run, degrade, test_run]"
run usage log --workflow cm-prd --event progress --runtime codex --run-id adapter-fixture-0001 --detail x
expect_code 1 "63 global-only exit"
expect_err_has "global-only log lock failed: FileExistsError" "63 global-only message"
expect_out_empty "63 global-only stdout"

# ---- 64: permissions ----
fresh t64
start_run
GLOBAL=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["global_log"])' "$OUT")
expect_true '[ "$(stat -c %a "$H" "$H/runs" "$(dirname "$GLOBAL")" | tr "\n" " ")" = "700 700 700 " ]' "64 directories 0700"
expect_true '[ "$(stat -c %a "$GLOBAL" "$H/index.jsonl" "$H/.cm-write.lock" | tr "\n" " ")" = "600 600 600 " ]' "64 files 0600"
expect_true '[ "$(stat -c %a "$S/运行日志.jsonl" "$S/.cm-run.json" | tr "\n" " ")" = "644 644 " ]' "64 project files 0644"

# ---- 65-67: global-only model_usage ----
fresh t65
USAGE='{"call_id":"planner-call-0001","stage":"design_generation","role":"planner","adapter":"company-api","requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation","usage_state":"observed","duration_ms":2500,"outcome":"success","input_tokens":1200,"output_tokens":300,"cache_read_tokens":800,"cache_write_tokens":100}'
usage() { run usage log --workflow cm-prd --event model_usage --phase complete --runtime codex --project-root "$P" \
  --run-id usage-fixture-0001 --detail "planner model call success" --data-json "$1"; }
usage "$USAGE"
expect_code 0 "65 exit"
GLOBAL=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["global_log"])' "$OUT")
expect_true 'python3 -c "import json,sys; r=json.loads(open(sys.argv[1]).readline()); sys.exit(0 if r[\"input_tokens\"]==1200 and r[\"cache_read_tokens\"]==800 else 1)" "$GLOBAL"' "65 first line counts"
SECOND=${USAGE/planner-call-0001/planner-call-0002}
usage "$SECOND"
expect_true 'py "o[\"deduplicated\"] is False" && [ "$(lines "$GLOBAL")" = 2 ]' "66 second call id"
usage "$SECOND"
expect_true 'py "o[\"deduplicated\"] is True" && [ "$(lines "$GLOBAL")" = 2 ]' "66 exact retry"
usage "${SECOND/\"output_tokens\":300/\"output_tokens\":301}"
expect_code 2 "67 exit"
expect_err_has "call_id already used with different payload" "67 message"

# ---- 68-80: refusals through the binary (exit 2, one stderr line, nothing on stdout) ----
fresh t68
start_run
claim planner-call-0001; expect_code 0 "68 claim"
run usage log --workflow cm-prd --event model_usage --phase complete --runtime codex --project-root "$P" --specs-dir "$S" \
  --run-id adapter-fixture-0001 --detail done --data-json "${CLAIM%\}},\"usage_state\":\"unavailable\",\"outcome\":\"error\"}"
expect_code 0 "68 usage"
bad_input "68 claim after usage" "model_call call_id already completed" usage log --workflow cm-prd --event model_call \
  --phase claimed --runtime codex --project-root "$P" --specs-dir "$S" --run-id adapter-fixture-0001 --detail x --data-json "$CLAIM"
bad_input "69 claim with only call_id and role" "requires a non-empty stage" usage log --workflow cm-prd --event model_call \
  --phase claimed --runtime codex --specs-dir "$S" --run-id adapter-fixture-0001 --detail x --data-json '{"call_id":"c-69","role":"planner"}'
MANAGED71=${CLAIM/planner-call-0001/c-71}
MANAGED71="${MANAGED71%\}},\"usage_state\":\"unavailable\",\"outcome\":\"error\"}"
bad_input "71 managed usage without claim" "requires a prior model_call claim" usage log --workflow cm-prd --event model_usage \
  --phase complete --runtime codex --specs-dir "$S" --run-id adapter-fixture-0001 --detail x \
  --data-json "$MANAGED71"
bad_input "73 access_token" "sensitive log field" usage log --workflow cm-prd --event progress --runtime codex --detail x \
  --data-json '{"access_token":"t"}'
bad_input "74 prompt" "unsupported fields" usage log --workflow cm-prd --event model_usage --phase complete --runtime codex \
  --detail x --data-json '{"prompt":"p"}'
bad_input "80 8193 bytes" "--data-json cannot exceed 8192 UTF-8 bytes" usage log --workflow w --event e --runtime r --detail x \
  --data-json "{\"x\":\"$(head -c 8185 /dev/zero | tr '\0' a)\"}"
bad_input "80 reserved" "cannot override reserved fields: run_id" usage log --workflow w --event e --runtime r --detail x \
  --data-json '{"run_id":"x"}'
bad_input "80 run id" "invalid --run-id" usage log --workflow w --event e --runtime r --detail x --run-id abc
# argparse's form: a usage line, then "<prog>: error: <message>" (usage-lifecycle spec §4)
for case in "usage error exits 2|the following arguments are required: --runtime, --detail|--workflow w --event e" \
  "unknown flag exits 2|unrecognized arguments: --bogus|--workflow w --event e --runtime r --detail x --bogus"; do
  IFS='|' read -r name message flags <<<"$case"
  # shellcheck disable=SC2086
  run usage log $flags
  expect_code 2 "$name"
  expect_out_empty "$name"
  expect_err_lines 2 "$name"
  expect_true '[ "$(tail -1 "$WORK/stderr")" = "strata usage log: error: $message" ] && head -1 "$WORK/stderr" | grep -q "^usage: strata usage log "' "$name: usage line, then the error"
done

# ---- a project lock held by another process for 1 s: the write waits, then succeeds ----
fresh lock
start_run
flock -x "$S/.cm-run.lock" -c "touch '$WORK/lock/held'; sleep 1" &
HOLDER=$!
for _ in $(seq 100); do [ -e "$WORK/lock/held" ] && break; sleep 0.02; done
BEGIN=$(date +%s%N)
run usage log --workflow cm-prd --event progress --runtime codex --specs-dir "$S" --run-id adapter-fixture-0001 --detail "after the lock"
ELAPSED_MS=$(( ($(date +%s%N) - BEGIN) / 1000000 ))
wait "$HOLDER"
expect_code 0 "lock: write after the holder releases"
expect_true '[ "$ELAPSED_MS" -ge 700 ]' "lock: the write waited (${ELAPSED_MS} ms)"
if [ -n "${STRATA_SLOW_TESTS:-}" ]; then  # 12 s: the 10 s timeout
  flock -x "$S/.cm-run.lock" -c "touch '$WORK/lock/held2'; sleep 12" &
  HOLDER=$!
  for _ in $(seq 100); do [ -e "$WORK/lock/held2" ] && break; sleep 0.02; done
  run usage log --workflow cm-prd --event progress --runtime codex --specs-dir "$S" --run-id adapter-fixture-0001 --detail "timeout"
  expect_code 1 "lock: timeout exit"
  expect_err_has "project run lock failed: TimeoutError" "lock: timeout message"
  wait "$HOLDER"
fi

# ---- every line written above is what Python's json.dumps writes, with a UUIDv5 event id ----
fresh python
run usage log --workflow cm-prd --event progress --phase execute --runtime codex --project-root "$P" --specs-dir "$S" \
  --run-id adapter-fixture-0001 --at 2026-08-06T10:00:00.75-07:00 --project "名 \"quoted\"" --detail "tab	and ✓" \
  --data-json '{"f":[1.0,1e16,1e-7,-0.0,0.1,1e15,2.5e-5],"i":[-0,12345678901234567890],"s":"\u0001\u007f\u2028😀/\\","n":null,"b":{"z":true,"a":[]}}'
expect_code 0 "python: exotic record written"
expect_true 'python3 - "$WORK" <<'"'"'PY'"'"'
import glob, json, sys, uuid
files = glob.glob(f"{sys.argv[1]}/*/specs/*.jsonl") + glob.glob(f"{sys.argv[1]}/**/runs/*/*.jsonl", recursive=True)
count = 0
for path in files:
    for line in open(path, encoding="utf-8"):
        row = json.loads(line)
        assert json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n" == line, line
        ident = {k: v for k, v in row.items() if k not in ("at", "event_id")}
        canonical = json.dumps(ident, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        assert str(uuid.uuid5(uuid.NAMESPACE_URL, canonical)) == row["event_id"], line
        count += 1
assert count > 30, count
PY' "python: json.dumps bytes and uuid5 ids of every line"
expect_true 'py "json.dumps(o, ensure_ascii=True, separators=(\",\", \":\")) == sys.argv[1]"' "python: stdout is json.dumps(ensure_ascii=True)"

finish
