#!/usr/bin/env bash
# Mixed writers on one log (usage-boundary spec §2.1, §2.4, §2.9, §4.4): an event log written
# partly by a Python "Shape A" writer and partly by `strata usage log` must be the log either
# writer alone writes, and `strata usage report` must print the same bytes for it.
#
# The reference cm-log-event.py is not available, so tests/support/reference_log_writer.py
# restates the spec's write sequence independently (checked below against the spec's UUIDv5
# vector). Each sequence is written once per "plan": P = the Python writer writes that event,
# S = strata does. Every plan writes into the same paths (project_path/specs_path are part of
# the records and of the event ids), with fixed `--at` values, so logs are deterministic.
# Usage: usage_mixed_writer_test.sh <strata binary>
STRATA=$(realpath "$1")
REFERENCE=$(realpath "$(dirname "$0")/../support/reference_log_writer.py")
. "$(dirname "$0")/lib.sh"
umask 022
SITE="$WORK/site"            # where every plan writes: project/, 规格/ (specs), logs/ (home)
RESULTS="$WORK/results"      # per plan: transcript, report outputs, file listing, a copy of the site
mkdir -p "$RESULTS"
export CM_WORKFLOW_LOG_HOME="$SITE/logs"

# expect_same <what> <a> <b>: files (or directories) are byte-identical; shows a diff if not.
expect_same() {
  checks=$((checks + 1))
  if ! diff -r "$2" "$3" >"$WORK/diff" 2>&1; then
    failures=$((failures + 1))
    echo "FAIL: $1" >&2
    { head -c 1500 "$WORK/diff"; echo; } | sed 's/^/  /' >&2
  fi
}
expect() {  # expect <what> <shell condition>
  checks=$((checks + 1))
  eval "$2" || { failures=$((failures + 1)); echo "FAIL: $1" >&2; }
}

# emit <writer flags...>: the next event of the sequence, by the writer the plan names for it.
# The transcript keeps the exit code, stdout and stderr (without the program-name prefix,
# `cm-log-event: ` vs `strata usage log: `), so refusals must match too.
emit() {
  local who=${PLAN:$STEP:1}
  STEP=$((STEP + 1))
  case "$who" in
    P) python3 -I -S "$REFERENCE" "$@" ;;
    S) "$STRATA" usage log "$@" ;;
    *) echo "plan '$PLAN' has no writer for event $STEP" ;;
  esac >"$WORK/e.out" 2>"$WORK/e.err"
  local code=$?
  { echo "event $STEP: exit $code"; cat "$WORK/e.out"
    sed -e 's/^cm-log-event: //' -e 's/^strata usage log: //' "$WORK/e.err"; } >>"$TRANSCRIPT"
}

# ---- the sequences -------------------------------------------------------------------------
claim_data() {  # claim_data <call id> <workflow> <stage> <role> <requested model>
  printf '{"call_id":"%s","stage":"%s","role":"%s","adapter":"openai-compatible","requested_model":"%s","source":"api","purpose":"%s:%s"}' \
    "$1" "$3" "$4" "$5" "$2" "$3"
}

