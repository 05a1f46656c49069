// model/results/arm_metrics and model/results/metric_comparison: quantiles, the success rate, and target verdicts
// at their edges (a change from 0, equal values, missing sides). Values checked by hand and with
// Python's statistics.quantiles(method="inclusive").
#include <catch2/catch.hpp>

#include <string>

#include "strata/model/results/arm_metrics.hpp"
#include "strata/model/results/metric_comparison.hpp"

using strata::model::Json;

namespace {

Json observation(const std::string& scenario, const std::string& status, const Json& outcome, double input, double duration) {
  Json adjudication = outcome.is_null() ? Json{{"status", "pending"}}
                                        : Json{{"status", "automated"}, {"method", "deterministic-rubric-v1"}, {"outcome", outcome}};
  return Json{{"runId", "r"},
              {"task", {{"modelId", "m"}, {"scenarioId", scenario}}},
              {"execution", {{"status", status}, {"durationMs", duration}, {"inputTokens", input}, {"outputTokens", 10.0}}},
              {"evidenceIds", Json::array()},
              {"adjudication", adjudication}};
}

std::string verdict_of(const Json& comparison, const std::string& scenario) {
  for (const auto& target : comparison["targets"])
    if (target["scenarioId"] == scenario) return target["verdict"].get<std::string>();
  return "none";
}

}  // namespace

TEST_CASE("quantiles interpolate between the closest ranks (type 7)", "[metrics]") {
  using strata::model::quantile;
  CHECK_FALSE(quantile({}, 0.5));
  CHECK(*quantile({7}, 0.9) == 7);
  CHECK(*quantile({4, 1, 3, 2}, 0.5) == 2.5);
  CHECK(*quantile({1, 2, 3, 4}, 0.9) == Approx(3.7));  // statistics.quantiles([1,2,3,4], n=10, method="inclusive")[8]
  CHECK(*quantile({10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110}, 0.9) == Approx(100));
}

TEST_CASE("the success rate counts decided results only", "[metrics]") {
  strata::model::ArmMetrics arm;
  CHECK_FALSE(arm.success_rate());
  arm.add(observation("s", "completed", nullptr, 1, 1));
  CHECK_FALSE(arm.success_rate());  // all pending
  arm.add(observation("s", "completed", "success", 1, 1));
  arm.add(observation("s", "failed", "blocked", 1, 1));
  CHECK(*arm.success_rate() == 0.5);
  CHECK(arm.to_json()["result"] == Json{{"blocked", 1.0}, {"pending", 1.0}, {"success", 1.0}});
}

TEST_CASE("target verdicts: a change from 0, equal values, a missing side", "[metrics]") {
  strata::model::StudyMetrics baseline, current;
  // "zero": 0 -> 0.5 success; "same": 1 -> 1; "fell": 1 -> 0; "gone": only in the baseline.
  baseline.add(observation("zero", "failed", "blocked", 100, 10));
  current.add(observation("zero", "completed", "success", 100, 10));
  current.add(observation("zero", "failed", "blocked", 100, 10));
  baseline.add(observation("same", "completed", "success", 100, 10));
  current.add(observation("same", "completed", "success", 100, 10));
  baseline.add(observation("fell", "completed", "success", 100, 10));
  current.add(observation("fell", "failed", "blocked", 100, 10));
  baseline.add(observation("gone", "completed", "success", 100, 10));

  const Json no_regression = strata::model::compare_metrics(baseline, current, strata::model::default_targets());
  CHECK(verdict_of(no_regression, "zero") == "met");
  CHECK(verdict_of(no_regression, "same") == "met");
  CHECK(verdict_of(no_regression, "fell") == "regressed");
  CHECK(verdict_of(no_regression, "gone") == "not-measured");
  CHECK(no_regression["regressions"] == 1.0);

  const Json increase = strata::model::compare_metrics(
      baseline, current, Json::array({Json{{"metricId", "task-success"}, {"direction", "increase"}, {"threshold", 0.2}}}));
  CHECK(verdict_of(increase, "zero") == "met");  // from 0: an infinite relative rise
  CHECK(verdict_of(increase, "same") == "missed");
  CHECK(verdict_of(increase, "fell") == "regressed");
  for (const auto& target : increase["targets"])
    if (target["scenarioId"] == "zero") CHECK(target["relativeChange"].is_null());

  CHECK_THROWS_WITH(strata::model::check_targets(Json::array({Json{{"metricId", "docbridge-runtime"}}})),
                    Catch::Contains("Protocol target docbridge-runtime names a metric strata metrics does not compute"));
}
