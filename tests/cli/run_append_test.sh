#!/usr/bin/env bash
# The in-place append of a fresh run's block and the verified-ledger record
# (docs/DECISIONS.md, "In-place append" and "Verified-ledger record"):
#   - runs that follow each other on one ledger append their blocks; the ledger verifies;
#   - a ledger changed behind strata's back (same size, mtime restored) is verified in full
#     again and refused, not trusted because of the record;
#   - a crash at each step of the append (undo record written, half the bytes written, all
#     written) loses nothing: readers see the old ledger plus the journal, and the next run
#     undoes the append, folds the journal and records each execution exactly once.
# Usage: run_append_test.sh <strata binary> <example provider binary>
STRATA=$(realpath "$1")
PROVIDER=$(realpath "$2")
. "$(dirname "$0")/lib.sh"

make_example_study "$PROVIDER" a b c d e-undo e-torn e-written

L=$WORK/ledger.json
# --- appending runs ----------------------------------------------------------------------
study_run a "$L"; expect_code 0 "run a"
study_run b "$L"; expect_code 0 "run b"
expect_true "[ -s '$L.verified' ]" "run b (an append) records what it verified"
study_run c "$L"; expect_code 0 "run c (from the verified record)"
expect_out_has "Executed: 16" "run c executes its plan"
run verify --text "$L"; expect_code 0 "ledger after three runs verifies"
expect_true "[ \"\$(ledger_counts '$L')\" = 'append-a=16 append-b=16 append-c=16 max-repeat=1' ]" "three blocks, each execution once"
study_run c "$L"; expect_code 0 "run c again"
expect_out_has "Skipped: 16" "run c again skips everything"

# --- a ledger changed behind strata's back ------------------------------------------------
cp -p "$L" "$WORK/good.json"; cp -p "$L.verified" "$WORK/good.verified"
# Same length, modification time restored: only a full verification can notice.
tamper_in_place "$L" '"append-b"' '"append-x"'
cp -p "$L" "$WORK/tampered.json"
study_run d "$L"; expect_code 2 "run d on a tampered ledger"
expect_err_has "content hash" "run d names the hash failure"
expect_true "cmp -s '$L' '$WORK/tampered.json'" "the tampered ledger is left as it was"
expect_true "[ ! -s '$L.journal' ]" "nothing was run on the tampered ledger"

# --- crashes inside the append --------------------------------------------------------------
for point in undo torn written; do
  C=$WORK/crash-$point.json
  cp "$WORK/good.json" "$C"
  study_run d "$C"; expect_code 0 "crash-$point: run d (a fresh record)"
  STRATA_TEST_CRASH_AT=append-$([ $point = undo ] && echo undo-written || echo $point) study_run "e-$point" "$C"
  expect_code 137 "crash-$point: run e killed inside the append"
  expect_true "[ -e '$C.append-undo' ]" "crash-$point: the undo record is left"
  if [ $point = torn ]; then
    expect_true "! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$C' 2>/dev/null" "crash-torn: the file itself is torn"
  fi
  run verify --text "$C"; expect_code 0 "crash-$point: readers see the old ledger"
  expect_out_has "journal: 16 verified observation(s) not yet folded" "crash-$point: the block is in the journal"
  run ledger --json "$C"; expect_code 0 "crash-$point: strata ledger reads it"
  study_run "e-$point" "$C"; expect_code 0 "crash-$point: run e again"
  expect_err_has "undid an append cut short" "crash-$point: the append is undone"
  expect_out_has "Executed: 0" "crash-$point: nothing runs twice"
  expect_true "[ ! -e '$C.append-undo' ]" "crash-$point: the undo record is gone"
  run verify --text "$C"; expect_code 0 "crash-$point: the ledger verifies"
  expect_true "! grep -q journal '$WORK/stdout'" "crash-$point: the journal is folded"
  expect_true "[ \"\$(ledger_counts '$C')\" = 'append-a=16 append-b=16 append-c=16 append-d=16 append-e-$point=16 max-repeat=1' ]" \
    "crash-$point: every execution exactly once"
done

finish
