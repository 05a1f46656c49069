#pragma once
// A baseline and a current set of observations compared arm by arm (`strata metrics`), and a
// protocol's stopping targets evaluated on them: met, missed, regressed or not measured
// (docs/METRICS.md gives the exact rules). Pure.
#include "strata/model/results/arm_metrics.hpp"
#include "strata/model/json/json.hpp"

namespace strata::model {

// The targets when no protocol is given: the success rate must not fall in any arm.
Json default_targets();

// Throws strata::Error for a target whose metric Strata does not compute (naming the ones it does).
void check_targets(const Json& targets);

// {"arms": [{modelId, scenarioId, baselineExecutions, currentExecutions, metrics: {id:
// {baseline, current, delta, relativeChange}}}], "targets": [{metricId, direction, threshold,
// modelId, scenarioId, baseline, current, relativeChange, verdict}], "regressions": n}
Json compare_metrics(const StudyMetrics& baseline, const StudyMetrics& current, const Json& targets);

}  // namespace strata::model
