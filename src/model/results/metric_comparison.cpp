#include "strata/model/results/metric_comparison.hpp"

#include <cmath>
#include <optional>
#include <set>

#include "strata/error.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::model {
namespace {

// (current - baseline) / |baseline|; 0 when both are 0; nullopt (infinite) for a change from 0.
std::optional<double> relative_change(double baseline, double current) {
  if (baseline == current) return 0.0;
  if (baseline == 0) return std::nullopt;
  return (current - baseline) / std::fabs(baseline);
}

// How far the value moved the way `direction` wants, relative to the baseline (positive: the
// wanted way); +/-infinity for a change from 0.
double progress(const std::string& direction, bool larger_better, double baseline, double current) {
  const auto change = relative_change(baseline, current);
  const double r = change ? *change : (current > baseline ? INFINITY : -INFINITY);
  if (direction == "decrease") return -r;
  if (direction == "increase") return r;
  return larger_better ? r : -r;  // no-regression: the metric's better way
}

std::string verdict(const std::string& direction, double threshold, double moved) {
  if (direction == "no-regression") return moved < -threshold ? "regressed" : "met";
  if (moved >= threshold) return "met";
  return moved < 0 ? "regressed" : "missed";
}

// The arm's value of a metric; nullopt when the arm is absent or has none.
std::optional<double> metric_of(const ArmMetrics* arm, const std::string& metric_id) {
  if (arm == nullptr) return std::nullopt;
  return arm->metric(metric_id);
}

const ArmMetrics* find_arm(const StudyMetrics& metrics, const ArmKey& key) {
  const auto it = metrics.arms().find(key);
  return it == metrics.arms().end() ? nullptr : &it->second;
}

}  // namespace

Json default_targets() {
  return Json::array({Json{{"metricId", "task-success"}, {"direction", "no-regression"}, {"threshold", 0.0}}});
}

void check_targets(const Json& targets) {
  for (const auto& target : targets) {
    if (larger_is_better(str(target["metricId"]))) continue;
    std::string known;
    for (const auto& [id, larger] : metric_ids()) known += (known.empty() ? "" : ", ") + id;
    throw Error("Protocol target " + str(target["metricId"]) + " names a metric strata metrics does not compute (it computes " +
                known + ").");
  }
}

Json compare_metrics(const StudyMetrics& baseline, const StudyMetrics& current, const Json& targets) {
  std::set<ArmKey> keys;
  for (const auto& [key, arm] : baseline.arms()) keys.insert(key);
  for (const auto& [key, arm] : current.arms()) keys.insert(key);
  Json arms = Json::array();
  Json evaluated = Json::array();
  double regressions = 0;
  for (const ArmKey& key : keys) {
    const ArmMetrics* before = find_arm(baseline, key);
    const ArmMetrics* after = find_arm(current, key);
    Json metrics = Json::object();
    for (const auto& [id, larger] : metric_ids()) {
      const std::optional<double> b = metric_of(before, id);
      const std::optional<double> c = metric_of(after, id);
      if (!b && !c) continue;
      metrics[id] = {{"baseline", number_or_null(b)},
                     {"current", number_or_null(c)},
                     {"delta", b && c ? Json(*c - *b) : Json(nullptr)},
                     {"relativeChange", b && c ? number_or_null(relative_change(*b, *c)) : Json(nullptr)}};
    }
    arms.push_back({{"modelId", key.first},
                    {"scenarioId", key.second},
                    {"baselineExecutions", before ? static_cast<double>(before->executions()) : 0.0},
                    {"currentExecutions", after ? static_cast<double>(after->executions()) : 0.0},
                    {"metrics", std::move(metrics)}});
    for (const auto& target : targets) {
      const std::string id = str(target["metricId"]);
      const std::string direction = str(target["direction"]);
      const double threshold = target["threshold"].get<double>();
      const std::optional<double> b = metric_of(before, id);
      const std::optional<double> c = metric_of(after, id);
      std::string result = "not-measured";
      if (b && c) result = verdict(direction, threshold, progress(direction, *larger_is_better(id), *b, *c));
      if (result == "regressed") ++regressions;
      evaluated.push_back({{"metricId", id},
                           {"direction", direction},
                           {"threshold", threshold},
                           {"modelId", key.first},
                           {"scenarioId", key.second},
                           {"baseline", number_or_null(b)},
                           {"current", number_or_null(c)},
                           {"relativeChange", b && c ? number_or_null(relative_change(*b, *c)) : Json(nullptr)},
                           {"verdict", result}});
    }
  }
  return {{"arms", std::move(arms)}, {"targets", std::move(evaluated)}, {"regressions", regressions}};
}

}  // namespace strata::model
