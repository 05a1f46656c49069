#pragma once
// Arms compared on the same tasks (docs/METRICS.md, "Paired comparison"): for each model and each
// pair of its scenarios, over the tasks (task, repository, replicate) that have an observation in
// both, the difference in success rate with its interval and the exact McNemar test, and for
// tokens, cost and duration the Hodges-Lehmann median difference with its interval, the ratio of
// medians and the Wilcoxon signed-rank test. Pure.
#include <map>
#include <optional>
#include <string>

#include "strata/model/json.hpp"

namespace strata::model {

class PairedComparison {
 public:
  // The first observation of a (model, scenario, task) counts; later ones are ignored.
  void add(const Json& observation);
  // [{modelId, baselineScenarioId, currentScenarioId, pairs, success, totalTokens, costUsd,
  // durationMs}] per model and scenario pair; the baseline is the scenario earlier in the order
  // repository-only, deterministic-doc-bridge, registry-assisted (others after, by name).
  Json to_json() const;

 private:
  struct Outcome {
    std::optional<bool> success;  // nullopt while pending
    std::optional<double> tokens, cost_usd, duration_ms;
  };
  std::map<std::string, std::map<std::string, std::map<std::string, Outcome>>> outcomes_;  // model, scenario, task
};

}  // namespace strata::model
