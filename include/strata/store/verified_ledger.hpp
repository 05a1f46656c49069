#pragma once
// What `strata run` verified about a ledger file it wrote, kept in <ledger>.verified so the
// next run on an unchanged ledger need not read and verify it again (docs/DECISIONS.md,
// "Verified-ledger record"). The record names the file (device, inode, size, modification
// and change time in ns) and the seal at its end; a ledger changed in any of these is read and
// verified in full. `strata verify` and `strata ledger` never use it.
#include <cstddef>
#include <optional>
#include <set>
#include <string>

namespace strata::store {

std::string verified_record_path_for(const std::string& ledger_path);

struct VerifiedLedger {
  std::string content_hash;
  std::string ledger_version;
  std::size_t observations = 0;
  std::set<std::string> run_ids;  // of the observations
  std::string hash_state;         // model::LedgerHasher::saved_state() after the last observation
};

// The record, if it exists, is well formed, and still describes the ledger file as it is
// (identity, and the seal in its last bytes). Never throws: anything else is nullopt.
std::optional<VerifiedLedger> read_verified_ledger(const std::string& ledger_path);

// Records what was verified about the ledger file as it is now (after it was made durable).
// A failure only costs the next run a full read, so it is reported by the return value.
bool write_verified_ledger(const std::string& ledger_path, const VerifiedLedger& verified);

}  // namespace strata::store
