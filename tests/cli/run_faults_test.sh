#!/usr/bin/env bash
# Storage and descriptor faults in `strata run` (issue "Reliability"): with a file-size limit
# (ulimit -f) a write fails with EFBIG; with the test hook STRATA_TEST_FAIL_FSYNC an fsync fails
# with EIO. Whether the journal, the full fold or the in-place append
# fails, the run stops with a clear error naming the file, keeps every observation that was
# durable, leaves no temporary file, and the next run without the limit resumes and records
# each execution exactly once. With a small open-file limit (ulimit -n 64) and --jobs 100, the run
# lowers --jobs to what fits, says so, and completes: running out of descriptors must never be
# recorded as a provider outcome ("unavailable"). When descriptors the budget cannot know about
# (inherited from the caller) use up the limit anyway, the run stops with exit 2 and the advice,
# records nothing as unavailable, and the next run with enough descriptors completes.
# Usage: run_faults_test.sh <strata binary> <example provider binary>
REAL_STRATA=$(realpath "$1")
STRATA=$REAL_STRATA
PROVIDER=$(realpath "$2")
. "$(dirname "$0")/lib.sh"

make_example_study "$PROVIDER" a b c
# `strata` under a file-size limit of $LIMIT_KB KiB.
cat >"$WORK/limited-strata" <<SH
#!/usr/bin/env bash
ulimit -f "\$LIMIT_KB"
exec "$REAL_STRATA" "\$@"
SH
chmod +x "$WORK/limited-strata"
limited_run() {  # limited_run <KiB> <plan> <ledger>
  STRATA=$WORK/limited-strata LIMIT_KB=$1 study_run "$2" "$3"
}
no_temp_files() { ! ls "$WORK"/*.tmp-* >/dev/null 2>&1; }
# kept_after_fault <ledger>, after `run verify --text <ledger>`: what completed before a fault and
# was kept, in the journal or in the ledger (when the fold at the stop still succeeded; a journal
# batch that failed counts for nothing).
kept_after_fault() {
  local in_journal in_ledger
  in_journal=$(sed -n 's/^  journal: \([0-9]*\) verified.*/\1/p' "$WORK/stdout")
  in_ledger=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["observations"]))' "$1")
  echo $(( ${in_journal:-0} + in_ledger ))
}

# --- the fold fails: the journal (about 33 KiB) fits, the folded ledger does not ---------------
L=$WORK/fold.json
limited_run 40 a "$L"
expect_code 2 "fold fault: exit code"
expect_err_has "$L: cannot write: File too large" "fold fault: the error names the ledger"
expect_true no_temp_files "fold fault: no temporary file is left"
run verify --text "$L"; expect_code 0 "fold fault: the ledger still verifies"
expect_out_has "journal: 16 verified observation(s) not yet folded" "fold fault: every completion is kept"
study_run a "$L"; expect_code 0 "fold fault: resume"
expect_out_has "Executed: 0" "fold fault: resume runs nothing again"
run verify --text "$L"; expect_code 0 "fold fault: verifies after the resume"
expect_true "[ \"\$(ledger_counts '$L')\" = 'append-a=16 max-repeat=1' ]" "fold fault: each execution once"

# --- the journal fails mid-run ---------------------------------------------------------------
L=$WORK/journal.json
limited_run 12 a "$L"
expect_code 2 "journal fault: exit code"
expect_err_has "$L.journal: cannot append to the journal: File too large" "journal fault: the error names the journal"
expect_true no_temp_files "journal fault: no temporary file is left"
run verify --text "$L"; expect_code 0 "journal fault: the ledger still verifies"
kept=$(kept_after_fault "$L")
expect_true "[ '$kept' -gt 0 ] && [ '$kept' -lt 16 ]" "journal fault: the completions before the fault are kept"
study_run a "$L"; expect_code 0 "journal fault: resume"
expect_out_has "Executed: $((16 - ${kept:-0}))" "journal fault: resume runs only what was not recorded"
run verify --text "$L"; expect_code 0 "journal fault: verifies after the resume"
expect_true "[ \"\$(ledger_counts '$L')\" = 'append-a=16 max-repeat=1' ]" "journal fault: each execution once"

