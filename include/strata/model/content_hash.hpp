#pragma once
// sha256-normalized-v1 (spec §2): SHA-256 of the canonical JSON of a value without its
// top-level contentHash member.
#include <string>
#include <string_view>

#include "strata/model/json.hpp"

namespace strata::model {

inline constexpr std::string_view kContentHashAlgo = "sha256-normalized-v1";

// Incremental SHA-256 (OpenSSL EVP). hex() may be called at any point and leaves the
// state as it is, so more bytes can follow; hex(tail) is the digest as if `tail` followed.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view bytes);
  std::string hex(std::string_view tail = {}) const;  // lower-case hex digest

 private:
  void* ctx_;  // EVP_MD_CTX, kept out of this header
};

// Lower-case hex SHA-256 of the bytes.
std::string sha256_hex(std::string_view bytes);

// The content hash of an artifact value (its own top-level contentHash is ignored).
std::string content_hash(const Json& value);

}  // namespace strata::model
