#include "strata/model/ledger_hasher.hpp"

#include "strata/model/content_hash.hpp"
#include "strata/model/json_writer.hpp"

namespace strata::model {

struct LedgerHasher::State {
  Sha256 sha;
  std::string suffix;  // what follows the observations in the canonical text
  bool empty = true;   // no observation hashed yet (no comma before the next one)

  void feed(const std::string& text) { sha.update(text); }
};

LedgerHasher::LedgerHasher(const Json& ledger) : state_(std::make_unique<State>()) {
  // Members in canonical order (the ledger's shape fixes them): contentHashAlgo,
  // ledgerVersion, observations, schemaVersion, type.
  std::string prefix = "{\"contentHashAlgo\":";
  append_canonical_json(prefix, ledger["contentHashAlgo"]);
  prefix += ",\"ledgerVersion\":";
  append_canonical_json(prefix, ledger["ledgerVersion"]);
  prefix += ",\"observations\":[";
  state_->feed(prefix);
  state_->suffix = "],\"schemaVersion\":";
  append_canonical_json(state_->suffix, ledger["schemaVersion"]);
  state_->suffix += ",\"type\":";
  append_canonical_json(state_->suffix, ledger["type"]);
  state_->suffix += "}";
  for (const auto& observation : ledger["observations"]) append(observation);
}

LedgerHasher::~LedgerHasher() = default;

void LedgerHasher::append(const Json& observation) {
  std::string text = state_->empty ? "" : ",";
  append_canonical_json(text, observation);
  state_->feed(text);
  state_->empty = false;
}

std::string LedgerHasher::hash() const {
  return state_->sha.hex(state_->suffix);  // closes the text; the kept state stays extendable
}

}  // namespace strata::model
