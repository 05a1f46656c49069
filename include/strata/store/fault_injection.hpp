#pragma once
// A test hook of the storage layer (docs/RELIABILITY.md, "Storage faults"): with
// STRATA_TEST_FAIL_FSYNC=<what>[:<n>] the n-th (default: first) fsync of <what> fails with
// EIO, as it would on a failing disk, so the tests can prove that such a failure stops the run
// cleanly and loses nothing. <what> is "journal" (a journal batch), "rewrite" (a file written
// whole and renamed into place) or "append" (the ledger's in-place append). Unset, it is fsync.
namespace strata::store {

// fsync (data_only: fdatasync) of `fd`, unless the hook makes this one fail.
int checked_fsync(int fd, bool data_only, const char* what);

// A second test hook: with STRATA_TEST_STOP_AT=<step>, the process stops itself (SIGSTOP) when
// it reaches <step>, so that a test sees it there and kills it at exactly that step (the end of
// an adjudication: tests/cli/adjudicate_rerun_test.sh). Unset: nothing.
void test_stop_point(const char* step);

}  // namespace strata::store
