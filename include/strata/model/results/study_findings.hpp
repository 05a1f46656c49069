#pragma once
// What a study found, read from its paired comparisons (model/results/paired_comparison): the tests of
// one report adjusted as one family, and per model and comparison a finding for success, tokens
// and cost with a plain sentence (docs/METRICS.md "Findings"). Pure.
#include "strata/model/json/json.hpp"
#include "strata/model/results/multiplicity.hpp"
#include "strata/model/results/paired_comparison.hpp"

namespace strata::model {

// The family a report adjusts: every test its paired comparisons make (success: the exact
// McNemar test; totalTokens, costUsd, durationMs: the Wilcoxon signed-rank test). Writes
// "adjustedP" beside each test's p (null where there is no test) and returns the report's
// "multiplicity" member: {method, alpha, tests, family}.
Json adjust_paired_tests(Json& paired, Multiplicity method);

// [{modelId, baselineScenarioId, currentScenarioId, measure (success, totalTokens, costUsd),
// verdict (increased, decreased, no detectable difference, not measured), estimate, interval,
// clusteredInterval, adjustedP, sentence}] of paired comparisons already adjusted.
Json study_findings(const Json& paired);

}  // namespace strata::model