# happy: one specs-mode run. Only run_start names the run; later events find it through the
# pointer (§2.6 rules 1 and 2). Non-ASCII in paths, detail and data; Python float reprs;
# two exact retries (deduplicated, the stored `at` is mirrored); one refused re-claim.
HAPPY_EVENTS=10
happy() {
  local p=(--workflow cm-prd --runtime codex --project-root "$SITE/project" --specs-dir "$SITE/规格")
  local usage1='{"call_id":"planner-call-0001","stage":"design_generation","role":"planner","adapter":"openai-compatible","requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation","usage_state":"observed","duration_ms":2500,"outcome":"success","effective_model":"provider-model-v2","input_tokens":123,"output_tokens":45,"cache_read_tokens":100}'
  local usage2='{"call_id":"planner-call-0002","stage":"design_generation","role":"planner","adapter":"openai-compatible","requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation","usage_state":"unavailable","duration_ms":400,"outcome":"error"}'
  emit "${p[@]}" --event run_start --phase start --run-id mixed-happy-0001 --at 2026-08-06T09:00:00+08:00 --detail "混合写入 started"
  emit "${p[@]}" --event model_call --phase claimed --at 2026-08-06T09:00:05+08:00 --detail "planner model call claimed" \
    --data-json "$(claim_data planner-call-0001 cm-prd design_generation planner planner-default)"
  emit "${p[@]}" --event model_usage --phase complete --at 2026-08-06T09:00:08.750+08:00 --detail "planner model call success" \
    --data-json "$usage1"
  emit "${p[@]}" --event progress --phase execute --at 2026-08-06T01:00:10Z --detail "进度 ✓" \
    --data-json '{"feature":"1.login","note":"引号 \" 与 \\ 和 \u0001","ratio":0.5,"big":1e16,"tiny":1e-7,"list":[1.0,-0.0,{"b":null,"a":true}]}'
  emit "${p[@]}" --event model_call --phase claimed --at 2026-08-06T09:01:00+08:00 --detail "planner model call claimed" \
    --data-json "$(claim_data planner-call-0002 cm-prd design_generation planner planner-default)"
  emit "${p[@]}" --event model_usage --phase complete --at 2026-08-06T09:01:30+08:00 --detail "planner model call error" \
    --data-json "$usage2"
  emit "${p[@]}" --event model_usage --phase complete --at 2026-08-06T09:59:00+08:00 --detail "planner model call error" \
    --data-json "$usage2"
  emit "${p[@]}" --event model_call --phase claimed --at 2026-08-06T09:02:00+08:00 --detail "planner model call claimed" \
    --data-json "$(claim_data planner-call-0001 cm-prd design_generation planner planner-default)"
  emit "${p[@]}" --event run_done --phase complete --at 2026-08-06T10:00:00+08:00 --detail "混合写入 done"
  emit "${p[@]}" --event run_done --phase complete --at 2026-08-06T10:30:00+08:00 --detail "混合写入 done"
}

