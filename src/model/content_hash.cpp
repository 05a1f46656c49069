#include "strata/model/content_hash.hpp"

#include <openssl/evp.h>

#include <memory>
#include <stdexcept>

#include "strata/model/json_writer.hpp"

namespace strata::model {

namespace {
EVP_MD_CTX* context(void* ctx) { return static_cast<EVP_MD_CTX*>(ctx); }
}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr || EVP_DigestInit_ex(context(ctx_), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 unavailable in OpenSSL");
}

Sha256::~Sha256() { EVP_MD_CTX_free(context(ctx_)); }

void Sha256::update(std::string_view bytes) { EVP_DigestUpdate(context(ctx_), bytes.data(), bytes.size()); }

std::string Sha256::hex(std::string_view tail) const {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> copy(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!copy || EVP_MD_CTX_copy_ex(copy.get(), context(ctx_)) != 1 ||
      EVP_DigestUpdate(copy.get(), tail.data(), tail.size()) != 1 || EVP_DigestFinal_ex(copy.get(), digest, &length) != 1)
    throw std::runtime_error("SHA-256 failed in OpenSSL");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * length, '0');
  for (unsigned int i = 0; i < length; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return hex;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.hex();
}

std::string content_hash(const Json& value) { return sha256_hex(canonical_json(value, "contentHash")); }

}  // namespace strata::model
