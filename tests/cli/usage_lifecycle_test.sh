#!/usr/bin/env bash
# The event log's resource / test_run lifecycle and completion gating (usage-lifecycle spec):
# every numbered acceptance case of §6 through both names of the writer, the drop-in
# `cm-log-event` and `strata usage log`; then bad input on each new path leaves every file
# byte-identical, and eight concurrent writers on shared and private resource ids never leave
# two acquisitions of one id or a completion past an open resource.
# Usage: usage_lifecycle_test.sh <strata binary> [names]
#   names = each (the default): every case runs in full through cm-log-event, then in full
#           through strata usage log;
#   names = alternate: every case runs once, its steps alternating between the two names. The
#           sanitizer suite uses this: the names share every line of the writer but the
#           argv[0] dispatch and the message prefix, which the optimised suite's full passes
#           prove, and a full pass costs about 80 CPU-s there.
STRATA=$(realpath "$1")
NAMES=${2:-each}
case $NAMES in each | alternate) ;; *) echo "usage: $0 <strata> [each|alternate]" >&2; exit 2 ;; esac
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1
umask 022
REAL_WORK=$(realpath "$WORK")  # resolved once: the writer records resolved paths
mkdir -p "$WORK/bin"
ln -s "$STRATA" "$WORK/bin/cm-log-event"