# --- the in-place append fails: run b's block does not fit after run a's -----------------------
L=$WORK/append.json
study_run a "$L"; expect_code 0 "append fault: run a"
study_run b "$L"; expect_code 0 "append fault: run b (a first append, writes the record)"
cp "$L" "$WORK/before.json"
size_kb=$(( $(stat -c %s "$L") / 1024 + 4 ))
limited_run "$size_kb" c "$L"
expect_code 2 "append fault: exit code"
expect_err_has "$L: cannot write the ledger: File too large" "append fault: the error names the ledger"
expect_true "[ -e '$L.append-undo' ]" "append fault: the undo record stays for the next run"
run verify --text "$L"; expect_code 0 "append fault: readers see the old ledger"
expect_out_has "journal: 16 verified observation(s) not yet folded" "append fault: run c's completions are kept"
study_run c "$L"; expect_code 0 "append fault: resume"
expect_err_has "undid an append cut short" "append fault: the append is undone"
expect_out_has "Executed: 0" "append fault: resume runs nothing again"
run verify --text "$L"; expect_code 0 "append fault: verifies after the resume"
expect_true "[ \"\$(ledger_counts '$L')\" = 'append-a=16 append-b=16 append-c=16 max-repeat=1' ]" "append fault: each execution once"
expect_true no_temp_files "append fault: no temporary file is left"

# --- an fsync fails (STRATA_TEST_FAIL_FSYNC=<what>[:<n>]: EIO, as from a failing disk) ---------------
# The journal's third batch: the run stops, what the first two made durable is kept.
L=$WORK/fsync-journal.json
STRATA_TEST_FAIL_FSYNC=journal:3 study_run a "$L"
expect_code 2 "journal fsync fault: exit code"
expect_err_has "$L.journal: cannot fsync the journal: Input/output error" "journal fsync fault: the error names the journal"
run verify --text "$L"; expect_code 0 "journal fsync fault: the ledger still verifies"
kept=$(kept_after_fault "$L")
expect_true "[ '$kept' -gt 0 ] && [ '$kept' -lt 16 ]" "journal fsync fault: the completions made durable before it are kept"
study_run a "$L"; expect_code 0 "journal fsync fault: resume"
expect_out_has "Executed: $((16 - kept))" "journal fsync fault: resume runs only what was not recorded"
run verify --text "$L"; expect_code 0 "journal fsync fault: verifies after the resume"
expect_true "[ \"\$(ledger_counts '$L')\" = 'append-a=16 max-repeat=1' ]" "journal fsync fault: each execution once"

# The record of the run's inputs (<ledger>.inputs, written before anything is launched; the
# first rewrite creates the empty ledger, the second is this record): the run stops, naming it,
# and nothing was launched.
L=$WORK/fsync-inputs.json
STRATA_TEST_FAIL_FSYNC=rewrite:2 study_run a "$L"
expect_code 2 "inputs record fsync fault: exit code"
expect_err_has "$L.inputs: cannot fsync: Input/output error" "inputs record fsync fault: the error names the record"
expect_true "[ ! -s '$L.journal' ] && [ ! -e '$L.inputs' ]" "inputs record fsync fault: nothing launched, no record left"
expect_true no_temp_files "inputs record fsync fault: no temporary file is left"
study_run a "$L"; expect_code 0 "inputs record fsync fault: the next run goes on"
expect_out_has "Executed: 16" "inputs record fsync fault: the next run executes everything"

