#pragma once
// sha256-normalized-v1 of an observation ledger that can grow: the canonical text of a
// ledger is {"contentHashAlgo":…,"ledgerVersion":…,"observations":[…],"schemaVersion":1,
// "type":…}, so the SHA-256 state after the last observation can be kept and extended by
// observations appended at the end, without serialising the earlier ones again.
#include <memory>
#include <string>
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::model {

class LedgerHasher {
 public:
  // Hashes the canonical text of a shape-valid ledger up to its last observation.
  explicit LedgerHasher(const Json& ledger);
  ~LedgerHasher();
  LedgerHasher(const LedgerHasher&) = delete;
  LedgerHasher& operator=(const LedgerHasher&) = delete;

  // Extends the hashed text by one observation at the end of the array.
  void append(const Json& observation);
  // The same, for an observation already written as canonical text (append_canonical_json).
  void append_canonical(std::string_view observation_text);

  // The contentHash of the ledger as extended so far.
  std::string hash() const;

  // The hash state as printable text, and a hasher continued from such text for a ledger
  // with these top-level members (its observations are not read). restore() returns
  // nullptr for text that saved_state() did not produce.
  std::string saved_state() const;
  static std::unique_ptr<LedgerHasher> restore(const Json& ledger, std::string_view saved);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace strata::model