# ---- helpers ---------------------------------------------------------------------------------
# fresh <name>: the §6 fixture: empty P and S, H not yet created; A = the case's base flags.
fresh() {
  T=$(mktemp -d "$REAL_WORK/$1.XXXXXX")
  mkdir "$T/P" "$T/S"
  P="$T/P" S="$T/S" H="$T/H" LOG="$T/S/运行日志.jsonl"
  export CM_WORKFLOW_LOG_HOME="$H"
  A=(--workflow cm-qa --runtime claude --project-root "$P" --specs-dir "$S" --run-id qa-lc-0001)
  CASE=$1 step=0
}
# Event shorthands of §6: each sets E to the event's flags.
acq() { E=(--event resource --phase acquired --data-json "{\"resource_id\":\"$1\",\"resource_kind\":\"$2\",\"cleanup_required\":true}"); }
rel() { E=(--event resource --phase released --data-json "{\"resource_id\":\"$1\",\"resource_kind\":\"$2\"}"); }
cf() { E=(--event resource --phase cleanup_failed --data-json "{\"resource_id\":\"$1\",\"resource_kind\":\"$2\"}"); }
tr_() { E=(--event test_run --phase "$1"); [ $# -gt 1 ] && E+=(--data-json "{\"case_id\":\"$2\"}"); }
td() { E=(--event task_done); }
rd() { E=(--event run_done); }
dn() { E=(--event done); }
# A with one flag changed or (value -) dropped: with_flag <flag> <value|-> [more pairs]; sets B.
with_flag() {
  B=()
  local i
  for ((i = 0; i < ${#A[@]}; i += 2)); do
    local flag=${A[$i]} value=${A[$((i + 1))]} j replaced=
    for ((j = 1; j <= $#; j += 2)); do
      if [ "${!j}" = "$flag" ]; then local k=$((j + 1)); value=${!k}; replaced=1; fi
    done
    [ "$value" = - ] || B+=("$flag" "$value")
  done
}

# The two names of the writer under test: the drop-in `cm-log-event` and `strata usage log`.
DROP_IN=("$WORK/bin/cm-log-event")
SUBCOMMAND=("$STRATA" usage log)
RUN_AS=()  # a command prefix (case 21 runs as another user)

# writer_for <0|1>: sets W (the command), PREFIX (its stderr prefix) and WRITER (its name).
writer_for() {
  if [ "$1" = 0 ]; then W=("${RUN_AS[@]}" "${DROP_IN[@]}") PREFIX=cm-log-event WRITER=cm-log-event
  else W=("${RUN_AS[@]}" "${SUBCOMMAND[@]}") PREFIX="strata usage log" WRITER="strata usage log"; fi
}

# PASS_NAME: the name (0 or 1, as writer_for takes it) every step of this pass of the cases
# runs through, or "alternate". pick_writer <n>: the name for step (or concurrent writer) n.
PASS_NAME=alternate
pick_writer() { if [ "$PASS_NAME" = alternate ]; then writer_for $(($1 % 2)); else writer_for "$PASS_NAME"; fi; }

# lc <expectation> <writer args...>: one step of a case, through the pass's name. A --detail
# unique in the case is added unless the args carry one (the spec's "(again)" calls pass the
# same one).
# Expectations: ok (exit 0, no stderr, one JSON line, written), dedup (the same, deduplicated),
# degraded (exit 0, written with "degraded":true), or the refusal message (exit 2, no stdout,
# stderr exactly "<prefix>: <message>").
lc() {
  local expect=$1 arg has_detail=
  shift
  local args=("$@")
  step=$((step + 1))
  for arg in "${args[@]}"; do [ "$arg" = --detail ] && has_detail=1; done
  [ -n "$has_detail" ] || args+=(--detail "$CASE step $step")
  pick_writer "$step"
  lc_call "$expect" "${args[@]}"
}
lc_call() {
  local expect=$1 name="$WRITER case $CASE step $step"
  shift
  "${W[@]}" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  CODE=$?
  # read, not $(<...): no subshell per call, and the trailing LF stays part of the comparison
  IFS= read -r -d '' OUT <"$WORK/stdout"
  IFS= read -r -d '' ERR <"$WORK/stderr"
  checks=$((checks + 1))
  case "$expect" in
    ok | dedup)
      local flag=false
      [ "$expect" = dedup ] && flag=true
      [ "$CODE" = 0 ] && [ -z "$ERR" ] && [[ "$OUT" == *$'\n' && "${OUT%$'\n'}" != *$'\n'* && "$OUT" == *"\"deduplicated\":$flag"* ]] ||
        fail "$name: expected exit 0, no stderr, one JSON line with deduplicated $flag"
      ;;
    degraded)
      [ "$CODE" = 0 ] && [[ "$OUT" == *'"degraded":true'* ]] || fail "$name: expected exit 0, degraded"
      ;;
    *)
      [ "$CODE" = 2 ] && [ -z "$OUT" ] && [ "$ERR" = "$PREFIX: $expect"$'\n' ] || fail "$name: expected exit 2 and '$PREFIX: $expect'"
      ;;
  esac
}
# rows_are <file> <expected>: queues a check that the file's rows, as "event/phase:id" (id =
# resource_id or case_id; "<invalid>" for a line that is not JSON), are the expected ones.
# All queued checks run at the end in one Python process (each case has its own files).
rows_are() {
  printf '%s\t%s\t%s\n' "$1" "$2" "$WRITER case $CASE" >>"$WORK/row-checks"
}
check_rows() {
  local result
  result=$(python3 - "$WORK/row-checks" <<'PY'
import json, sys
def rows(path):
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except FileNotFoundError:
        return ""
    out = []
    for line in lines:
        try:
            r = json.loads(line)
        except ValueError:
            out.append("<invalid>")
            continue
        text = r.get("event", "?")
        if r.get("phase") is not None:
            text += "/" + r["phase"]
        ident = r.get("resource_id", r.get("case_id"))
        if ident is not None:
            text += ":" + str(ident)
        out.append(text)
    return " ".join(out)
checked = failed = 0
for entry in open(sys.argv[1], encoding="utf-8").read().splitlines():
    path, want, label = entry.split("\t")
    got = rows(path)
    checked += 1
    if got != want:
        failed += 1
        print(f"FAIL: {label}: rows of {path}\n  expected: {want}\n  got:      {got}", file=sys.stderr)
print(checked, failed)
PY
)
  checks=$((checks + ${result% *}))
  failures=$((failures + ${result#* }))
  : >"$WORK/row-checks"
}
check() { expect_true "$1" "$WRITER case $CASE: $2"; }

# ---- the acceptance cases of §6 ----------------------------------------------------------------
acceptance_cases() {
  fresh c1
  acq vm-1 vm
  local data=${E[5]}
  lc "resource events require phase acquired, released, or cleanup_failed" "${A[@]}" --event resource --data-json "$data"
  lc "resource events require phase acquired, released, or cleanup_failed" "${A[@]}" --event resource --phase superseded --data-json "$data"
  check "[ ! -e '$H' ] && [ ! -e '$S/.cm-run.lock' ] && [ ! -e '$LOG' ]" "nothing created"

  fresh c2
  local id
  for id in '"-vm"' '"vm/1"' '""' "\"$(printf 'r%.0s' $(seq 129))\"" 7; do
    lc "resource events require a valid resource_id" "${A[@]}" --event resource --phase acquired \
      --data-json "{\"resource_id\":$id,\"resource_kind\":\"vm\",\"cleanup_required\":true}"
  done
  lc "resource events require a valid resource_id" "${A[@]}" --event resource --phase released --data-json '{"resource_kind":"vm"}'
  local long="7$(printf 'a%.0s' $(seq 127))"
  acq "$long" vm
  lc ok "${A[@]}" "${E[@]}"
  rows_are "$LOG" "resource/acquired:$long"

  fresh c3
  local kind
  for kind in '"Virtual Machine"' '"9vm"' '""' "\"$(printf 'k%.0s' $(seq 65))\""; do
    lc "resource events require a valid resource_kind" "${A[@]}" --event resource --phase released \
      --data-json "{\"resource_id\":\"vm-1\",\"resource_kind\":$kind}"
  done
  lc "resource events require a valid resource_kind" "${A[@]}" --event resource --phase released --data-json '{"resource_id":"vm-1"}'
  check "[ ! -e '$H' ]" "H absent"

  fresh c4
  local cleanup
  for cleanup in ',"cleanup_required":"true"' ',"cleanup_required":1' ',"cleanup_required":null' ''; do
    lc "resource acquisition requires cleanup_required: true" "${A[@]}" --event resource --phase acquired \
      --data-json "{\"resource_id\":\"vm-1\",\"resource_kind\":\"vm\"$cleanup}"
  done
  check "[ ! -e '$H' ]" "H absent"

  fresh c5
  lc "sensitive log field is forbidden: data.vault_secret_ref" "${A[@]}" --event resource --phase acquired \
    --data-json '{"resource_kind":"vm","cleanup_required":true,"vault_secret_ref":"x"}'
  lc "--data-json cannot override reserved fields: run_id" "${A[@]}" --event resource \
    --data-json '{"resource_id":"vm-1","resource_kind":"vm","run_id":"x"}'
  lc "resource events require a valid resource_id" "${A[@]}" --event resource --phase acquired \
    --data-json '{"resource_kind":"vm","cleanup_required":true}' --at yesterday
  with_flag --specs-dir "$T/missing"
  tr_ case_start "C 1"
  lc "test_run case events require a valid case_id" "${B[@]}" "${E[@]}"

  fresh c6
  tr_ superseded
  lc "test_run events require phase start, case_start, case_complete, case_blocked, or complete" "${A[@]}" "${E[@]}"
  tr_ case_blocked
  lc "test_run case events require a valid case_id" "${A[@]}" "${E[@]}"
  tr_ case_complete "case 7"
  lc "test_run case events require a valid case_id" "${A[@]}" "${E[@]}"
  tr_ start "not checked here"
  lc ok "${A[@]}" "${E[@]}"
  rows_are "$LOG" "test_run/start:not checked here"

  fresh c7
  acq vm-1 vm
  local which names=(0 1)
  [ "$PASS_NAME" = alternate ] || names=("$PASS_NAME")
  for which in "${names[@]}"; do
    writer_for $which
    "${W[@]}" "${A[@]}" "${E[@]}" --detail x --status-only >"$WORK/stdout" 2>"$WORK/stderr"
    CODE=$?
    expect_code 2 "$WRITER case 7"
    check "[ ! -s '$WORK/stdout' ]" "stdout empty"
    check "tail -1 '$WORK/stderr' | grep -q 'error: unrecognized arguments: --status-only\$' && ! head -1 '$WORK/stderr' | grep -q '^cm-log-event:'" "argparse usage text"
    check "[ ! -e '$H' ] && [ ! -e '$S/.cm-run.lock' ] && [ -z \"\$(ls -A '$S')\" ]" "nothing created"
  done

  fresh c8
  lc ok "${A[@]}" --event resource --phase acquired --data-json '{"resource_id":"vm-1","resource_kind":"vm","cleanup_required":true,"pid":4242}'
  lc ok "${A[@]}" --event resource --phase released --data-json '{"resource_id":"vm-1","resource_kind":"vm","cleanup_required":false,"exit_code":0}'
  td
  lc ok "${A[@]}" "${E[@]}"
  rows_are "$LOG" "resource/acquired:vm-1 resource/released:vm-1 task_done"
  check "head -1 '$LOG' | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); assert r[\"pid\"]==4242 and r[\"cleanup_required\"] is True and list(r)[-1]==\"event_id\"'" "row 1 keeps pid, cleanup_required, event_id last"

  fresh c9
  acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  cf vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  cf vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  cp "$S/.cm-run.json" "$T/pointer.before"
  rd
  lc "completion blocked by unclosed resources: vm-1" "${A[@]}" "${E[@]}"
  check "cmp -s '$S/.cm-run.json' '$T/pointer.before' && [ ! -e '$H/index.jsonl' ] && [ \"\$(wc -l <'$H'/runs/*/qa-lc-0001.jsonl)\" = 3 ]" "pointer, index and mirror untouched"
  rel vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  rd; lc ok "${A[@]}" "${E[@]}"
  check "grep -q '\"status\":\"done\"' '$S/.cm-run.json' && [ \"\$(grep -c . '$H/index.jsonl')\" = 1 ] && grep -q '\"status\":\"done\"' '$H/index.jsonl'" "pointer done, index [done]"
  rows_are "$LOG" "resource/acquired:vm-1 resource/cleanup_failed:vm-1 resource/cleanup_failed:vm-1 resource/released:vm-1 run_done"

  fresh c10
  acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  cf vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  acq vm-1 vm; lc "released resource_id cannot be reused; acquire a new resource_id" "${A[@]}" "${E[@]}"
  rows_are "$LOG" "resource/acquired:vm-1 resource/cleanup_failed:vm-1"

  fresh c11
  acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  rel vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  acq vm-1 container; lc "resource_kind does not match its acquisition" "${A[@]}" "${E[@]}"
  acq vm-1 vm; lc "released resource_id cannot be reused; acquire a new resource_id" "${A[@]}" "${E[@]}"

  fresh c12
  rel ghost-1 vm; lc "resource terminal phase has no acquisition" "${A[@]}" "${E[@]}"
  cf ghost-1 vm; lc "resource terminal phase has no acquisition" "${A[@]}" "${E[@]}"
  check "[ ! -e '$LOG' ] && [ ! -e '$S/.cm-run.json' ] && [ ! -e '$H/runs' ] && [ -e '$S/.cm-run.lock' ] && [ -e '$H/.cm-write.lock' ]" "only the lock files"

  fresh c13
  acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  cf vm-1 container; lc "resource_kind does not match its acquisition" "${A[@]}" "${E[@]}"
  acq vm-1 vm; lc "active resource_id already has an acquisition; acquire a new resource_id" "${A[@]}" "${E[@]}"
  rel vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  cf vm-1 vm; lc "released resource cannot fail cleanup" "${A[@]}" "${E[@]}"
  rel vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  td; lc ok "${A[@]}" "${E[@]}"
  rows_are "$LOG" "resource/acquired:vm-1 resource/released:vm-1 resource/released:vm-1 task_done"

  fresh c14
  for id in web-2 Api-1 db-10 db-9; do acq "$id" proc; lc ok "${A[@]}" "${E[@]}"; done
  rel db-9 proc; lc ok "${A[@]}" "${E[@]}"
  dn; lc "completion blocked by unclosed resources: Api-1, db-10, web-2" "${A[@]}" "${E[@]}"
  td; lc "completion blocked by unclosed resources: Api-1, db-10, web-2" "${A[@]}" "${E[@]}"
  check "[ \"\$(wc -l <'$LOG')\" = 5 ]" "rows unchanged (5)"

  fresh c15
  acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  with_flag --run-id qa-lc-0002
  rd; lc ok "${B[@]}" "${E[@]}"
  rel vm-1 vm; lc "resource terminal phase has no acquisition" "${B[@]}" "${E[@]}"
  acq vm-1 vm; lc ok "${B[@]}" "${E[@]}"
  td; lc "completion blocked by unclosed resources: vm-1" "${B[@]}" "${E[@]}"
  with_flag --workflow cm-ops --runtime codex
  rel vm-1 vm; lc ok "${B[@]}" "${E[@]}"
  td; lc ok "${A[@]}" "${E[@]}"
  rows_are "$LOG" "resource/acquired:vm-1 run_done resource/acquired:vm-1 resource/released:vm-1 task_done"
  check "[ \"\$(grep -o '\"run_id\":\"qa-lc-000[12]\"' '$LOG' | cut -c11-20 | tr '\n' ' ')\" = 'qa-lc-0001 qa-lc-0002 qa-lc-0002 qa-lc-0001 qa-lc-0001 ' ]" "runs 0001 0002 0002 0001 0001"

  fresh c16
  with_flag --run-id -
  lc ok "${B[@]}" --event run_start
  local r1
  r1=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["run_id"])' "$OUT")
  acq vm-1 vm; lc ok "${B[@]}" "${E[@]}"
  rd; lc "completion blocked by unclosed resources: vm-1" "${B[@]}" "${E[@]}"
  rel vm-1 vm; lc ok "${B[@]}" "${E[@]}"
  rd; lc ok "${B[@]}" "${E[@]}"
  acq vm-1 vm; lc ok "${B[@]}" "${E[@]}"
  local r2
  r2=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["run_id"])' "$OUT")
  check "[ '$r1' != '$r2' ] && [ \"\$(python3 -c 'import json,sys; print(\" \".join(r[\"run_id\"]+\"=\"+r[\"status\"] for r in map(json.loads, open(sys.argv[1]))))' '$H/index.jsonl')\" = '$r1=running $r1=done $r2=running' ]" "index [R1 running, R1 done, R2 running]"

  fresh c17
  acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  rel vm-1 vm; lc ok "${A[@]}" "${E[@]}" --detail "c17 release"
  printf '%s\n' '{"run_id":"qa-lc-0001","event":"resource"' >>"$LOG"
  lc dedup "${A[@]}" "${E[@]}" --detail "c17 release" --at 2030-01-02T03:04:05+09:00
  lc "resource state cannot be verified: UsageError" "${A[@]}" "${E[@]}"
  td; lc "resource state cannot be verified: UsageError" "${A[@]}" "${E[@]}"
  tr_ start; lc "test_run state cannot be verified: UsageError" "${A[@]}" "${E[@]}"
  lc ok "${A[@]}" --event progress
  rows_are "$LOG" "resource/acquired:vm-1 resource/released:vm-1 <invalid> progress"

  fresh c18
  tr_ start; lc ok "${A[@]}" "${E[@]}"
  tr_ case_start C-1; lc ok "${A[@]}" "${E[@]}" --detail "c18 case start"
  tr_ case_complete C-1; lc ok "${A[@]}" "${E[@]}"
  tr_ complete; lc ok "${A[@]}" "${E[@]}" --detail "c18 complete"
  lc dedup "${A[@]}" "${E[@]}" --detail "c18 complete"
  tr_ case_start C-1; lc dedup "${A[@]}" "${E[@]}" --detail "c18 case start"
  tr_ complete; lc "test_run complete has no active test run" "${A[@]}" "${E[@]}"
  rd; lc ok "${A[@]}" "${E[@]}"
  rows_are "$LOG" "test_run/start test_run/case_start:C-1 test_run/case_complete:C-1 test_run/complete run_done"

  fresh c19
  acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  rel vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  printf '\n' >>"$LOG"
  td; lc "resource state cannot be verified: UsageError" "${A[@]}" "${E[@]}"
  tr_ start; lc "test_run state cannot be verified: UsageError" "${A[@]}" "${E[@]}"
  lc ok "${A[@]}" --event progress

  fresh c20a
  printf '%s\n' '{"run_id":"qa-lc-0999","event":"resource","phase":"acquired","resource_id":"vm-9","resource_kind":"vm"}' '["not","an","object"]' >"$LOG"
  rd; lc ok "${A[@]}" "${E[@]}"
  fresh c20b
  printf '%s\n' '{"run_id":"qa-lc-0001","event":"resource","phase":"acquired","resource_id":"vm-9","resource_kind":"vm"}' '["not","an","object"]' >"$LOG"
  rd; lc "resource state cannot be verified: UsageError" "${A[@]}" "${E[@]}"
  acq vm-1 vm; lc "resource state cannot be verified: UsageError" "${A[@]}" "${E[@]}"
  tr_ start; lc ok "${A[@]}" "${E[@]}"

  # 21 needs a user the mode bits apply to: as root, the case runs as nobody (setpriv).
  fresh c21
  local as_user=()
  if [ "$(id -u)" = 0 ]; then
    if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
      chown -R nobody "$T"
      chmod 755 "$T"
      as_user=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
    else
      as_user=(skip)
    fi
  fi
  if [ "${as_user[0]:-}" != skip ]; then
    RUN_AS=("${as_user[@]}")
    acq vm-1 vm; lc ok "${A[@]}" "${E[@]}" --detail "c21 acquire"
    chmod 0200 "$LOG"
    lc "resource state cannot be verified: PermissionError" "${A[@]}" "${E[@]}" --detail "c21 acquire"
    tr_ start; lc "test_run state cannot be verified: PermissionError" "${A[@]}" "${E[@]}"
    rd; lc "resource state cannot be verified: PermissionError" "${A[@]}" "${E[@]}"
    lc ok "${A[@]}" --event progress
    RUN_AS=()
    chmod 0644 "$LOG"
    rows_are "$LOG" "resource/acquired:vm-1 progress"
  else
    echo "case 21 skipped: running as root without setpriv"
  fi

  fresh c22
  tr_ case_start C-1; lc "test_run case_start has no active test run" "${A[@]}" "${E[@]}"
  tr_ case_complete C-1; lc "test_run case terminal phase has no active test run" "${A[@]}" "${E[@]}"
  tr_ case_blocked C-1; lc "test_run case terminal phase has no active test run" "${A[@]}" "${E[@]}"
  tr_ complete; lc "test_run complete has no active test run" "${A[@]}" "${E[@]}"
  check "[ ! -e '$LOG' ]" "no project log"

  fresh c23
  tr_ start; lc ok "${A[@]}" "${E[@]}"
  tr_ start; lc "test_run start has no preceding complete" "${A[@]}" "${E[@]}"
  tr_ case_start C-1; lc ok "${A[@]}" "${E[@]}"
  tr_ case_start C-1; lc "test_run case already has an active case_start" "${A[@]}" "${E[@]}"
  tr_ case_blocked C-2; lc "test_run case terminal phase has no case_start" "${A[@]}" "${E[@]}"
  tr_ complete; lc "test_run complete has unfinished cases" "${A[@]}" "${E[@]}"
  rows_are "$LOG" "test_run/start test_run/case_start:C-1"

  fresh c24
  tr_ start; lc ok "${A[@]}" "${E[@]}"
  td; lc "completion blocked by incomplete test_run: active invocation" "${A[@]}" "${E[@]}"
  tr_ case_start C-2; lc ok "${A[@]}" "${E[@]}"
  tr_ case_start C-10; lc ok "${A[@]}" "${E[@]}"
  dn; lc "completion blocked by incomplete test_run: active invocation; open cases: C-10, C-2" "${A[@]}" "${E[@]}"
  check "[ \"\$(wc -l <'$LOG')\" = 3 ]" "rows 3"

  fresh c25
  local phase_case
  for phase_case in start case_start:C-1 case_blocked:C-1 case_start:C-1 case_complete:C-1 complete start complete; do
    tr_ ${phase_case/:/ }; lc ok "${A[@]}" "${E[@]}"
  done
  rd; lc ok "${A[@]}" "${E[@]}"
  check "[ \"\$(wc -l <'$LOG')\" = 9 ]" "rows 9"

  fresh c26
  acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  tr_ start; lc ok "${A[@]}" "${E[@]}"
  td; lc "completion blocked by unclosed resources: vm-1" "${A[@]}" "${E[@]}"
  tr_ complete; lc ok "${A[@]}" "${E[@]}"
  rel vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  td; lc ok "${A[@]}" "${E[@]}"

  fresh c27
  lc ok "${A[@]}" --event test_run --data-json '{"suite":"smoke","case_id":"bad id!"}'
  td; lc ok "${A[@]}" "${E[@]}"
  tr_ start; lc ok "${A[@]}" "${E[@]}"
  lc ok "${A[@]}" --event test_run --data-json '{"suite":"smoke"}'
  td; lc "completion blocked by incomplete test_run: active invocation" "${A[@]}" "${E[@]}"
  rows_are "$LOG" "test_run:bad id! task_done test_run/start test_run"

  fresh c28a
  printf '%s\n' '{"run_id":"qa-lc-0001","event":"test_run","phase":"complete"}' '{"run_id":"qa-lc-0001","event":"test_run","phase":"complete"}' \
    '{"run_id":"qa-lc-0001","event":"test_run","phase":null,"case_id":7}' >"$LOG"
  rd; lc ok "${A[@]}" "${E[@]}"
  fresh c28b
  printf '%s\n' '{"run_id":"qa-lc-0001","event":"test_run","phase":"superseded"}' >"$LOG"
  rd; lc "test_run state cannot be verified: UsageError" "${A[@]}" "${E[@]}"
  acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  fresh c28c
  printf '%s\n' '{"run_id":"qa-lc-0001","event":"test_run","phase":"case_complete","case_id":"C-1"}' >"$LOG"
  tr_ start; lc "test_run state cannot be verified: UsageError" "${A[@]}" "${E[@]}"

  fresh c29
  with_flag --specs-dir - --run-id qa-glob-0001
  lc ok "${B[@]}" --event run_start
  acq tmp-1 tempdir; lc ok "${B[@]}" "${E[@]}"
  rd; lc "completion blocked by unclosed resources: tmp-1" "${B[@]}" "${E[@]}"
  cp "$H"/runs/*/qa-glob-0001.jsonl "$T/run-file-while-held"
  rows_are "$T/run-file-while-held" "run_start resource/acquired:tmp-1"
  check "[ \"\$(grep -c '\"status\":\"running\"' '$H/index.jsonl')\" = 1 ] && [ \"\$(wc -l <'$H/index.jsonl')\" = 1 ]" "index [running]"
  rel tmp-1 tempdir; lc ok "${B[@]}" "${E[@]}"
  rd; lc ok "${B[@]}" "${E[@]}"
  check "[ \"\$(grep -o '\"status\":\"[a-z]*\"' '$H/index.jsonl' | tr '\n' ' ')\" = '\"status\":\"running\" \"status\":\"done\" ' ] && [ ! -e '$LOG' ]" "index [running, done], no project log"

  fresh c30
  with_flag --specs-dir - --run-id -
  acq tmp-1 tempdir; lc ok "${B[@]}" "${E[@]}"
  rel tmp-1 tempdir; lc "resource terminal phase has no acquisition" "${B[@]}" "${E[@]}"
  td; lc ok "${B[@]}" "${E[@]}"
  check "[ \"\$(find '$H/runs' -name '*.jsonl' | wc -l)\" = 2 ]" "exactly two run files"

  fresh c31
  with_flag --specs-dir - --run-id qa-glob-0002
  tr_ start; lc ok "${B[@]}" "${E[@]}" --at 2026-07-31T23:59:00-07:00
  td; lc "completion blocked by incomplete test_run: active invocation" "${B[@]}" "${E[@]}" --at 2026-08-01T00:05:00-07:00
  tr_ complete; lc ok "${B[@]}" "${E[@]}" --at 2026-08-01T00:06:00-07:00
  td; lc ok "${B[@]}" "${E[@]}" --at 2026-08-01T00:07:00-07:00
  rows_are "$H/runs/2026-07/qa-glob-0002.jsonl" "test_run/start test_run/complete task_done"
  check "[ ! -e '$H/runs/2026-08' ]" "no 2026-08"

  fresh c32
  acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  rm "$LOG"
  rd; lc ok "${A[@]}" "${E[@]}"
  rows_are "$LOG" "run_done"
  rows_are "$(echo "$H"/runs/*/qa-lc-0001.jsonl)" "resource/acquired:vm-1 run_done"

  fresh c33
  : >"$H"
  acq vm-1 vm; lc degraded "${A[@]}" "${E[@]}"
  td; lc "completion blocked by unclosed resources: vm-1" "${A[@]}" "${E[@]}"
  rows_are "$LOG" "resource/acquired:vm-1 degrade/global_log"

  fresh c34
  acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  with_flag --run-id -
  rd; lc "completion blocked by unclosed resources: vm-1" "${B[@]}" "${E[@]}"
  rel vm-1 vm; lc ok "${A[@]}" "${E[@]}"
  rd; lc ok "${B[@]}" "${E[@]}"
  rows_are "$LOG" "resource/acquired:vm-1 resource/released:vm-1 run_done"

  fresh c35
  local i
  acq lock-1 port
  for i in 1 2 3 4 5 6; do
    pick_writer "$i"
    "${W[@]}" "${A[@]}" "${E[@]}" --detail "c35 acquire $i" >"$T/acq.$i.out" 2>"$T/acq.$i.err" &
  done
  wait
  check "[ \"\$(cat '$T'/acq.*.out | grep -c '\"deduplicated\":false')\" = 1 ] && [ \"\$(cat '$T'/acq.*.err | sed 's/^strata usage log: /cm-log-event: /' | grep -cx 'cm-log-event: active resource_id already has an acquisition; acquire a new resource_id')\" = 5 ]" "one acquisition wins, five refused"
  cp "$LOG" "$T/after-acquisitions"
  rows_are "$T/after-acquisitions" "resource/acquired:lock-1"
  rel lock-1 port
  for i in 1 2 3 4 5 6; do
    pick_writer "$i"
    "${W[@]}" "${A[@]}" "${E[@]}" --detail "c35 release" >"$T/rel.$i.out" 2>"$T/rel.$i.err" &
  done
  wait
  check "[ \"\$(cat '$T'/rel.*.out | grep -c '\"deduplicated\":false')\" = 1 ] && [ \"\$(cat '$T'/rel.*.out | grep -c '\"deduplicated\":true')\" = 5 ] && [ -z \"\$(cat '$T'/rel.*.err)\" ]" "six identical releases: one writes, five deduplicated"
  rows_are "$LOG" "resource/acquired:lock-1 resource/released:lock-1"
}

if [ "$NAMES" = each ]; then
  for PASS_NAME in 0 1; do acceptance_cases; done
  PASS_NAME=alternate
else
  acceptance_cases
fi

# ---- bad input on each new path: exit 2, a clear message, every file byte-identical ----------
# Validation refusals (before any lock) and state refusals (under the locks) against a run that
# holds a resource, an active test run and an open case.
fresh bad-input
step=0
acq vm-1 vm; lc ok "${A[@]}" "${E[@]}"
tr_ start; lc ok "${A[@]}" "${E[@]}"
tr_ case_start C-1; lc ok "${A[@]}" "${E[@]}"
cp -a "$T" "$T.before"
bad() {  # bad <message> <event flags...>
  local message=$1
  shift
  lc "$message" "${A[@]}" "$@"
}
R=(--event resource)
bad "resource events require phase acquired, released, or cleanup_failed" "${R[@]}" --data-json '{"resource_id":"vm-2","resource_kind":"vm"}'
bad "resource events require phase acquired, released, or cleanup_failed" "${R[@]}" --phase freed --data-json '{"resource_id":"vm-2","resource_kind":"vm"}'
for data in '{"resource_kind":"vm","cleanup_required":true}' '{"resource_id":"vm 2","resource_kind":"vm","cleanup_required":true}' \
  '{"resource_id":["vm-2"],"resource_kind":"vm","cleanup_required":true}' '{"resource_id":"_vm","resource_kind":"vm","cleanup_required":true}'; do
  bad "resource events require a valid resource_id" "${R[@]}" --phase acquired --data-json "$data"
done
for data in '{"resource_id":"vm-2","cleanup_required":true}' '{"resource_id":"vm-2","resource_kind":"v m","cleanup_required":true}' \
  '{"resource_id":"vm-2","resource_kind":7,"cleanup_required":true}'; do
  bad "resource events require a valid resource_kind" "${R[@]}" --phase acquired --data-json "$data"
done
bad "resource acquisition requires cleanup_required: true" "${R[@]}" --phase acquired --data-json '{"resource_id":"vm-2","resource_kind":"vm","cleanup_required":"yes"}'
bad "test_run events require phase start, case_start, case_complete, case_blocked, or complete" --event test_run --phase finish
for data in '{}' '{"case_id":5}' '{"case_id":"C 2"}'; do
  bad "test_run case events require a valid case_id" --event test_run --phase case_start --data-json "$data"
done
acq vm-1 vm; bad "active resource_id already has an acquisition; acquire a new resource_id" "${E[@]}"
rel vm-9 vm; bad "resource terminal phase has no acquisition" "${E[@]}"
cf vm-1 container; bad "resource_kind does not match its acquisition" "${E[@]}"
tr_ start; bad "test_run start has no preceding complete" "${E[@]}"
tr_ case_start C-1; bad "test_run case already has an active case_start" "${E[@]}"
tr_ case_complete C-2; bad "test_run case terminal phase has no case_start" "${E[@]}"
tr_ complete; bad "test_run complete has unfinished cases" "${E[@]}"
for completion in td rd dn; do $completion; bad "completion blocked by unclosed resources: vm-1" "${E[@]}"; done
checks=$((checks + 1))
diff -r "$T.before" "$T" >"$WORK/diff" 2>&1 || { failures=$((failures + 1)); echo "FAIL: bad input changed files:" >&2; head -20 "$WORK/diff" >&2; }

# ---- eight concurrent writers: never two acquisitions of one id, never a completion past an ---
# open resource. Each writer (four per name) acquires a private id, races for a shared one (a
# different event per writer: one wins, the others are refused as active or, if the winner
# already released it, as released), tries task_done, then releases its
# id and the shared one (the same release event for all: one appends, the others are
# deduplicated). The log is then replayed independently.
fresh concurrent
for i in 1 2 3 4 5 6 7 8; do
  (
    writer_for $((i % 2))
    acq "own-$i" proc; "${W[@]}" "${A[@]}" "${E[@]}" --detail "own $i"
    acq shared-1 port; "${W[@]}" "${A[@]}" "${E[@]}" --detail "shared-1 by $i"
    td; "${W[@]}" "${A[@]}" "${E[@]}" --detail "task $i"
    rel "own-$i" proc; "${W[@]}" "${A[@]}" "${E[@]}" --detail "release own $i"
    rel shared-1 port; "${W[@]}" "${A[@]}" "${E[@]}" --detail "release shared-1"
  ) >"$T/writer.$i.out" 2>"$T/writer.$i.err" &
done
wait
rd
lc ok "${A[@]}" "${E[@]}"
checks=$((checks + 1))
python3 - "$LOG" "$T" <<'PY' || failures=$((failures + 1))
import glob, json, sys
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
state, acquisitions, problems = {}, {}, []
for n, r in enumerate(rows, 1):
    if r["event"] == "resource":
        rid, phase = r["resource_id"], r["phase"]
        if phase == "acquired":
            acquisitions[rid] = acquisitions.get(rid, 0) + 1
            if rid in state:
                problems.append(f"row {n}: second acquisition of {rid}")
        elif state.get(rid) is None:
            problems.append(f"row {n}: {phase} of {rid} without an acquisition")
        state[rid] = phase
    elif r["event"] in ("task_done", "done", "run_done"):
        held = sorted(k for k, v in state.items() if v != "released")
        if held:
            problems.append(f"row {n}: {r['event']} while {held} are held")
expected = {f"own-{i}" for i in range(1, 9)} | {"shared-1"}
if set(acquisitions) != expected or any(v != 1 for v in acquisitions.values()):
    problems.append(f"acquisitions {acquisitions}")
if rows[-1]["event"] != "run_done" or any(v != "released" for v in state.values()):
    problems.append("the run does not end released and done")
allowed = {"active resource_id already has an acquisition; acquire a new resource_id",
           "released resource_id cannot be reused; acquire a new resource_id",  # came after the winner's release
           "completion blocked by unclosed resources"}
for path in glob.glob(sys.argv[2] + "/writer.*.err"):
    for line in open(path, encoding="utf-8"):
        message = line.split(": ", 1)[1].strip() if ": " in line else line
        if not any(message.startswith(a) for a in allowed):
            problems.append(f"{path}: {line.strip()}")
outputs = "".join(open(p, encoding="utf-8").read() for p in glob.glob(sys.argv[2] + "/writer.*.out"))
if outputs.count('"deduplicated":false') != len([r for r in rows if r["event"] != "run_done"]):
    problems.append("written rows and deduplicated:false answers differ")
for p in problems:
    print("FAIL: concurrent writers:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY

check_rows
finish
