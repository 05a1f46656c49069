#pragma once
// The JSON value type of the model layer. Objects keep insertion order (the order the
// artifact schema emits), numbers are IEEE doubles (ECMAScript semantics: 1.0 == 1).
#include <nlohmann/json.hpp>

namespace strata::model {

using Json = nlohmann::ordered_json;

}  // namespace strata::model
