#pragma once
// What the stream readers (model/agents) and the trajectory normalisers (model/trajectory) read of
// an agent stream's events, in one place. The stream is outside input:
// a line that is not a JSON object gives nothing, and a member that is absent or of another type
// gives a neutral value, never an exception.
#include <optional>
#include <string>
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::model {

// The line as a JSON object (blank lines, other JSON and non-JSON: nothing).
std::optional<Json> stream_event(std::string_view line);
// The member, or null.
const Json& event_field(const Json& object, const char* name);
// The member's text, or "" when it is not a string.
const std::string& event_text(const Json& object, const char* name);
// A string as it is, null as "", any other JSON as its text.
std::string text_or_json(const Json& value);
// A non-negative number, else nothing.
std::optional<double> event_count(const Json& object, const char* name);

}  // namespace strata::model
