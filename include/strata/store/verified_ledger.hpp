#pragma once
// What `strata run` verified about a ledger file it wrote, kept in <ledger>.verified so the
// next run on an unchanged ledger need not read and verify it again (docs/DECISIONS.md,
// "Verified-ledger record"). The record names the file (device, inode, size, modification
// and change time in ns) and the seal at its end; a ledger changed in any of these is read and
// verified in full. It carries its own content hash, so an edited or damaged record is never
// used. `strata verify` and `strata ledger` never use it.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::store {

std::string verified_record_path_for(const std::string& ledger_path);

// What the record knows of one run id's observations: enough for a resume of a run that has
// nothing left to run, which then reads none of the ledger's observations.
struct RecordedRun {
  // Hex characters kept of each execution key (itself a SHA-256 hex): 128 bits, so two of a
  // ledger's 100,000 keys share a digest with probability below 1e-28.
  static constexpr std::size_t kKeyDigestLength = 32;

  std::string plan_hash;
  std::string key_digests;  // the digests of the run's execution keys, sorted, back to back
  double reported_tokens = 0;    // usage the run's observations report, summed in ledger order
  double reported_cost_usd = 0;

  bool has_execution_key(std::string_view execution_key) const;
  std::size_t size() const { return key_digests.size() / kKeyDigestLength; }
};

// Sorted, de-duplicated digests of execution keys, in RecordedRun::key_digests' form.
std::string key_digests_of(std::vector<std::string> execution_keys);

struct VerifiedLedger {
  std::string content_hash;
  std::string ledger_version;
  std::size_t observations = 0;
  std::map<std::string, RecordedRun> runs;  // by run id, every run id of the observations
  std::string hash_state;                   // model::LedgerHasher::saved_state() after the last observation
};

// The record, if it exists, is well formed, unedited (its own content hash), and still
// describes the ledger file as it is (identity, and the seal in its last bytes). Never throws:
// anything else is nullopt.
std::optional<VerifiedLedger> read_verified_ledger(const std::string& ledger_path);

// Records what was verified about the ledger file as it is now (after it was made durable).
// A failure only costs the next run a full read, so it is reported by the return value.
bool write_verified_ledger(const std::string& ledger_path, const VerifiedLedger& verified);

}  // namespace strata::store
