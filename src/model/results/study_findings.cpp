#include "strata/model/results/study_findings.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "strata/model/results/decimal_text.hpp"
#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/results/mcnemar_power.hpp"

namespace strata::model {
namespace {

std::string points(double fraction) { return decimal_text(fraction * 100, 1); }
std::string signed_points(double fraction) { return (fraction > 0 ? "+" : "") + points(fraction); }
std::string p_text(const Json& p) { return p.get<double>() < 0.001 ? "<0.001" : decimal_text(p.get<double>(), 3); }

bool excludes_zero(const Json& interval, double null_value) {
  return !interval.is_null() && (interval[0].get<double>() > null_value || interval[1].get<double>() < null_value);
}

// "; clustered by repository (6 clusters): 1 to 24" or the reason there is none.
std::string clustered_text(const Json& clustered, bool as_points) {
  if (clustered.is_null()) return "";
  if (clustered["interval"].is_null()) return "; no clustered interval: " + str(clustered["note"]);
  const Json& i = clustered["interval"];
  const std::string range = as_points ? points(i[0].get<double>()) + " to " + points(i[1].get<double>())
                                      : decimal_text(i[0].get<double>(), 2) + "\u2013" + decimal_text(i[1].get<double>(), 2);
  return "; clustered by " + str(clustered["by"]) + " (" + ecmascript_number(clustered["clusters"].get<double>()) + " clusters): " + range;
}

Json finding(const Json& comparison, const char* measure) {
  return {{"modelId", comparison["modelId"]},
          {"baselineScenarioId", comparison["baselineScenarioId"]},
          {"currentScenarioId", comparison["currentScenarioId"]},
          {"measure", measure},
          {"verdict", "not measured"},
          {"estimate", nullptr},
          {"interval", nullptr},
          {"clusteredInterval", nullptr},
          {"adjustedP", nullptr}};
}

std::string significant_verdict(const Json& adjusted_p, double direction) {
  if (adjusted_p.is_null() || adjusted_p.get<double>() >= kDefaultAlpha) return "no detectable difference";
  return direction > 0 ? "increased" : "decreased";
}

Json success_finding(const Json& comparison) {
  Json out = finding(comparison, "success");
  const std::string model = str(comparison["modelId"]), baseline = str(comparison["baselineScenarioId"]),
                    current = str(comparison["currentScenarioId"]);
  // With a verifier in the ledger, the sentence says which success it compares.
  const std::string used = comparison.value("successOutcome", "");
  const std::string success = used.empty() ? "success" : used + " success";
  if (!used.empty()) out["outcome"] = used;
  const Json& s = comparison["success"];
  if (s.is_null()) {
    out["sentence"] = model + ": " + current + " against " + baseline + ": " + success + " not measured (no pair is decided on both sides).";
    return out;
  }
  const Json& clustered = s["clustered"];
  out["estimate"] = s["difference"];
  out["interval"] = s["interval"];
  out["clusteredInterval"] = clustered["interval"];
  out["adjustedP"] = s["adjustedP"];
  const double difference = s["difference"].get<double>();
  out["verdict"] = significant_verdict(s["adjustedP"], difference);
  const std::string adjusted = s["adjustedP"].is_null() ? "no test: no discordant pairs" : "adjusted p " + p_text(s["adjustedP"]);
  const std::string interval = "95% CI " + points(s["interval"][0].get<double>()) + " to " + points(s["interval"][1].get<double>());
  std::string sentence;
  if (out["verdict"] == "no detectable difference") {
    sentence = model + ": no detectable difference in " + success + " between " + current + " and " + baseline + " (" +
               signed_points(difference) + " points, " + interval + clustered_text(clustered, true) + "; " + adjusted + "); ";
    const Json& detectable = s["detectable"]["difference"];
    sentence += detectable.is_null() ? "this sample is too small to detect any difference with 80% power."
                                     : "this sample detects \u2265 " + points(detectable.get<double>()) + " points.";
  } else {
    sentence = model + ": " + current + (difference > 0 ? " raised" : " lowered") + " " + success + " by " + points(std::fabs(difference)) +
               " points over " + baseline + " (" + interval + clustered_text(clustered, true) + "; " + adjusted + ").";
    if (excludes_zero(s["interval"], 0) && !clustered["interval"].is_null() && !excludes_zero(clustered["interval"], 0))
      sentence += " But the clustered interval includes 0: the difference is not consistent across " +
                  std::string(str(clustered["by"]) == "category" ? "categories" : "repositories") + " (design effect " +
                  decimal_text(clustered["designEffect"].get<double>(), 1) + "), so it may hold in a few of them only.";
  }
  out["sentence"] = sentence;
  return out;
}

Json measure_finding(const Json& comparison, const char* measure, const std::string& noun) {
  Json out = finding(comparison, measure);
  const std::string model = str(comparison["modelId"]), baseline = str(comparison["baselineScenarioId"]),
                    current = str(comparison["currentScenarioId"]);
  const Json& values = comparison[measure];
  if (values.is_null()) {
    out["sentence"] = model + ": " + current + " against " + baseline + ": " + noun + " not measured (no pair reports the measure on both sides).";
    return out;
  }
  const Json& ratio = values["meanRatio"];
  out["adjustedP"] = values["adjustedP"];
  out["verdict"] = significant_verdict(values["adjustedP"], values["medianDifference"].get<double>());
  if (values["wilcoxon"].is_null()) out["verdict"] = "not measured";
  std::string shown = "median difference " + decimal_text(values["medianDifference"].get<double>(), 4);
  if (!ratio.is_null()) {
    out["estimate"] = ratio["ratio"];
    out["interval"] = ratio["interval"];
    out["clusteredInterval"] = ratio["clustered"]["interval"];
    shown = decimal_text(ratio["ratio"].get<double>(), 2) + "\u00d7 the mean";
    if (!ratio["interval"].is_null())
      shown += ", 95% CI " + decimal_text(ratio["interval"][0].get<double>(), 2) + "\u2013" + decimal_text(ratio["interval"][1].get<double>(), 2);
    shown += clustered_text(ratio["clustered"], false);
  }
  const std::string adjusted = values["adjustedP"].is_null() ? str(values["note"]) : "adjusted p " + p_text(values["adjustedP"]);
  if (out["verdict"] == "not measured")
    out["sentence"] = model + ": " + current + " against " + baseline + ": " + noun + " not measured by a test (" + shown + "; " + adjusted + ").";
  else if (out["verdict"] == "no detectable difference")
    out["sentence"] = model + ": no detectable difference in " + noun + " between " + current + " and " + baseline + " (" + shown +
                      "; " + adjusted + ").";
  else
    out["sentence"] = model + ": " + noun + (out["verdict"] == "increased" ? " rose" : " fell") + " with " + current + " against " +
                      baseline + " (" + shown + "; " + adjusted + ").";
  return out;
}

// Each test of a comparison: where its p is and where the adjusted p goes.
struct TestSlot {
  Json* holder;     // the object that gets "adjustedP"
  const Json* p;    // its p (a number, or null for no test)
};

std::vector<TestSlot> test_slots(Json& paired) {
  std::vector<TestSlot> slots;
  for (auto& comparison : paired) {
    if (!comparison["success"].is_null()) slots.push_back({&comparison["success"], &comparison["success"]["mcnemarP"]});
    for (const char* measure : {"totalTokens", "costUsd", "durationMs"}) {
      Json& values = comparison[measure];
      if (values.is_null()) continue;
      static const Json kNoTest = nullptr;
      slots.push_back({&values, values["wilcoxon"].is_null() ? &kNoTest : &values["wilcoxon"]["p"]});
    }
  }
  return slots;
}

}  // namespace

Json adjust_paired_tests(Json& paired, Multiplicity method) {
  std::vector<TestSlot> slots = test_slots(paired);
  std::vector<double> p_values;
  std::vector<bool> tested;  // read before any holder changes (a p lives inside its holder)
  for (const auto& slot : slots) {
    tested.push_back(!slot.p->is_null());
    if (tested.back()) p_values.push_back(slot.p->get<double>());
  }
  const std::vector<double> adjusted = adjust_p_values(p_values, method);
  std::size_t next = 0;
  for (std::size_t i = 0; i < slots.size(); ++i) (*slots[i].holder)["adjustedP"] = tested[i] ? Json(adjusted[next++]) : Json(nullptr);
  return {{"method", multiplicity_name(method)},
          {"alpha", kDefaultAlpha},
          {"tests", static_cast<double>(p_values.size())},
          {"family", "every test of this report's " + std::to_string(paired.size()) +
                         " paired comparison(s): success (exact McNemar) and totalTokens, costUsd, durationMs (Wilcoxon signed-rank)"}};
}

Json study_findings(const Json& paired) {
  Json out = Json::array();
  for (const auto& comparison : paired) {
    out.push_back(success_finding(comparison));
    out.push_back(measure_finding(comparison, "totalTokens", "tokens"));
    out.push_back(measure_finding(comparison, "costUsd", "cost"));
  }
  return out;
}

}  // namespace strata::model
