#pragma once
// sha256-normalized-v1 (spec §2): SHA-256 of the canonical JSON of a value without its
// top-level contentHash member.
#include <string>
#include <string_view>

#include "strata/model/json.hpp"

namespace strata::model {

inline constexpr std::string_view kContentHashAlgo = "sha256-normalized-v1";

// Lower-case hex SHA-256 of the bytes.
std::string sha256_hex(std::string_view bytes);

// The content hash of an artifact value (its own top-level contentHash is ignored).
std::string content_hash(const Json& value);

}  // namespace strata::model