# report44: the §4.4 report fixture, as the events a caller would try to write. Run A is
# global-only (project `unscoped`); run B is a specs-mode run of project `fixture`. The rows
# the writers refuse (E', identity mismatch, second claim, usage before claim, managed usage
# without claim, the three malformed rows) must be refused identically by both writers.
REPORT44_EVENTS=21
report44() {
  local a=(--runtime codex --run-id usage-fixture-0001)
  local b=(--runtime codex --run-id usage-fixture-0002 --project fixture --specs-dir "$SITE/规格")
  local e='{"stage":"design_generation","adapter":"company-api","requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation","call_id":"planner-call-0001","role":"planner","effective_model":"provider-model-v2","usage_state":"observed","input_tokens":1200,"output_tokens":300,"cache_read_tokens":800,"cache_write_tokens":100,"duration_ms":2500,"outcome":"success"}'
  local coder='{"call_id":"coder-call-0001","stage":"task_execution","role":"coder","adapter":"subscription-runtime","requested_model":"coder-default","source":"subscription","purpose":"cm-ai:task_execution","usage_state":"unavailable","duration_ms":700,"outcome":"success"}'
  local review='{"stage":"task_review","role":"reviewer","adapter":"openai-compatible","requested_model":"reviewer-default","source":"api","purpose":"cm-ai:task_review","usage_state":"observed","outcome":"success","call_id":"CALL","input_tokens":10,"output_tokens":2}'
  local bad='{"stage":"task_execution","role":"coder","adapter":"company-api","requested_model":"coder-default","source":"api","purpose":"cm-ai:task_execution","usage_state":"observed","outcome":"success","call_id":"CALL",'
  emit "${a[@]}" --workflow cm-prd --event run_start --phase start --at 2026-08-06T10:00:00+00:00 --detail "usage fixture A"
  emit "${a[@]}" --workflow cm-prd --event model_usage --phase complete --at 2026-08-06T10:00:00-07:00 --detail "planner model call completed" --data-json "$e"
  emit "${a[@]}" --workflow cm-prd --event model_usage --phase complete --at 2026-08-06T10:05:00-07:00 --detail "planner model call completed" --data-json "$e"
  emit "${a[@]}" --workflow cm-prd --event model_usage --phase complete --at 2026-08-06T10:06:00-07:00 --detail "planner model call completed" --data-json "${e/\"output_tokens\":300/\"output_tokens\":301}"
  emit "${a[@]}" --workflow cm-prd --event run_done --phase complete --at 2026-08-06T10:30:00+00:00 --detail "usage fixture A done"
  emit "${b[@]}" --workflow cm-ai --event run_start --phase start --at 2026-08-06T11:00:00+00:00 --detail "usage fixture B"
  emit "${b[@]}" --workflow cm-ai --event model_usage --phase complete --at 2026-08-06T11:00:00+00:00 --detail "usage unavailable" --data-json "$coder"
  emit "${b[@]}" --workflow cm-ai --event model_usage --phase complete --at 2026-08-06T11:00:30+00:00 --detail "usage unavailable" \
    --data-json "$(sed -e 's/coder-call-0001/coder-call-0002/' -e 's/"duration_ms":700,"outcome":"success"/"duration_ms":400,"outcome":"error"/' <<<"$coder")"
  emit "${b[@]}" --workflow cm-ai --event model_call --phase claimed --at 2026-08-06T11:00:45+00:00 --detail "reviewer call claimed" \
    --data-json "$(claim_data reviewer-call-unresolved cm-ai task_review reviewer reviewer-default)"
  emit "${b[@]}" --workflow cm-ai --event model_call --phase claimed --at 2026-08-06T11:00:45+00:00 --detail "reviewer call claimed" \
    --data-json "$(claim_data mismatched-call-0001 cm-ai task_review reviewer reviewer-default)"
  emit "${b[@]}" --workflow cm-prd --event model_usage --phase complete --at 2026-08-06T11:01:00+00:00 --detail "malformed fixture" \
    --data-json '{"stage":"design_generation","role":"planner","adapter":"other-api","requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation","usage_state":"observed","outcome":"success","call_id":"mismatched-call-0001","input_tokens":10,"output_tokens":2}'
  emit "${b[@]}" --workflow cm-ai --event model_call --phase claimed --at 2026-08-06T11:00:45+00:00 --detail "reviewer call claimed" \
    --data-json "$(claim_data conflicting-call-0001 cm-ai task_review reviewer reviewer-default)"
  emit "${b[@]}" --workflow cm-ai --event model_call --phase claimed --at 2026-08-06T11:00:45+00:00 --detail "reviewer call claimed" \
    --data-json "$(claim_data conflicting-call-0001 cm-ai design_generation planner planner-default)"
  emit "${b[@]}" --workflow cm-ai --event model_usage --phase complete --at 2026-08-06T11:01:00+00:00 --detail "malformed fixture" \
    --data-json "${review/CALL/conflicting-call-0001}"
  emit "${b[@]}" --workflow cm-ai --event model_usage --phase complete --at 2026-08-06T11:01:00+00:00 --detail "malformed fixture" \
    --data-json "${review/CALL/usage-before-claim-0001}"
  emit "${b[@]}" --workflow cm-ai --event model_call --phase claimed --at 2026-08-06T11:00:45+00:00 --detail "reviewer call claimed" \
    --data-json "$(claim_data usage-before-claim-0001 cm-ai task_review reviewer reviewer-default)"
  emit "${b[@]}" --workflow cm-ai --event model_usage --phase complete --at 2026-08-06T11:01:00+00:00 --detail "malformed fixture" \
    --data-json "${review/CALL/managed-without-claim-0002}"
  emit "${b[@]}" --workflow cm-ai --event model_usage --phase complete --at 2026-08-06T11:01:00+00:00 --detail "malformed fixture" \
    --data-json "${bad/CALL/malformed-call-0001}\"output_tokens\":4}"
  emit "${b[@]}" --workflow cm-ai --event model_usage --phase complete --at 2026-08-06T11:01:00+00:00 --detail "malformed fixture" \
    --data-json "${bad/CALL/malformed-call-0002}\"input_tokens\":true,\"output_tokens\":4}"
  emit "${b[@]}" --workflow cm-ai --event model_usage --phase complete --at 2026-08-06T11:01:00+00:00 --detail "malformed fixture" \
    --data-json "${bad/CALL/malformed-call-0003}\"input_tokens\":4,\"output_tokens\":-1}"
  emit "${b[@]}" --workflow cm-ai --event run_done --phase complete --at 2026-08-06T11:30:00+00:00 --detail "usage fixture B done"
}


