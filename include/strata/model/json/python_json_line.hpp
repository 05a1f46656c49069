#pragma once
// One line of a JSONL log, read as the reference tools read it: Python's json.loads.
// Shared by the usage report and the event-log writer's state readers, so that both
// accept and refuse exactly the same lines.
#include <optional>
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::model {

// The value of `line` (no line terminator), or nullopt when json.loads would refuse it
// (empty or blank text, a truncated value, a leading byte-order mark, ill-formed UTF-8
// inside a string). NaN, Infinity and -Infinity, which Python reads as floats and
// nlohmann refuses, are read as the fractional numbers 0.5 / -0.5: every reader here
// treats them like any float (not an int, not a string, not null, not `true`).
std::optional<Json> parse_python_json_line(std::string_view line);

}  // namespace strata::model