# The fold's rewrite (the first rewrite creates the empty ledger, the second records the run's
# inputs, the third is the fold).
L=$WORK/fsync-fold.json
STRATA_TEST_FAIL_FSYNC=rewrite:3 study_run a "$L"
expect_code 2 "fold fsync fault: exit code"
expect_err_has "$L: cannot fsync: Input/output error" "fold fsync fault: the error names the ledger"
expect_true no_temp_files "fold fsync fault: no temporary file is left"
run verify --text "$L"; expect_code 0 "fold fsync fault: the ledger still verifies"
expect_out_has "journal: 16 verified observation(s) not yet folded" "fold fsync fault: every completion is kept"
study_run a "$L"; expect_code 0 "fold fsync fault: resume"
expect_out_has "Executed: 0" "fold fsync fault: resume runs nothing again"
expect_true "[ \"\$(ledger_counts '$L')\" = 'append-a=16 max-repeat=1' ]" "fold fsync fault: each execution once"

# The in-place append of a fresh run on a verified ledger.
L=$WORK/fsync-append.json
study_run a "$L"; expect_code 0 "append fsync fault: run a"
study_run b "$L"; expect_code 0 "append fsync fault: run b (a first append, writes the record)"
STRATA_TEST_FAIL_FSYNC=append study_run c "$L"
expect_code 2 "append fsync fault: exit code"
expect_err_has "$L: cannot fsync the ledger: Input/output error" "append fsync fault: the error names the ledger"
expect_true "[ -e '$L.append-undo' ]" "append fsync fault: the undo record stays for the next run"
run verify --text "$L"; expect_code 0 "append fsync fault: readers see the old ledger"
expect_out_has "journal: 16 verified observation(s) not yet folded" "append fsync fault: run c's completions are kept"
study_run c "$L"; expect_code 0 "append fsync fault: resume"
expect_err_has "undid an append cut short" "append fsync fault: the append is undone"
expect_out_has "Executed: 0" "append fsync fault: resume runs nothing again"
run verify --text "$L"; expect_code 0 "append fsync fault: verifies after the resume"
expect_true "[ \"\$(ledger_counts '$L')\" = 'append-a=16 append-b=16 append-c=16 max-repeat=1' ]" "append fsync fault: each execution once"

# --- too few file descriptors for --jobs 100 --------------------------------------------------------
few_descriptors_strata "$REAL_STRATA" "$WORK/fd-limited-strata"
L=$WORK/fds.json
STRATA=$WORK/fd-limited-strata JOBS=100 study_run a "$L"
expect_code 0 "ulimit -n 64, --jobs 100: the run completes"
expect_err_has "strata: --jobs 100 lowered to 5: the open-file limit (ulimit -n) is 64" "ulimit -n 64: the run says it runs fewer at once"
expect_true "! grep -q '\"unavailable\"' '$L'" "ulimit -n 64: no execution recorded as unavailable"
run verify --text "$L"; expect_code 0 "ulimit -n 64: the ledger verifies"
expect_true "[ \"\$(ledger_counts '$L')\" = 'append-a=16 max-repeat=1' ]" "ulimit -n 64: each execution once"

# --- descriptors run out anyway (40 inherited from the caller) ----------------------------------
L=$WORK/fds-exhausted.json
STRATA=$WORK/fd-limited-strata INHERITED=40 JOBS=5 study_run a "$L"
expect_code 2 "descriptors exhausted: the run stops"
expect_err_has "strata: cannot start a provider: Too many open files; lower --jobs or raise the open-file limit (ulimit -n)" \
  "descriptors exhausted: the error says what to do"
expect_true "! grep -q '\"unavailable\"' '$L' '$L.journal'" "descriptors exhausted: no execution recorded as unavailable"
run verify --text "$L"; expect_code 0 "descriptors exhausted: the ledger verifies"
study_run a "$L"
expect_code 0 "descriptors exhausted: the next run with enough descriptors completes"
expect_true "[ \"\$(ledger_counts '$L')\" = 'append-a=16 max-repeat=1' ]" "descriptors exhausted, then resumed: each execution once"

finish