# lifecycle: resources and a test run (usage-lifecycle.md) in one specs-mode run; only
# run_start names the run. Four completions are tried while something is open and refused
# (nothing written); a reuse of a released id is refused. Whichever writer wrote the rows,
# each writer derives the same state from them, so every plan refuses the same events with
# the same messages and writes the same bytes.
LIFECYCLE_EVENTS=12
lifecycle() {
  local p=(--workflow cm-qa --runtime claude --project-root "$SITE/project" --specs-dir "$SITE/规格")
  local vm='{"resource_id":"vm-1","resource_kind":"vm","cleanup_required":true}' db='{"resource_id":"db-2","resource_kind":"db","cleanup_required":true}'
  emit "${p[@]}" --event run_start --run-id mixed-life-0001 --at 2026-08-06T09:00:00+08:00 --detail "生命周期 started"
  emit "${p[@]}" --event resource --phase acquired --at 2026-08-06T09:00:01+08:00 --detail "vm up" --data-json "${vm%\}},\"pid\":4242}"
  emit "${p[@]}" --event resource --phase acquired --at 2026-08-06T09:00:02+08:00 --detail "db up" --data-json "$db"
  emit "${p[@]}" --event test_run --phase start --at 2026-08-06T09:00:03+08:00 --detail "tests"
  emit "${p[@]}" --event test_run --phase case_start --at 2026-08-06T09:00:04+08:00 --detail "case" --data-json '{"case_id":"C-1"}'
  emit "${p[@]}" --event task_done --at 2026-08-06T09:00:05+08:00 --detail "too early"
  emit "${p[@]}" --event resource --phase released --at 2026-08-06T09:00:06+08:00 --detail "vm down" --data-json '{"resource_id":"vm-1","resource_kind":"vm","exit_code":0}'
  emit "${p[@]}" --event resource --phase acquired --at 2026-08-06T09:00:07+08:00 --detail "vm again" --data-json "$vm"
  emit "${p[@]}" --event resource --phase cleanup_failed --at 2026-08-06T09:00:08+08:00 --detail "db stuck" --data-json '{"resource_id":"db-2","resource_kind":"db"}'
  emit "${p[@]}" --event run_done --at 2026-08-06T09:00:09+08:00 --detail "still early"
  emit "${p[@]}" --event resource --phase released --at 2026-08-06T09:00:10+08:00 --detail "db down" --data-json '{"resource_id":"db-2","resource_kind":"db"}'
  emit "${p[@]}" --event run_done --at 2026-08-06T09:00:11+08:00 --detail "still early"
}

# write_plan <sequence> <plan>: a fresh site, the sequence written by the plan's writers, then
# the report (JSON and text, stdout + stderr + exit code), the file listing (type, mode, path)
# and a copy of every file, all kept under $RESULTS/<sequence>.<plan>.
write_plan() {
  local out="$RESULTS/$1.$2"
  rm -rf "$SITE"
  mkdir -p "$SITE/project" "$SITE/规格" "$out"
  PLAN=$2 STEP=0 TRANSCRIPT="$out/transcript"
  : >"$TRANSCRIPT"
  "$1"
  # report.json / report.text: stdout, then stderr (warnings), then the exit code
  "$STRATA" usage report --log-home "$SITE/logs" --last 10 --json >"$out/report.json" 2>"$out/report.json.err"
  echo "exit $?" | cat "$out/report.json.err" - >>"$out/report.json" && rm "$out/report.json.err"
  "$STRATA" usage report --log-home "$SITE/logs" --last 10 >"$out/report.text" 2>"$out/report.text.err"
  echo "exit $?" | cat "$out/report.text.err" - >>"$out/report.text" && rm "$out/report.text.err"
  # Strata's state indexes (.<log>.strata-index, a cache only Strata reads) are left out of
  # the comparison: their modes are listed apart, the logs themselves must match.
  (cd "$SITE" && find . ! -name '*.strata-index' -printf '%y %m %p\n' | LC_ALL=C sort) >"$out/listing"
  (cd "$SITE" && find . -name '*.strata-index' -printf '%m %p\n' | LC_ALL=C sort) >"$out/indexes"
  cp -a "$SITE" "$out/site"
  find "$out/site" -name '*.strata-index' -delete
}

