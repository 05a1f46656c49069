#pragma once
// Findings about the agents' own word (issue 43, docs/METRICS.md "Findings"): per arm whose
// self-reported success Strata's verifier found false at least once, a finding that says how
// often its claims were true, placed before the comparisons' findings, since every comparison on
// that arm's self-reports inherits it. Pure.
#include "strata/model/json/json.hpp"

namespace strata::model {

// [{modelId, scenarioId, measure: "claims", verdict: "unreliable", estimate (claims true / claims
// verified), interval, confirmed, claimsVerified, sentence}] of StudyMetrics::to_json()'s arms
// (those with "verified"), in the arms' order.
Json claim_findings(const Json& arms);

}  // namespace strata::model
