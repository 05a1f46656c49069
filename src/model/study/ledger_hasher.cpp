#include "strata/model/study/ledger_hasher.hpp"

#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_writer.hpp"

namespace strata::model {

struct LedgerHasher::State {
  Sha256 sha;
  std::string suffix;  // what follows the observations in the canonical text
  bool empty = true;   // no observation hashed yet (no comma before the next one)

  void feed(std::string_view text) { sha.update(text); }
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
  std::string text;
  append_canonical_json(text, observation);
  append_canonical(text);
}

void LedgerHasher::append_canonical(std::string_view observation_text) {
  if (!state_->empty) state_->sha.update(",");
  state_->sha.update(observation_text);
  state_->empty = false;
}

// "<empty flag> <SHA-256 state>".
std::string LedgerHasher::saved_state() const { return (state_->empty ? "0 " : "1 ") + state_->sha.saved_state(); }

std::unique_ptr<LedgerHasher> LedgerHasher::restore(const Json& ledger, std::string_view saved) {
  if (saved.size() < 2 || (saved[0] != '0' && saved[0] != '1') || saved[1] != ' ') return nullptr;
  Json header = Json::object();
  for (const char* member : {"contentHashAlgo", "ledgerVersion", "schemaVersion", "type"}) header[member] = ledger.at(member);
  header["observations"] = Json::array();
  auto hasher = std::make_unique<LedgerHasher>(header);
  if (!hasher->state_->sha.restore(saved.substr(2))) return nullptr;
  hasher->state_->empty = saved[0] == '0';
  return hasher;
}

std::string LedgerHasher::hash() const {
  return state_->sha.hex(state_->suffix);  // closes the text; the kept state stays extendable
}

}  // namespace strata::model
