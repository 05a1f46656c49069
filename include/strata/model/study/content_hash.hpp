#pragma once
// sha256-normalized-v1 (spec §2): SHA-256 of the canonical JSON of a value without its
// top-level contentHash member.
#include <memory>
#include <string>
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::model {

inline constexpr std::string_view kContentHashAlgo = "sha256-normalized-v1";

// Incremental SHA-256 (OpenSSL). hex() may be called at any point and leaves the state as
// it is, so more bytes can follow; hex(tail) is the digest as if `tail` followed. The state
// can be saved as text and restored later (a grown ledger's hash without re-reading it).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view bytes);
  std::string hex(std::string_view tail = {}) const;  // lower-case hex digest

  // The state after the bytes so far, as printable text; restore() returns false (and
  // changes nothing) for text that saved_state() did not produce.
  std::string saved_state() const;
  bool restore(std::string_view saved);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Lower-case hex SHA-256 of the bytes.
std::string sha256_hex(std::string_view bytes);

// The content hash of an artifact value (its own top-level contentHash is ignored).
std::string content_hash(const Json& value);

}  // namespace strata::model
