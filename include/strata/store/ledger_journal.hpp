#pragma once
// The durable ledger of `strata run` (DESIGN decision 4): every completed observation is
// appended to a journal beside the ledger and made durable before it counts as done;
// the journal is folded into the ledger by an atomic rewrite. Resume = ledger + the
// valid prefix of the journal. The journal's writer (group commit on the event loop) is
// store/journal_writer.hpp.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/model/json/json.hpp"
#include "strata/model/study/ledger_hasher.hpp"
#include "strata/store/ledger_writer.hpp"

namespace strata::store {

std::string journal_path_for(const std::string& ledger_path);
std::string lock_path_for(const std::string& ledger_path);

struct JournalContents {
  std::vector<model::Json> observations;  // sealed, verified
  std::uint64_t valid_bytes = 0;          // length of the valid prefix
  std::optional<std::string> dropped;     // what was dropped after the valid prefix, if anything
};

// One journal line (without its newline) as a sealed observation whose hash verifies, or nullopt.
std::optional<model::Json> verified_journal_line(std::string_view line);

// The valid prefix of a journal: complete lines, each a sealed observation whose hash
// verifies. A missing journal is empty.
JournalContents read_journal(const std::string& journal_path);

// A ledger file as stored plus its unfolded journal.
struct LedgerState {
  bool ledger_exists = false;
  model::Json ledger;  // parsed (hash-verified) ledger, or a new empty one
  JournalContents journal;
  std::unique_ptr<model::LedgerHasher> hasher;  // the ledger's hash state, extendable
};

// Reads a ledger (if it exists) and its journal; throws strata::Error located at the file.
LedgerState read_ledger_state(const std::string& ledger_path);

// The observations of the ledger followed by the journal's (duplicates by contentHash
// dropped: a crash between fold and journal truncation leaves both copies). They are moved
// out of `state` (no copy of a large ledger), which keeps its other members.
std::vector<model::Json> take_merged_observations(LedgerState& state);

// Seals and atomically writes a ledger with these observations (valid sealed
// observations, from a parse or a create); returns its contentHash.
std::string write_ledger(const std::string& ledger_path, const std::string& ledger_version,
                         std::vector<model::Json> observations);


// Exclusive lock on <ledger>.lock for the life of a run.
class LedgerLock {
 public:
  explicit LedgerLock(const std::string& ledger_path);
  ~LedgerLock();
  LedgerLock(const LedgerLock&) = delete;
  LedgerLock& operator=(const LedgerLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace strata::store
