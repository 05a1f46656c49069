#pragma once
// What an observation's adjudication decided, as every results command reads it (export,
// metrics, the paired comparison; docs/METRICS.md). Pure.
#include <string>

#include "strata/model/json/json.hpp"

namespace strata::model {

// The adjudication's outcome once it is decided (the independent adjudicator's record replaces
// the rubric's), "pending" while it is pending.
std::string adjudicated_result(const Json& observation);

// Which judgement that result is: "independent", "deterministic", "pending", or the recorded
// method of another judge.
std::string result_source(const Json& observation);

}  // namespace strata::model
