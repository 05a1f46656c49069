#pragma once
// Ledger files in the persisted layout (JSON.stringify(ledger, null, 2) and a newline),
// written an observation at a time through write_file_atomically: neither the file's text
// nor, for write_ledger_streamed, the observations are ever held whole in memory.
#include <cstddef>
#include <functional>
#include <string>

#include "strata/model/json/json.hpp"

namespace strata::store {

// Atomically writes a sealed ledger.
void write_sealed_ledger(const std::string& ledger_path, const model::Json& sealed);

// Atomically writes the ledger of `count` observations, observation(i) giving each (a valid
// sealed observation) when it is written; seals it on the way. Returns its contentHash.
// Throws strata::Error, and writes nothing, for more than 100000 observations or a repeated
// observation contentHash (the messages of model::seal_checked_ledger). With `hash_state`, also
// gives model::LedgerHasher::saved_state() after the last observation (for <ledger>.verified).
std::string write_ledger_streamed(const std::string& ledger_path, const std::string& ledger_version, std::size_t count,
                                  const std::function<model::Json(std::size_t)>& observation,
                                  std::string* hash_state = nullptr);

}  // namespace strata::store
