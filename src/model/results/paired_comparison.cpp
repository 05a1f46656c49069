#include "strata/model/results/paired_comparison.hpp"

#include <algorithm>
#include <vector>

#include "strata/model/adjudication/adjudicated_result.hpp"
#include "strata/model/verifier/verified_record.hpp"
#include "strata/model/results/arm_metrics.hpp"
#include "strata/model/results/cluster_robust.hpp"
#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/results/mcnemar_power.hpp"
#include "strata/model/results/statistics.hpp"

namespace strata::model {
namespace {

int scenario_rank(const std::string& scenario) {
  if (scenario == "repository-only") return 0;
  if (scenario == "deterministic-doc-bridge") return 1;
  if (scenario == "registry-assisted") return 2;
  return 3;
}

Json interval_json(const Interval& interval) { return Json::array({interval.low, interval.high}); }

// The pairs of one comparison that report a value on both sides, with each pair's cluster.
struct PairedValues {
  std::vector<double> baseline, current;
  std::vector<std::string> clusters;
  void add(const std::optional<double>& before, const std::optional<double>& after, const std::string& cluster) {
    if (!before || !after) return;
    baseline.push_back(*before);
    current.push_back(*after);
    clusters.push_back(cluster);
  }
};

std::size_t distinct(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return static_cast<std::size_t>(std::unique(names.begin(), names.end()) - names.begin());
}

// A clustered estimate, or why there is none.
Json clustered_json(const std::optional<ClusteredEstimate>& estimate, ClusterBy by, const std::vector<std::string>& clusters,
                    const char* estimate_name) {
  const std::string name = cluster_name(by);
  if (!estimate) {
    const std::size_t count = distinct(clusters);
    return {{"by", name},
            {"clusters", static_cast<double>(count)},
            {"interval", nullptr},
            {"note", "only " + std::to_string(count) + " " + (name == "category" ? "categor" : "repositor") +
                         (count == 1 ? "y" : "ies") + ": a clustered interval needs at least " + std::to_string(kMinClusters)}};
  }
  return {{"by", name},
          {"clusters", static_cast<double>(estimate->clusters)},
          {estimate_name, estimate->estimate},
          {"interval", interval_json(estimate->interval)},
          {"standardError", estimate->standard_error},
          {"designEffect", estimate->design_effect}};
}

// The ratio of the means of a measure, with its interval over independent pairs and clustered.
Json mean_ratio(const PairedValues& values, ClusterBy by) {
  const auto plain = ratio_of_means(values.baseline, values.current, {});
  const auto clustered = ratio_of_means(values.baseline, values.current, values.clusters);
  if (!plain && !clustered) return nullptr;
  // With fewer than kMinClusters pairs neither exists; with as many, the plain one does.
  return {{"ratio", plain ? plain->estimate : clustered->estimate},
          {"interval", plain ? interval_json(plain->interval) : Json(nullptr)},
          {"clustered", clustered_json(clustered, by, values.clusters, "ratio")}};
}

// The smallest difference in success this many decided pairs detects (alpha 0.05, power 0.8),
// at the discordance observed (the assumed one when no pair was discordant).
Json detectable_json(std::size_t decided, std::size_t discordant) {
  const bool observed = discordant > 0;
  const double discordance = observed ? static_cast<double>(discordant) / static_cast<double>(decided) : kDefaultDiscordance;
  return {{"difference", number_or_null(mcnemar_minimum_detectable_effect(decided, discordance, kDefaultAlpha, kDefaultTargetPower))},
          {"discordance", discordance},
          {"discordanceFrom", observed ? "observed" : "assumed"},
          {"alpha", kDefaultAlpha},
          {"power", kDefaultTargetPower}};
}

// A measure compared over the pairs that report it on both sides.
Json paired_values(const PairedValues& values, ClusterBy by) {
  const std::vector<double>& baseline = values.baseline;
  const std::vector<double>& current = values.current;
  if (baseline.empty()) return nullptr;
  std::vector<double> differences;
  for (std::size_t i = 0; i < baseline.size(); ++i) differences.push_back(current[i] - baseline[i]);
  const double base_median = *quantile(baseline, 0.5), current_median = *quantile(current, 0.5);
  Json out = {{"pairs", static_cast<double>(baseline.size())},
              {"baselineMedian", base_median},
              {"currentMedian", current_median},
              {"ratioOfMedians", base_median == 0 ? Json(nullptr) : Json(current_median / base_median)}};
  if (const auto shift = hodges_lehmann(differences)) {
    out["medianDifference"] = shift->estimate;
    out["interval"] = interval_json(shift->interval);
  } else {
    out["medianDifference"] = *quantile(differences, 0.5);
    out["interval"] = nullptr;
  }
  if (const auto test = wilcoxon_signed_rank(differences)) {
    out["wilcoxon"] = {{"statistic", test->statistic}, {"p", test->p_value}, {"exact", test->exact},
                       {"nonZeroPairs", static_cast<double>(test->pairs)}};
  } else {
    out["wilcoxon"] = nullptr;
    out["note"] = "fewer than " + std::to_string(kMinWilcoxonPairs) + " non-zero differences: no test";
  }
  out["meanRatio"] = mean_ratio(values, by);
  return out;
}

}  // namespace

std::string pair_key(const Json& task) {
  return str(task["taskId"]) + "\n" + str(task["repositoryId"]) + "\n" + ecmascript_number(task["replicate"].get<double>());
}

bool scenario_before(const std::string& a, const std::string& b) {
  return scenario_rank(a) != scenario_rank(b) ? scenario_rank(a) < scenario_rank(b) : a < b;
}

const char* cluster_name(ClusterBy by) { return by == ClusterBy::category ? "category" : "repository"; }

const char* outcome_name(OutcomeSource source) { return source == OutcomeSource::verified ? "verified" : "adjudicated"; }

void PairedComparison::add(const Json& o) {
  const Json& task = o["task"];
  const std::string key = pair_key(task);
  auto& cell = outcomes_[str(task["modelId"])][str(task["scenarioId"])];
  if (cell.count(key) > 0) return;
  Outcome outcome;
  if (const std::string result = adjudicated_result(o); result != "pending") outcome.success = result == "success";
  const Json& execution = o["execution"];
  if (execution.contains("inputTokens") && execution.contains("outputTokens"))
    outcome.tokens = execution["inputTokens"].get<double>() + execution["outputTokens"].get<double>();
  if (o.contains("measurements")) {
    outcome.cost_usd = number_member(o["measurements"], "agentCostUsd");
    if (const auto verified = verified_counts(o["measurements"])) {
      outcome.verified_success = verified->total > 0 && verified->passed == verified->total;
      any_verified_ = true;
    }
  }
  outcome.duration_ms = execution["durationMs"].get<double>();
  outcome.repository = str(task["repositoryId"]);
  outcome.category = str(task["category"]);
  cell.emplace(key, std::move(outcome));
}

Json PairedComparison::to_json(ClusterBy cluster_by, OutcomeSource source) const {
  const auto success_of = [source](const Outcome& o) { return source == OutcomeSource::verified ? o.verified_success : o.success; };
  Json out = Json::array();
  for (const auto& [model, scenarios] : outcomes_) {
    std::vector<std::string> names;
    for (const auto& [scenario, cells] : scenarios) names.push_back(scenario);
    std::sort(names.begin(), names.end(), scenario_before);
    for (std::size_t i = 0; i < names.size(); ++i)
      for (std::size_t j = i + 1; j < names.size(); ++j) {
        const auto& base = scenarios.at(names[i]);
        const auto& current = scenarios.at(names[j]);
        std::size_t pairs = 0, decided = 0, base_successes = 0, current_successes = 0, b = 0, c = 0;
        PairedValues success_differences, tokens, cost, duration;  // success: baseline unused
        for (const auto& [key, before] : base) {
          const auto found = current.find(key);
          if (found == current.end()) continue;
          const Outcome& after = found->second;
          const std::string& cluster = cluster_by == ClusterBy::category ? before.category : before.repository;
          ++pairs;
          const std::optional<bool> was = success_of(before), is = success_of(after);
          if (was && is) {
            ++decided;
            base_successes += *was ? 1 : 0;
            current_successes += *is ? 1 : 0;
            b += *was && !*is ? 1 : 0;
            c += !*was && *is ? 1 : 0;
            success_differences.current.push_back(static_cast<double>(*is) - static_cast<double>(*was));
            success_differences.clusters.push_back(cluster);
          }
          tokens.add(before.tokens, after.tokens, cluster);
          cost.add(before.cost_usd, after.cost_usd, cluster);
          duration.add(before.duration_ms, after.duration_ms, cluster);
        }
        if (pairs == 0) continue;
        Json success = nullptr;
        if (decided > 0) {
          const double n = static_cast<double>(decided);
          success = {{"pairs", n},
                     {"baselineRate", static_cast<double>(base_successes) / n},
                     {"currentRate", static_cast<double>(current_successes) / n},
                     {"difference", (static_cast<double>(c) - static_cast<double>(b)) / n},
                     {"interval", interval_json(paired_proportion_difference_interval(b, c, decided))},
                     {"baselineOnly", static_cast<double>(b)},
                     {"currentOnly", static_cast<double>(c)},
                     {"mcnemarP", number_or_null(mcnemar_exact_p(b, c))},
                     {"clustered", clustered_json(clustered_mean(success_differences.current, success_differences.clusters),
                                                  cluster_by, success_differences.clusters, "difference")},
                     {"detectable", detectable_json(decided, b + c)}};
          if (b + c == 0) success["note"] = "no discordant pairs: no test";
        }
        Json comparison = {{"modelId", model},
                           {"baselineScenarioId", names[i]},
                           {"currentScenarioId", names[j]},
                           {"pairs", static_cast<double>(pairs)},
                           {"success", std::move(success)},
                           {"totalTokens", paired_values(tokens, cluster_by)},
                           {"costUsd", paired_values(cost, cluster_by)},
                           {"durationMs", paired_values(duration, cluster_by)}};
        if (any_verified_) comparison["successOutcome"] = outcome_name(source);  // a ledger without --verify: as before
        out.push_back(std::move(comparison));
      }
  }
  return out;
}

}  // namespace strata::model
