#pragma once
// Arms compared on the same tasks (docs/METRICS.md, "Paired comparison"): for each model and each
// pair of its scenarios, over the tasks (task, repository, replicate) that have an observation in
// both, the difference in success rate with its interval and the exact McNemar test, and for
// tokens, cost and duration the Hodges-Lehmann median difference with its interval, the ratio of
// medians and the Wilcoxon signed-rank test; for success, tokens and cost also the interval
// clustered by repository or category (model/results/cluster_robust), and for success the difference
// the sample could detect (model/results/mcnemar_power). Pure.
#include <map>
#include <optional>
#include <string>

#include "strata/model/json/json.hpp"

namespace strata::model {

// What "success" is in a comparison: the adjudicated result, or every acceptance check passed
// under Strata's verifier (--verify, docs/VERIFIER.md).
enum class OutcomeSource { adjudicated, verified };
const char* outcome_name(OutcomeSource source);  // "adjudicated", "verified"

// What a pair's cluster is: the task's repository or its category.
enum class ClusterBy { repository, category };
const char* cluster_name(ClusterBy by);  // "repository", "category"

// What pairs two arms' observations: the task, its repository and the replicate, from an
// observation's "task" or a selected execution cell (both carry these members).
std::string pair_key(const Json& task);

// The order of a model's scenarios in a comparison: the earlier is the baseline (repository-only,
// deterministic-doc-bridge, registry-assisted, then the others by name).
bool scenario_before(const std::string& a, const std::string& b);

class PairedComparison {
 public:
  // The first observation of a (model, scenario, task) counts; later ones are ignored.
  void add(const Json& observation);
  // [{modelId, baselineScenarioId, currentScenarioId, pairs, success, totalTokens, costUsd,
  // durationMs}] per model and scenario pair; the baseline is the scenario earlier in the order
  // repository-only, deterministic-doc-bridge, registry-assisted (others after, by name).
  // Each comparison's success also has "clustered" and "detectable", each measure "meanRatio"
  // (docs/METRICS.md "Paired comparison" has every field).
  // With any verified observation, each comparison also has "successOutcome" (the source used);
  // with `source` verified, a pair is decided when both sides have a verified record.
  Json to_json(ClusterBy cluster_by = ClusterBy::repository, OutcomeSource source = OutcomeSource::adjudicated) const;
  bool any_verified() const { return any_verified_; }

 private:
  struct Outcome {
    std::optional<bool> success;           // nullopt while pending
    std::optional<bool> verified_success;  // every check passed under the verifier; nullopt: not verified
    std::optional<double> tokens, cost_usd, duration_ms;
    std::string repository, category;
  };
  std::map<std::string, std::map<std::string, std::map<std::string, Outcome>>> outcomes_;  // model, scenario, task
  bool any_verified_ = false;
};

}  // namespace strata::model
