#include "strata/app/results/plan_power.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "strata/app/study/run_preflight.hpp"
#include "strata/error.hpp"
#include "strata/model/results/cluster_robust.hpp"
#include "strata/model/results/decimal_text.hpp"
#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/results/mcnemar_power.hpp"
#include "strata/model/results/paired_comparison.hpp"
#include "strata/model/study/sampling.hpp"

namespace strata::app {
namespace {

using model::Json;
using model::str;

struct PairCell {
  std::string repository, category;
};
using Cells = std::map<std::string, PairCell>;  // pair key (task, repository, replicate) -> its cluster

std::string percent(double fraction) { return model::decimal_text(fraction * 100, 1); }

// A probability strictly between 0 and 1 (alpha, the target power).
void check_probability(double value, const char* flag) {
  if (!std::isfinite(value) || value <= 0 || value >= 1)
    throw Error(std::string(flag) + " " + model::ecmascript_number(value) + " is out of range: it must be above 0 and below 1.");
}

std::string sentence(const Json& c, const PowerRequest& request) {
  const std::string pairs = model::ecmascript_number(c["pairs"].get<double>());
  std::string out = str(c["modelId"]) + ", " + str(c["baselineScenarioId"]) + " \u2192 " + str(c["currentScenarioId"]) + ": " + pairs +
                    " pairs in " + model::ecmascript_number(c["repositories"].get<double>()) + " repositories; ";
  const std::string at = " with " + percent(request.target_power) + "% power";
  if (c["minimumDetectableDifference"].is_null())
    out += "detects no difference" + at + ", not even " + percent(request.discordance) + " points (every discordant pair one way)";
  else
    out += "detects a " + percent(c["minimumDetectableDifference"].get<double>()) + "-point difference" + at;
  if (request.effect) {
    out += "; " + percent(*request.effect) + " points: " + percent(c["powerAtEffect"].get<double>()) + "% power here, " +
           (c["pairsNeeded"].is_null() ? "more than " + std::to_string(model::kMaxPowerPairs)
                                       : model::ecmascript_number(c["pairsNeeded"].get<double>())) +
           " pairs needed";
  }
  if (c["repositories"].get<double>() < static_cast<double>(model::kMinClusters))
    out += "; fewer than " + std::to_string(model::kMinClusters) + " repositories: no interval clustered by repository";
  return out;
}

}  // namespace

Json plan_power(const Json& plan, const Json& suite, const PowerRequest& request) {
  check_probability(request.alpha, "--alpha");
  check_probability(request.target_power, "--target-power");
  if (!std::isfinite(request.discordance) || request.discordance <= 0 || request.discordance > 1)
    throw Error("--discordance " + model::ecmascript_number(request.discordance) +
                " is out of range: the share of pairs whose arms differ must be above 0 and at most 1.");
  if (request.effect) {
    const double effect = *request.effect;
    if (!std::isfinite(effect) || effect <= 0 || effect > 1)
      throw Error("--effect " + model::ecmascript_number(effect) + " is out of range: a difference in success rate above 0 and at most 1.");
    if (effect > request.discordance)
      throw Error("--effect " + model::ecmascript_number(effect) + " is larger than --discordance " +
                  model::ecmascript_number(request.discordance) +
                  ": the difference in success rate cannot exceed the share of pairs whose arms differ.");
  }
  check_plan_matches_suite(plan, suite);
  const std::vector<Json> selection = model::select_executions(suite, plan["sampling"]);

  std::map<std::string, std::map<std::string, Cells>> drawn;  // model -> scenario -> pairs
  for (const auto& cell : selection) {
    drawn[str(cell["modelId"])][str(cell["scenarioId"])].emplace(model::pair_key(cell),
                                                                 PairCell{str(cell["repositoryId"]), str(cell["category"])});
  }
  Json comparisons = Json::array();
  for (const auto& [model_id, scenarios] : drawn) {
    std::vector<std::string> names;
    for (const auto& [scenario, cells] : scenarios) names.push_back(scenario);
    std::sort(names.begin(), names.end(), model::scenario_before);
    for (std::size_t i = 0; i < names.size(); ++i)
      for (std::size_t j = i + 1; j < names.size(); ++j) {
        const Cells& base = scenarios.at(names[i]);
        const Cells& current = scenarios.at(names[j]);
        std::size_t pairs = 0;
        std::set<std::string> repositories, categories;
        for (const auto& [key, cell] : base) {
          if (current.count(key) == 0) continue;
          ++pairs;
          repositories.insert(cell.repository);
          categories.insert(cell.category);
        }
        if (pairs == 0) continue;
        Json c = {{"modelId", model_id},
                  {"baselineScenarioId", names[i]},
                  {"currentScenarioId", names[j]},
                  {"pairs", static_cast<double>(pairs)},
                  {"repositories", static_cast<double>(repositories.size())},
                  {"categories", static_cast<double>(categories.size())},
                  {"minimumDetectableDifference",
                   model::number_or_null(model::mcnemar_minimum_detectable_effect(pairs, request.discordance, request.alpha,
                                                                                  request.target_power))}};
        if (request.effect) {
          c["powerAtEffect"] = model::mcnemar_power(pairs, *request.effect, request.discordance, request.alpha);
          const auto needed = model::mcnemar_pairs_needed(*request.effect, request.discordance, request.alpha, request.target_power);
          c["pairsNeeded"] = needed ? Json(static_cast<double>(*needed)) : Json(nullptr);
        }
        c["sentence"] = sentence(c, request);
        comparisons.push_back(std::move(c));
      }
  }
  Json out = {{"planHash", plan["contentHash"]},
              {"taskSuiteHash", suite["contentHash"]},
              {"executions", static_cast<double>(selection.size())},
              {"alpha", request.alpha},
              {"targetPower", request.target_power},
              {"discordance", request.discordance},
              {"effect", request.effect ? Json(*request.effect) : Json(nullptr)},
              {"comparisons", comparisons}};
  if (comparisons.empty())
    out["note"] = "This plan draws no pair: its sampling (" + str(plan["sampling"]["strategy"]) + ", " +
                  model::ecmascript_number(static_cast<double>(selection.size())) +
                  " executions) never runs one task in two scenarios of a model, so no paired comparison can be made; "
                  "pairwise-task-strata sampling or the full matrix can.";
  return out;
}

}  // namespace strata::app