# compare_plan <sequence> <plan>: everything equals the all-strata and the all-Python plans.
compare_plan() {
  local n=${#2} base
  for base in "$(printf "%${n}s" | tr ' ' S)" "$(printf "%${n}s" | tr ' ' P)"; do
    [ "$2" = "$base" ] && continue
    local want="$RESULTS/$1.$base" got="$RESULTS/$1.$2"
    expect_same "$1 $2 vs $base: same exit codes, stdout and messages per event" "$want/transcript" "$got/transcript"
    expect_same "$1 $2 vs $base: same files with the same modes" "$want/listing" "$got/listing"
    expect_same "$1 $2 vs $base: byte-identical logs, index, pointer and lock files" "$want/site" "$got/site"
    expect_same "$1 $2 vs $base: byte-identical report --json" "$want/report.json" "$got/report.json"
    expect_same "$1 $2 vs $base: byte-identical report (text)" "$want/report.text" "$got/report.text"
  done
}

# plans <events>: all-S, all-P, the first k events by Python and the rest by strata (k = 1,
# n/2, n-1), the reverse split at n/2, and the two event-by-event alternations. (Each Python
# start costs 0.1-0.3 s, so the split points are few; the alternations cover every boundary.)
plans() {
  local n=$1 k half=$(($1 / 2))
  printf "%${n}s\n" | tr ' ' S
  printf "%${n}s\n" | tr ' ' P
  for k in 1 $half $((n - 1)); do
    echo "$(printf "%${k}s" | tr ' ' P)$(printf "%$((n - k))s" | tr ' ' S)"
  done
  echo "$(printf "%${half}s" | tr ' ' S)$(printf "%$((n - half))s" | tr ' ' P)"
  printf 'PS%.0s' $(seq "$n") | head -c "$n"; echo
  printf 'SP%.0s' $(seq "$n") | head -c "$n"; echo
}

# ---- the Python writer itself against the spec ------------------------------------------------
# §2.9 / §4.3 case 60: the verified UUIDv5 vector, and a later `at` gives the same id.
for at in 2026-07-29T16:00:00Z 2026-07-30T09:30:00+08:00; do
  CM_WORKFLOW_LOG_HOME="$WORK/vector" python3 -I -S "$REFERENCE" --workflow cm-ai --event progress --phase execute \
    --runtime codex --project 示例 --run-id 20260729T160000Z-active01 --at "$at" --detail 任务执行中 \
    --data-json '{"feature":"1.login"}' >"$WORK/vector.out" 2>&1
  expect "reference writer: spec event-id vector ($at)" \
    "grep -q '\"event_id\":\"85b8ed7a-364d-5a22-ae19-9e60fae968e6\"' '$WORK/vector.out'"
done

# ---- every plan of both sequences -------------------------------------------------------------
for sequence in happy report44 lifecycle; do
  case $sequence in happy) n=$HAPPY_EVENTS ;; report44) n=$REPORT44_EVENTS ;; *) n=$LIFECYCLE_EVENTS ;; esac
  # lifecycle, and every sequence under the sanitizers: the two single-writer plans and the two
  # alternations only (each Python start costs 0.1-0.3 s; the alternations already put every
  # state change on either side; the release stage runs the split plans of happy and report44)
  if [ "$sequence" = lifecycle ] || sanitized_build "$STRATA"; then plan_list=$(plans "$n" | grep -x -E 'S+|P+|(PS)+P?|(SP)+S?' | sort -u)
  else plan_list=$(plans "$n" | sort -u); fi
  for plan in $plan_list; do write_plan "$sequence" "$plan"; done
  all_s="$RESULTS/$sequence.$(printf "%${n}s" | tr ' ' S)"
  expect "$sequence: the sequence has $n events" "[ \"\$(grep -c '^event ' '$all_s/transcript')\" = $n ]"
  expect "$sequence: no pointer temp file left behind" "! grep -q '\\.tmp\\.' '$all_s/listing'"
  for plan in $plan_list; do compare_plan "$sequence" "$plan"; done
  echo "$sequence: $(wc -w <<<"$plan_list") plans of $n events compared"
