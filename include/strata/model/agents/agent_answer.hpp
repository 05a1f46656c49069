#pragma once
// An agent's structured answer (the final message a coding agent writes under the provider
// output schema: docs/AGENT_STREAMS.md, study-v1 §3.12) turned into the provider response fields
// Strata records, for the agent adapters of issue 16. Pure.
#include <string>
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::model {

// The JSON Schema the agent is asked to answer with (the reference's
// study-provider-output.schema.json at 3224164: the same fields and shapes, measurements as a
// list of {name, value}; every property required, as strict structured output demands, so
// firstEvidenceLatencyMs is an integer or null), closed (additionalProperties false).
const Json& provider_output_schema();

// The answer checked against that schema and mapped: the enums and counts as given, evidenceIds
// normalised, measurements as a {name: value} map (a repeated name: the last value), and
// firstEvidenceLatencyMs when it is a number (null or absent: not observed, left out). Throws strata::Error naming the member that is missing or
// wrong, never its value (an answer may quote the repository).
Json provider_fields_from_answer(std::string_view answer);

// The answer parsed, an object with only the schema's properties and all its required ones.
// Throws strata::Error saying so (and naming the member, never a value) otherwise.
Json answer_object(std::string_view answer, const Json& schema);
[[noreturn]] void answer_mismatch(const std::string& member, const std::string& why);  // that error

// §3.12: trimmed; "" for an id that is empty once trimmed (dropped); an id longer than 256
// bytes or holding NUL, CR or LF becomes "evidence-" + the first 32 hex digits of the SHA-256 of
// the trimmed id.
std::string normalised_evidence_id(const std::string& id);

}  // namespace strata::model
