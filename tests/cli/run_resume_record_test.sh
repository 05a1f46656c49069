#!/usr/bin/env bash
# A resume answered from <ledger>.verified (docs/DECISIONS.md, "Verified-ledger record"): a run
# whose every planned execution is recorded, on a ledger unchanged since Strata verified it,
# reads none of the ledger's observations. What must hold:
#   - such a resume says so ("ledgerRead": "verified-record"), runs nothing, changes nothing, and
#     its summary (run totals included) is the one a full read gives;
#   - a record that is edited (here: it claims a run the ledger does not hold) or belongs to
#     another file is never trusted: the ledger is read in full and the run executes;
#   - a partly recorded run, a run under another plan, and a ledger changed behind Strata's back
#     are read in full, with today's outcomes and messages.
# Usage: run_resume_record_test.sh <strata binary> <example provider binary>
STRATA=$(realpath "$1")
PROVIDER=$(realpath "$2")
. "$(dirname "$0")/lib.sh"

make_example_study "$PROVIDER" a b c d

# json_run <plan suffix> <ledger> [more run args]: `strata run --json`; $WORK/summary.json holds
# the summary.
json_run() {
  local plan=$1 ledger=$2
  shift 2
  run run "$WORK/plan-$plan.json" "$WORK/suite.json" --providers "$WORK/providers.json" \
    --repositories "$WORK/repos.json" --ledger "$ledger" --jobs "${JOBS:-4}" --json "$@"
  python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["summary"], open(sys.argv[2], "w"), sort_keys=True)' \
    "$WORK/stdout" "$WORK/summary.json" 2>/dev/null || echo '{}' >"$WORK/summary.json"
}
# summary_is <member> <JSON value>: the last summary's member.
summary_is() {
  python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get(sys.argv[2]) != json.loads(sys.argv[3]))' \
    "$WORK/summary.json" "$1" "$2"
}
# without_read <summary file>: the summary without ledgerRead, for comparing two summaries.
without_read() {
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s.pop("ledgerRead", None); print(json.dumps(s, sort_keys=True))' "$1"
}

L=$WORK/ledger.json
study_run a "$L"; expect_code 0 "run a"
study_run b "$L"; expect_code 0 "run b (an append, which records the ledger)"
expect_true "[ -s '$L.verified' ]" "the record exists"
cp -p "$L" "$WORK/two-runs.json"; cp -p "$L.verified" "$WORK/two-runs.verified"

# --- a resume with everything recorded --------------------------------------------------
json_run a "$L" --max-tokens 100000000; expect_code 0 "resume of run a"
expect_true "summary_is ledgerRead '\"verified-record\"'" "the resume is answered from the record"
expect_true "summary_is executed 0 && summary_is skipped 16" "nothing runs, all 16 skipped"
cp "$WORK/summary.json" "$WORK/from-record.json"
expect_true "cmp -s '$L' '$WORK/two-runs.json'" "the ledger is unchanged"
expect_true "cmp -s '$L.verified' '$WORK/two-runs.verified'" "the record is unchanged"
expect_true "[ ! -s '$L.journal' ]" "the journal stays empty"

# The same resume with the record gone reads the ledger: the same summary, run totals included.
rm "$L.verified"
json_run a "$L" --max-tokens 100000000; expect_code 0 "resume of run a without the record"
expect_true "summary_is ledgerRead '\"full\"'" "without the record the ledger is read"
expect_true "[ \"\$(without_read '$WORK/summary.json')\" = \"\$(without_read '$WORK/from-record.json')\" ]" \
  "the record gives the summary the full read gives (run totals included)"
expect_true "python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))[\"budget\"][\"runTotalTokens\"] <= 0)' '$WORK/summary.json'" \
  "the run total is the tokens the run's observations report"
expect_true "[ -s '$L.verified' ]" "the full read records the ledger again"
study_run a "$L"; expect_code 0 "resume of run a again"
json_run a "$L"; expect_true "summary_is ledgerRead '\"verified-record\"'" "the rewritten record answers the next resume"

# --- a record that lies is not trusted --------------------------------------------------
# The record claims run c (same tasks as run b, so the same execution keys) is recorded.
python3 - "$L.verified" <<'PY'
import json, sys
path = sys.argv[1]
record = json.load(open(path))
record["runs"]["append-c"] = record["runs"]["append-b"]
open(path, "w").write(json.dumps(record, indent=2) + "\n")
PY
json_run c "$L"; expect_code 0 "run c with an edited record"
expect_true "summary_is ledgerRead '\"full\"'" "the edited record is not used"
expect_true "summary_is executed 16" "run c executes its plan"
expect_true "[ \"\$(ledger_counts '$L')\" = 'append-a=16 append-b=16 append-c=16 max-repeat=1' ]" "run c is in the ledger once"

# A record copied from another ledger describes another file.
cp "$WORK/two-runs.json" "$WORK/other.json"
cp "$L.verified" "$WORK/other.json.verified"
json_run c "$WORK/other.json"; expect_code 0 "run c on a ledger with another ledger's record"
expect_true "summary_is ledgerRead '\"full\"' && summary_is executed 16" "another file's record is not used"

# --- partly recorded: the full read, and the rest runs -----------------------------------
# An execution's worst case is 2 attempts x 400,000 tokens; one at a time, a limit of 802,000
# admits the next only while the executions before it reported at most 2,000 tokens in all.
JOBS=1 json_run d "$L" --max-tokens 802000; expect_code 4 "run d stops at its budget"
partial=$(python3 -c 'import json,sys; print(sum(o["runId"] == "append-d" for o in json.load(open(sys.argv[1]))["observations"]))' "$L")
expect_true "[ $partial -gt 0 ] && [ $partial -lt 16 ]" "run d is partly recorded ($partial of 16)"
json_run d "$L"; expect_code 0 "run d resumed"
expect_true "summary_is ledgerRead '\"full\"'" "a partly recorded run reads the ledger"
expect_true "summary_is executed $((16 - partial)) && summary_is skipped $partial" "the rest of run d runs ($partial were recorded)"
json_run d "$L"; expect_true "summary_is ledgerRead '\"verified-record\"' && summary_is executed 0" "then run d is answered from the record"

# --- the same run id under another plan: the full read's refusal ---------------------------
python3 - "$WORK/plan-a.payload.json" "$WORK/plan-a2.payload.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
plan["planVersion"] = "example-v2"
json.dump(plan, open(sys.argv[2], "w"))
PY
"$STRATA" seal run-plan "$WORK/plan-a2.payload.json" -o "$WORK/plan-a2.json" >/dev/null
cp -p "$L" "$WORK/before-a2.json"
json_run a2 "$L"; expect_code 2 "run a under another plan"
expect_err_has "Ledger already contains run append-a with a different plan hash." "the plan-hash guard holds with a record"
expect_true "cmp -s '$L' '$WORK/before-a2.json'" "nothing written"

# --- a ledger changed behind Strata's back (same size, modification time restored) --------
cp -p "$L" "$WORK/good.json"
tamper_in_place "$L" '"append-b"' '"append-x"'
json_run a "$L"; expect_code 2 "resume of run a on a tampered ledger"
expect_err_has "content hash" "the tampered ledger is read in full and refused"

finish