done

# What the plans agree on is also the right answer (so "equal" cannot mean "equally empty").
HAPPY="$RESULTS/happy.$(printf "%${HAPPY_EVENTS}s" | tr ' ' S)"
expect "happy: exact retries are deduplicated, the re-claim of a completed call is refused" \
  "[ \"\$(grep -c '\"deduplicated\":true' '$HAPPY/transcript')\" = 2 ] && grep -qx 'model_call call_id already completed' '$HAPPY/transcript'"
expect "happy: project log and mirror hold the same 7 lines" \
  "[ \"\$(wc -l <'$HAPPY/site/规格/运行日志.jsonl')\" = 7 ] && cmp -s '$HAPPY/site/规格/运行日志.jsonl' '$HAPPY/site/logs/runs/2026-08/mixed-happy-0001.jsonl'"
expect "happy: report counts the observed and the unavailable call" \
  "grep -q '^- calls: observed 1 | unavailable 1 | unresolved claims 0 | invalid 0$' '$HAPPY/report.text'"
R44="$RESULTS/report44.$(printf "%${REPORT44_EVENTS}s" | tr ' ' S)"
expect "report44: the writers refuse E' and the 7 invalid rows of the §4.4 fixture (exit 2 each)" \
  "[ \"\$(grep -c ': exit 2$' '$R44/transcript')\" = 8 ] && [ \"\$(grep -c ': exit 0$' '$R44/transcript')\" = 13 ]"
expect "report44: refusal messages are the spec's" "python3 - '$R44/transcript' <<'PY'
import sys
text = open(sys.argv[1], encoding='utf-8').read()
for message in ('model_usage call_id already used with different payload',
                'model_usage identity does not match model_call claim',
                'model_call call_id already claimed with different payload',
                'managed model_usage requires a prior model_call claim',
                'observed model_usage requires input_tokens',
                'model_usage input_tokens must be a non-negative integer',
                'model_usage output_tokens must be a non-negative integer'):
    assert message + '\n' in text, message
