#include "strata/model/study/content_hash.hpp"

// The low-level SHA256_CTX API is deprecated in OpenSSL 3, but it is the only one whose
// state can be saved and restored (EVP contexts are opaque). Same assembly as EVP.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/hex_text.hpp"

namespace strata::model {

struct Sha256::State {
  SHA256_CTX ctx;
};

namespace {

// Splits "a b c" at single spaces.
std::vector<std::string_view> fields(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(' ', start);
    out.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

bool parse_word(std::string_view text, SHA_LONG& word) {
  unsigned long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() || value > 0xFFFFFFFFul) return false;
  word = static_cast<SHA_LONG>(value);
  return true;
}

}  // namespace

Sha256::Sha256() : state_(std::make_unique<State>()) {
  if (SHA256_Init(&state_->ctx) != 1) throw std::runtime_error("SHA-256 unavailable in OpenSSL");
}

Sha256::~Sha256() = default;

void Sha256::update(std::string_view bytes) { SHA256_Update(&state_->ctx, bytes.data(), bytes.size()); }

std::string Sha256::hex(std::string_view tail) const {
  SHA256_CTX copy = state_->ctx;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  if (SHA256_Update(&copy, tail.data(), tail.size()) != 1 || SHA256_Final(digest, &copy) != 1)
    throw std::runtime_error("SHA-256 failed in OpenSSL");
  return hex_of(digest, sizeof digest);
}

// "sha256 h0 … h7 Nl Nh <pending bytes in hex>": the chaining words, the bit count and the
// bytes of the unfinished block.
std::string Sha256::saved_state() const {
  const SHA256_CTX& c = state_->ctx;
  std::string text = "sha256";
  char word[16];
  for (const SHA_LONG w : c.h) text += (std::snprintf(word, sizeof word, " %x", static_cast<unsigned>(w)), word);
  text += (std::snprintf(word, sizeof word, " %x", static_cast<unsigned>(c.Nl)), word);
  text += (std::snprintf(word, sizeof word, " %x", static_cast<unsigned>(c.Nh)), word);
  text += " " + hex_of(reinterpret_cast<const unsigned char*>(c.data), c.num);
  return text;
}

bool Sha256::restore(std::string_view saved) {
  const std::vector<std::string_view> parts = fields(saved);
  if (parts.size() != 12 || parts[0] != "sha256") return false;
  SHA256_CTX c;
  if (SHA256_Init(&c) != 1) return false;
  for (int i = 0; i < 8; ++i)
    if (!parse_word(parts[1 + i], c.h[i])) return false;
  if (!parse_word(parts[9], c.Nl) || !parse_word(parts[10], c.Nh)) return false;
  const std::size_t pending = parts[11].size() / 2;
  // The unfinished block is what the bit count says is left over (Nl counts bits).
  if (pending >= SHA256_CBLOCK || pending != (c.Nl / 8) % SHA256_CBLOCK) return false;
  if (!bytes_of_hex(parts[11], reinterpret_cast<unsigned char*>(c.data), pending)) return false;
  c.num = static_cast<unsigned int>(pending);
  state_->ctx = c;
  return true;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.hex();
}

std::string content_hash(const Json& value) { return sha256_hex(canonical_json(value, "contentHash")); }

}  // namespace strata::model
