#pragma once
// A kept ATIF trajectory read back for a person (`strata trajectory --text`, docs/TRAJECTORIES.md):
// every step with its source, time and tokens, its message and reasoning, the tool calls with
// their arguments and the results they got, then the totals and what was cut or redacted. Pure:
// it reads any ATIF v1 document, tolerating missing optional fields.
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"

namespace strata::model {

// The transcript, one line per entry (multi-line texts indented under their step).
std::vector<std::string> trajectory_transcript(const Json& trajectory);

// {"agent", "version", "model", "steps", "promptTokens", "completionTokens", "cutFields",
//  "redactions"}: one line of `strata trajectory --list` (absent fields are null).
Json trajectory_summary(const Json& trajectory);

}  // namespace strata::model