PY"
expect "report44: report of what the writers accept" "head -1 '$R44/report.json' | python3 -c '
import json, sys
r = json.loads(sys.stdin.readline())
s = r[\"summary\"]
assert (s[\"runs\"], s[\"observed_calls\"], s[\"unavailable_calls\"], s[\"unresolved_claims\"], s[\"invalid_calls\"]) == (2, 2, 2, 3, 0), s
assert s[\"outcomes\"] == {\"success\": 3, \"error\": 1, \"blocked\": 0, \"cancelled\": 0}, s
assert (s[\"input_tokens\"], s[\"output_tokens\"], s[\"cache_read_tokens\"], s[\"duration_ms\"], s[\"duration_observed_calls\"]) == (1210, 302, 800, 3600, 3), s
assert [g[\"claims\"] for g in r[\"unresolved_groups\"]] == [3], r[\"unresolved_groups\"]
'"

LIFE="$RESULTS/lifecycle.$(printf "%${LIFECYCLE_EVENTS}s" | tr ' ' S)"
expect "lifecycle: the refusals are the spec's, in order" "[ \"\$(grep -v -e '^event ' -e '^{' '$LIFE/transcript')\" = 'completion blocked by unclosed resources: db-2, vm-1
released resource_id cannot be reused; acquire a new resource_id
completion blocked by unclosed resources: db-2
completion blocked by incomplete test_run: active invocation; open cases: C-1' ]"
expect "lifecycle: 8 events written, the report shows the test run still open" \
  "[ \"\$(wc -l <'$LIFE/site/规格/运行日志.jsonl')\" = 8 ] && grep -qx -- '- lifecycle: mixed-life-0001 (running) | incomplete test_run: active invocation; open cases: C-1' '$LIFE/report.text'"
expect "lifecycle: Strata keeps its state indexes beside the logs it wrote (0644 in specs, 0600 in the home)" \
  "grep -qx '644 ./规格/.运行日志.jsonl.strata-index' '$LIFE/indexes' && grep -qx '600 ./logs/runs/2026-08/.mixed-life-0001.jsonl.strata-index' '$LIFE/indexes'"

# ---- the locks are shared: a Python writer holding them makes strata wait (§2.4) -----------
# Specs mode (project lock first) and global-only mode (global lock only). The Python writer
# announces that it holds its locks (a marker file) and keeps them 1 s; strata, started then,
# must wait for them.
rm -rf "$SITE"
mkdir -p "$SITE/project" "$SITE/规格"
for mode in specs global-only; do
  [ "$mode" = specs ] && where=(--specs-dir "$SITE/规格") || where=()
  rm -f "$WORK/held"
  REFERENCE_WRITER_HOLD_MS=1000 REFERENCE_WRITER_HELD_FILE="$WORK/held" python3 -I -S "$REFERENCE" \
    --workflow cm-prd --event run_start --runtime codex --run-id mixed-lock-0001 "${where[@]}" --detail "holder" \
    >"$WORK/holder.out" 2>&1 &
  holder=$!
  for _ in $(seq 200); do [ -e "$WORK/held" ] && break; sleep 0.02; done
  begin=$(date +%s%N)
  "$STRATA" usage log --workflow cm-prd --event progress --runtime codex --run-id mixed-lock-0001 "${where[@]}" \
    --detail "waiter" >"$WORK/waiter.out" 2>&1
  waiter_code=$?
  waited_ms=$((($(date +%s%N) - begin) / 1000000))
  wait "$holder"
  holder_code=$?
  expect "lock ($mode): both writes succeed" "[ $holder_code = 0 ] && [ $waiter_code = 0 ]"
  expect "lock ($mode): strata waited for the Python writer's lock (${waited_ms} ms)" "[ $waited_ms -ge 500 ]"
done
details() { grep -o '"detail":"[a-z]*"' "$@" | tr '\n' ' '; }
expect "lock: the holder's line precedes the waiter's in the project log and in the mirror" \
  "[ \"\$(details '$SITE/规格/运行日志.jsonl')\" = '\"detail\":\"holder\" \"detail\":\"waiter\" ' ] &&
   [ \"\$(details '$SITE'/logs/runs/*/mixed-lock-0001.jsonl)\" = '\"detail\":\"holder\" \"detail\":\"waiter\" \"detail\":\"holder\" \"detail\":\"waiter\" ' ]"

# ---- racing writers of both kinds for one claim: exactly one is written (§2.8) ------------
rm -rf "$SITE"
mkdir -p "$SITE/project" "$SITE/规格"
RACE=(--workflow cm-prd --event model_call --phase claimed --runtime codex --project-root "$SITE/project"
  --specs-dir "$SITE/规格" --run-id mixed-race-0001 --at 2026-08-06T12:00:00+00:00 --detail "planner model call claimed"
  --data-json "$(claim_data planner-call-race cm-prd design_generation planner planner-default)")
for i in 1 2 3 4; do
  python3 -I -S "$REFERENCE" "${RACE[@]}" >"$WORK/race.P$i" 2>&1 &
  "$STRATA" usage log "${RACE[@]}" >"$WORK/race.S$i" 2>&1 &
done
wait
expect "race: 8 writers, exactly one writes the claim, seven see it as a duplicate" \
  "[ \"\$(cat '$WORK'/race.* | grep -c '\"deduplicated\":false')\" = 1 ] && [ \"\$(cat '$WORK'/race.* | grep -c '\"deduplicated\":true')\" = 7 ]"
expect "race: one claim line in the project log and in the mirror" \
  "[ \"\$(grep -c planner-call-race '$SITE/规格/运行日志.jsonl')\" = 1 ] && [ \"\$(cat '$SITE'/logs/runs/*/mixed-race-0001.jsonl | grep -c planner-call-race)\" = 1 ]"

finish
