#include "strata/model/content_hash.hpp"

#include <openssl/evp.h>

#include <stdexcept>

#include "strata/model/json_writer.hpp"

namespace strata::model {

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed in OpenSSL");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * length, '0');
  for (unsigned int i = 0; i < length; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return hex;
}

std::string content_hash(const Json& value) { return sha256_hex(canonical_json(value, "contentHash")); }

}  // namespace strata::model
