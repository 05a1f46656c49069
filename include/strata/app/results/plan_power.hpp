#pragma once
// `strata plan <plan> --suite S --power`: before a run, what the plan's paired comparisons can
// detect. The plan's selection is known (model/study/sampling), so the pairs of each comparison are
// counted exactly; the power is the exact McNemar test's (model/results/mcnemar_power) under a stated
// discordance (docs/METRICS.md "Power").
#include <optional>

#include "strata/model/json/json.hpp"

namespace strata::app {

struct PowerRequest {
  double alpha = 0.05;
  double target_power = 0.80;
  double discordance = 0.30;     // the share of pairs whose arms differ
  std::optional<double> effect;  // a difference in success rate to size the sample for
};

// {"planHash", "taskSuiteHash", "executions", "alpha", "targetPower", "discordance", "effect",
// "comparisons": [{modelId, baselineScenarioId, currentScenarioId, pairs, repositories, categories,
// minimumDetectableDifference, powerAtEffect?, pairsNeeded?, sentence}], "note"?}. Throws
// strata::Error for a suite that is not the plan's, or an assumption out of range (naming its flag).
model::Json plan_power(const model::Json& plan, const model::Json& suite, const PowerRequest& request);

}  // namespace strata::app
