#include "strata/model/paired_comparison.hpp"

#include <algorithm>
#include <vector>

#include "strata/model/adjudicated_result.hpp"
#include "strata/model/arm_metrics.hpp"
#include "strata/model/ecmascript_number.hpp"
#include "strata/model/json_access.hpp"
#include "strata/model/statistics.hpp"

namespace strata::model {
namespace {

int scenario_rank(const std::string& scenario) {
  if (scenario == "repository-only") return 0;
  if (scenario == "deterministic-doc-bridge") return 1;
  if (scenario == "registry-assisted") return 2;
  return 3;
}

bool scenario_before(const std::string& a, const std::string& b) {
  return scenario_rank(a) != scenario_rank(b) ? scenario_rank(a) < scenario_rank(b) : a < b;
}

Json interval_json(const Interval& interval) { return Json::array({interval.low, interval.high}); }

// A measure compared over the pairs that report it on both sides.
Json paired_values(const std::vector<double>& baseline, const std::vector<double>& current) {
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
  return out;
}

}  // namespace

void PairedComparison::add(const Json& o) {
  const Json& task = o["task"];
  const std::string key = str(task["taskId"]) + "\n" + str(task["repositoryId"]) + "\n" +
                          ecmascript_number(task["replicate"].get<double>());
  auto& cell = outcomes_[str(task["modelId"])][str(task["scenarioId"])];
  if (cell.count(key) > 0) return;
  Outcome outcome;
  if (const std::string result = adjudicated_result(o); result != "pending") outcome.success = result == "success";
  const Json& execution = o["execution"];
  if (execution.contains("inputTokens") && execution.contains("outputTokens"))
    outcome.tokens = execution["inputTokens"].get<double>() + execution["outputTokens"].get<double>();
  if (o.contains("measurements")) outcome.cost_usd = number_member(o["measurements"], "agentCostUsd");
  outcome.duration_ms = execution["durationMs"].get<double>();
  cell.emplace(key, outcome);
}

Json PairedComparison::to_json() const {
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
        std::vector<double> tokens[2], cost[2], duration[2];
        for (const auto& [key, before] : base) {
          const auto after = current.find(key);
          if (after == current.end()) continue;
          ++pairs;
          if (before.success && after->second.success) {
            ++decided;
            base_successes += *before.success ? 1 : 0;
            current_successes += *after->second.success ? 1 : 0;
            b += *before.success && !*after->second.success ? 1 : 0;
            c += !*before.success && *after->second.success ? 1 : 0;
          }
          const auto both = [](const std::optional<double>& x, const std::optional<double>& y, std::vector<double>* into) {
            if (!x || !y) return;
            into[0].push_back(*x);
            into[1].push_back(*y);
          };
          both(before.tokens, after->second.tokens, tokens);
          both(before.cost_usd, after->second.cost_usd, cost);
          both(before.duration_ms, after->second.duration_ms, duration);
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
                     {"mcnemarP", number_or_null(mcnemar_exact_p(b, c))}};
          if (b + c == 0) success["note"] = "no discordant pairs: no test";
        }
        out.push_back({{"modelId", model},
                       {"baselineScenarioId", names[i]},
                       {"currentScenarioId", names[j]},
                       {"pairs", static_cast<double>(pairs)},
                       {"success", std::move(success)},
                       {"totalTokens", paired_values(tokens[0], tokens[1])},
                       {"costUsd", paired_values(cost[0], cost[1])},
                       {"durationMs", paired_values(duration[0], duration[1])}});
      }
  }
  return out;
}

}  // namespace strata::model
