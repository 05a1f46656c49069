#pragma once
// One observation as one flat row (`strata export`): the stable columns documented in
// docs/METRICS.md, in that order, and their CSV (RFC 4180) and JSON Lines forms. Pure.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "strata/model/json/json.hpp"

namespace strata::model {

// The fixed columns, in order (measurement columns follow them, see below).
const std::vector<std::string>& export_columns();

// The observation's values for export_columns(), in order; JSON null where the observation
// has no value (an absent optional member).
std::vector<Json> export_values(const Json& observation);

// The measurement names of an observation (CSV has a column "measurements.<name>" for every
// name any exported observation has, in byte order).
void collect_measurement_names(const Json& observation, std::set<std::string>& names);

// An RFC 4180 field: the value's text (strings as they are, numbers as ECMAScript prints them,
// booleans as true/false, null as nothing), in double quotes (inner quotes doubled) when it
// holds a comma, a quote, CR or LF.
std::string csv_field(const Json& value);
std::string csv_text_field(std::string_view text);

// The CSV header and one observation's row, each ending with CRLF.
std::string csv_header(const std::set<std::string>& measurement_names);
std::string csv_row(const Json& observation, const std::set<std::string>& measurement_names);

// One JSON Lines row: {column: value, ..., "measurements": {...}} compact, ending with LF.
std::string jsonl_row(const Json& observation);

}  // namespace strata::model
