#pragma once
// Strict JSON text -> Json value, with the limits the spec and the issue set:
// well-formed UTF-8, no unpaired surrogate escapes, numbers inside double range,
// nesting at most 512 deep. Errors name line and column (1-based, in characters).
#include <string_view>

#include "strata/error.hpp"
#include "strata/model/json/json.hpp"

namespace strata::model {

inline constexpr int kMaxJsonDepth = 512;

// Parses exactly one JSON text (surrounding whitespace allowed). Duplicate keys: the
// last value wins at the first key's position (ECMAScript JSON.parse). Every number
// becomes a double. Throws strata::Error with location "line:column".
Json parse_json(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace strata::model
