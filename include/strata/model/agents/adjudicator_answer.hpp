#pragma once
// The structured answer of a coding agent acting as the independent adjudicator (study-v1
// §4.2-4.3, `strata provider judge`, issue 16). The agent answers the judgement only; the
// token counts and measurements of the adjudicator output are what the adapter observed, not
// what the model claims. Pure.
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::model {

// {outcome, confidence, reasonCodes}, all required, closed: the judgement part of the reference's
// study-adjudicator-output.schema.json, with the same enum, bounds and pattern.
const Json& adjudicator_answer_schema();

// The answer checked against that schema: {outcome, confidence, reasonCodes} as given. Throws
// strata::Error naming the member that is missing or wrong, never its value.
Json adjudicator_fields_from_answer(std::string_view answer);

}  // namespace strata::model
