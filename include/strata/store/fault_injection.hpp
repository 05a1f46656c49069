#pragma once
// A test hook of the storage layer (docs/RELIABILITY.md, "Storage faults"): with
// STRATA_TEST_FAIL_FSYNC=<what>[:<n>] the n-th (default: first) fsync of <what> fails with
// EIO, as it would on a failing disk, so the tests can prove that such a failure stops the run
// cleanly and loses nothing. <what> is "journal" (a journal batch), "rewrite" (a file written
// whole and renamed into place) or "append" (the ledger's in-place append). Unset, it is fsync.
namespace strata::store {

// fsync (data_only: fdatasync) of `fd`, unless the hook makes this one fail.
int checked_fsync(int fd, bool data_only, const char* what);

}  // namespace strata::store
