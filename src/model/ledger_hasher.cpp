#include "strata/model/ledger_hasher.hpp"

#include <openssl/evp.h>

#include <stdexcept>

#include "strata/model/json_writer.hpp"

namespace strata::model {

struct LedgerHasher::State {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  std::string suffix;  // what follows the observations in the canonical text
  bool empty = true;   // no observation hashed yet (no comma before the next one)
  ~State() { EVP_MD_CTX_free(ctx); }

  void feed(const std::string& text) { EVP_DigestUpdate(ctx, text.data(), text.size()); }
};

LedgerHasher::LedgerHasher(const Json& ledger) : state_(std::make_unique<State>()) {
  if (state_->ctx == nullptr || EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 unavailable in OpenSSL");
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
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  EVP_MD_CTX_copy_ex(copy, state_->ctx);
  EVP_DigestUpdate(copy, state_->suffix.data(), state_->suffix.size());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(copy, digest, &length);
  EVP_MD_CTX_free(copy);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xF]);
  }
  return hex;
}

}  // namespace strata::model
