#pragma once
// Test helpers: the doc-bridge fixtures from ../shared and small artifact edits.
#include <string>

#include "strata/model/json.hpp"

namespace strata::test {

std::string fixture_path(const std::string& name);
model::Json fixture(const std::string& name);

// The payload of a sealed artifact (seal members removed), for re-sealing edited copies.
model::Json payload_of(model::Json sealed);

}  // namespace strata::test
