// model/results/study_findings: one family per report (every test of the paired comparisons, the ones
// without a test left out and marked null), the verdicts at their edges (adjusted p just below
// and at 0.05, direction from the difference or the median shift, no test, no pairs), and the
// sentence for an effect the clustered interval does not confirm. The adjustments themselves
// are checked against Python in power_statistics_test.sh.
#include <catch2/catch.hpp>

#include <string>

#include "strata/model/results/study_findings.hpp"

using strata::model::Json;
using strata::model::Multiplicity;

namespace {

Json clustered(double low, double high) {
  return {{"by", "repository"}, {"clusters", 8.0}, {"difference", 0.1}, {"interval", Json::array({low, high})},
          {"standardError", 0.1}, {"designEffect", 4.5}};
}

Json success(double difference, const Json& p, double low, double high, const Json& clustered_member) {
  return {{"pairs", 40.0},        {"baselineRate", 0.5},  {"currentRate", 0.5 + difference},
          {"difference", difference}, {"interval", Json::array({low, high})}, {"baselineOnly", 2.0},
          {"currentOnly", 6.0},    {"mcnemarP", p},        {"clustered", clustered_member},
          {"detectable", {{"difference", 0.171234}, {"discordance", 0.2}, {"discordanceFrom", "observed"}}}};
}

Json measure(double shift, const Json& p) {
  Json out = {{"pairs", 40.0}, {"baselineMedian", 100.0}, {"currentMedian", 100.0 + shift}, {"medianDifference", shift},
              {"interval", nullptr}, {"meanRatio", {{"ratio", 1.25}, {"interval", Json::array({1.1, 1.4})}, {"clustered", clustered(0.9, 1.7)}}}};
  out["wilcoxon"] = p.is_null() ? Json(nullptr) : Json{{"statistic", 3.0}, {"p", p}, {"exact", true}, {"nonZeroPairs", 12.0}};
  if (p.is_null()) out["note"] = "fewer than 6 non-zero differences: no test";
  return out;
}

Json comparison(const Json& success_member, const Json& tokens, const Json& cost, const Json& duration) {
  return {{"modelId", "m"}, {"baselineScenarioId", "repository-only"}, {"currentScenarioId", "registry-assisted"},
          {"pairs", 40.0},  {"success", success_member},          {"totalTokens", tokens},
          {"costUsd", cost}, {"durationMs", duration}};
}

const Json* find(const Json& findings, const std::string& measure) {
  for (const auto& f : findings)
    if (f["measure"] == measure) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("every test of a report is one family; tests that were not made stay out of it", "[findings]") {
  Json paired = Json::array({comparison(success(0.1, 0.01, 0.02, 0.18, clustered(-0.05, 0.25)), measure(5, 0.02), nullptr, measure(-3, nullptr)),
                             comparison(nullptr, measure(-5, 0.04), measure(1, 0.5), measure(2, 0.001))});
  const Json family = strata::model::adjust_paired_tests(paired, Multiplicity::holm);
  // success, tokens; tokens, cost, duration: five tests (no cost pairs, a duration without a
  // test and a success without decided pairs are not in the family)
  CHECK(family["tests"] == 5.0);
  CHECK(family["method"] == "holm");
  // Holm by hand: sorted 0.001, 0.01, 0.02, 0.04, 0.5, times 5, 4, 3, 2, 1, never falling.
  CHECK(paired[1]["durationMs"]["adjustedP"].get<double>() == Approx(0.005));
  CHECK(paired[0]["success"]["adjustedP"].get<double>() == Approx(0.04));
  CHECK(paired[0]["totalTokens"]["adjustedP"].get<double>() == Approx(0.06));
  CHECK(paired[1]["totalTokens"]["adjustedP"].get<double>() == Approx(0.08));
  CHECK(paired[0]["durationMs"]["adjustedP"].is_null());
  CHECK(paired[1]["costUsd"]["adjustedP"].get<double>() == Approx(0.5));
  Json none = paired;
  strata::model::adjust_paired_tests(none, Multiplicity::none);
  CHECK(none[0]["success"]["adjustedP"] == 0.01);
}

TEST_CASE("verdicts: adjusted p below 0.05 decides, the direction is the estimate's, no test is not measured", "[findings]") {
  Json paired = Json::array({comparison(success(-0.1, 0.001, -0.18, -0.02, clustered(-0.2, -0.01)), measure(-5, 0.001), measure(5, 0.3),
                                        measure(1, 0.4))});
  strata::model::adjust_paired_tests(paired, Multiplicity::none);
  const Json findings = strata::model::study_findings(paired);
  REQUIRE(findings.size() == 3);
  CHECK((*find(findings, "success"))["verdict"] == "decreased");
  CHECK((*find(findings, "success"))["sentence"] ==
        "m: registry-assisted lowered success by 10 points over repository-only (95% CI -18 to -2; clustered by repository "
        "(8 clusters): -20 to -1; adjusted p 0.001).");
  CHECK((*find(findings, "totalTokens"))["verdict"] == "decreased");
  CHECK((*find(findings, "totalTokens"))["estimate"] == 1.25);
  CHECK((*find(findings, "costUsd"))["verdict"] == "no detectable difference");
  CHECK((*find(findings, "costUsd"))["sentence"] ==
        "m: no detectable difference in cost between registry-assisted and repository-only (1.25\u00d7 the mean, 95% CI 1.1\u20131.4; "
        "clustered by repository (8 clusters): 0.9\u20131.7; adjusted p 0.3).");

  paired[0]["success"]["mcnemarP"] = 0.05;  // at alpha: not below it
  paired[0]["totalTokens"] = measure(-5, nullptr);
  paired[0]["costUsd"] = nullptr;
  strata::model::adjust_paired_tests(paired, Multiplicity::none);
  const Json again = strata::model::study_findings(paired);
  CHECK((*find(again, "success"))["verdict"] == "no detectable difference");
  CHECK((*find(again, "success"))["sentence"].get<std::string>().find("this sample detects \u2265 17.1 points.") != std::string::npos);
  CHECK((*find(again, "totalTokens"))["verdict"] == "not measured");
  CHECK((*find(again, "costUsd"))["verdict"] == "not measured");
  CHECK((*find(again, "costUsd"))["estimate"].is_null());
}

TEST_CASE("an effect the plain interval finds and the clustered one does not is said so", "[findings]") {
  Json paired = Json::array({comparison(success(0.15, 0.002, 0.05, 0.25, clustered(-0.1, 0.4)), nullptr, nullptr, nullptr)});
  strata::model::adjust_paired_tests(paired, Multiplicity::holm);
  const Json findings = strata::model::study_findings(paired);
  const Json& s = *find(findings, "success");
  CHECK(s["verdict"] == "increased");
  CHECK(s["clusteredInterval"] == Json::array({-0.1, 0.4}));
  CHECK(s["sentence"].get<std::string>().find("But the clustered interval includes 0: the difference is not consistent across "
                                              "repositories (design effect 4.5), so it may hold in a few of them only.") !=
        std::string::npos);
}
