#include "strata/model/adjudication/adjudication.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/cost.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/study/payload_shapes.hpp"
#include "strata/model/json/shape.hpp"
#include "strata/model/verifier/verified_record.hpp"

namespace strata::model {
namespace {

constexpr const char* kMethod = "independent-rubric-v1";
constexpr const char* kSuccessReason =
    "Independent adjudicator evaluated the anonymized bounded candidate record against the task rubric.";
const char* const kOutcomes[] = {"success", "partial", "incorrect", "incomplete", "blocked"};

// V-final rubric split: plain items per outcome, items with a mechanical check apart.
void add_rubric(Json& task_view, const Json& rubric) {
  Json plain = Json::object();
  Json mechanical = Json::array();
  for (const char* outcome : kOutcomes) {
    plain[outcome] = Json::array();
    for (const auto& item : rubric[outcome]) {
      if (item.is_string()) {
        plain[outcome].push_back(item);
      } else {
        mechanical.push_back({{"outcome", outcome}, {"text", item["text"]}, {"check", item["check"]}});
      }
    }
  }
  task_view["rubric"] = std::move(plain);
  task_view["mechanical"] = std::move(mechanical);
}

Json candidate(const Json& observation, const Json& task) {
  const Json measurements = observation.value("measurements", Json::object());
  const Json& evidence = observation["evidenceIds"];
  Json required = Json::array();
  for (const auto& requirement : task["evidenceRequirements"]) {
    bool present = false;
    for (const auto& id : evidence) present = present || id == requirement["id"];
    required.push_back({{"id", requirement["id"]}, {"present", present}});
  }
  const bool measured = measurements.contains("acceptanceChecksPassed") && measurements.contains("acceptanceChecksTotal") &&
                        measurements.contains("acceptanceChecksExecuted");
  const Json& execution = observation["execution"];
  // The checks Strata's verifier ran, when it did: the facts the judge reads (the agent's claim
  // stays in measurements; the instruction says which is which).
  Json acceptance = {{"status", execution["status"]},
                     {"passed", member_or_null(measurements, "acceptanceChecksPassed")},
                     {"total", member_or_null(measurements, "acceptanceChecksTotal")},
                     {"executed", member_or_null(measurements, "acceptanceChecksExecuted")},
                     {"measurementPresent", measured}};
  // "source" only then: a request without a verifier stays the reference adjudicator's, byte for byte.
  if (const auto verified = verified_counts(measurements))
    acceptance = {{"status", execution["status"]}, {"passed", verified->passed}, {"total", verified->total},
                  {"executed", verified->executed}, {"measurementPresent", true}, {"source", "strata-verifier"}};
  return Json{{"taskOutcome", member_or_null(observation, "taskOutcome")},
              {"evidenceQuality", member_or_null(observation, "evidenceQuality")},
              {"safetyOutcome", member_or_null(observation, "safetyOutcome")},
              {"evidenceIds", evidence},
              {"evidenceCoverage", {{"required", required}, {"referenceCount", static_cast<double>(evidence.size())}}},
              {"acceptanceExecution", std::move(acceptance)},
              {"measurements", measurements},
              {"execution",
               {{"status", execution["status"]}, {"durationMs", execution["durationMs"]},
                {"responseBytes", execution["responseBytes"]}}}};
}


void add_judge_measurements(Json& measurements, const Json& response, const Json& adjudicator) {
  const Json reported = response.value("measurements", Json::object());  // named: items() must not dangle
  for (const auto& [name, value] : reported.items()) measurements[name] = value;
  const auto input = number_member(response, "inputTokens");
  const auto output = number_member(response, "outputTokens");
  if (input) measurements["adjudicatorInputTokens"] = *input;
  if (output) measurements["adjudicatorOutputTokens"] = *output;
  if (response.value("tokenMethod", "") == "provider" && input && output)
    measurements["adjudicatorTokenCostUnits"] = *input + *output;
  if (adjudicator.contains("pricing")) {
    if (auto cost = cost_usd(pricing_from(adjudicator["pricing"]), input, number_member(reported, "cachedInputTokens"), output))
      measurements["adjudicatorCostUsd"] = *cost;
  }
}

}  // namespace

const std::string_view kAdjudicatorInstruction =
    "Evaluate only the bounded candidate record against the rubric items supplied. Items already decided by a "
    "mechanical check are listed under mechanical and are not yours to re-decide. Use evidenceCoverage and "
    "acceptanceExecution to distinguish missing evidence from unexecuted checks. Do not infer missing evidence. "
    "Return one JSON object and no prose.";
const std::string_view kVerifiedNote =
    " acceptanceExecution holds the acceptance checks Strata's verifier ran itself in the candidate's workspace; "
    "the candidate's own claim is in measurements (acceptanceChecks*) and is not evidence that a check passed.";

Json adjudicator_request(const Json& observation, const Json& task) {
  Json task_view = {{"id", task["id"]},
                    {"category", task["category"]},
                    {"difficulty", task["difficulty"]},
                    {"objective", task["objective"]},
                    {"expectedOutcome", task["expectedOutcome"]},
                    {"evidenceRequirements", task["evidenceRequirements"]},
                    {"acceptanceChecks", task["acceptanceChecks"]}};
  add_rubric(task_view, task["rubric"]);
  std::string instruction(kAdjudicatorInstruction);
  if (verified_counts(observation.value("measurements", Json::object()))) instruction += kVerifiedNote;
  return Json{{"protocol", "doc-bridge.study-adjudicator.v1"},
              {"instruction", instruction},
              {"task", std::move(task_view)},
              {"candidate", candidate(observation, task)}};
}

Json adjudicated_observation(Json observation, const Json& adjudicator, const std::string& configuration_hash,
                             const JudgeRecord& judge) {
  Json measurements = observation.value("measurements", Json::object());
  measurements["adjudicatorLatencyMs"] = judge.duration_ms;
  Json adjudication = {{"status", "pending"}, {"actor", adjudicator["id"]}, {"method", kMethod}};
  const std::optional<Json> response = judge.status == "completed" ? conformed_text(judge.stdout_text, adjudicator_response_shape()) : std::nullopt;
  if (judge.status != "completed") {
    adjudication["reason"] = "Independent adjudicator " + judge.status + ".";
  } else if (!response) {
    adjudication["reason"] = "Independent adjudicator returned invalid output.";
  } else {
    adjudication = {{"status", "automated"},
                    {"actor", adjudicator["id"]},
                    {"method", kMethod},
                    {"outcome", (*response)["outcome"]},
                    {"confidence", (*response)["confidence"]},
                    {"reasonCodes", (*response)["reasonCodes"]}};
    if (response->contains("tokenMethod")) adjudication["tokenMethod"] = (*response)["tokenMethod"];
    adjudication["configurationHash"] = configuration_hash;
    adjudication["reason"] = kSuccessReason;
    add_judge_measurements(measurements, *response, adjudicator);
  }
  // Members keep the observation's schema order: measurements sits before adjudication.
  Json rebuilt = Json::object();
  for (auto& [key, value] : observation.items()) {
    if (key == "measurements" || key == "contentHash" || key == "contentHashAlgo") continue;
    if (key == "adjudication") {
      rebuilt["measurements"] = measurements;
      rebuilt["adjudication"] = adjudication;
    } else {
      rebuilt[key] = value;
    }
  }
  return create_artifact(ArtifactKind::observation, std::move(rebuilt));
}

std::vector<std::size_t> select_for_adjudication(const std::vector<std::string>& run_ids, const BatchSelection& selection) {
  std::vector<std::size_t> chosen;
  double skipped = 0;
  for (std::size_t i = 0; i < run_ids.size(); ++i) {
    if (selection.run_id && run_ids[i] != *selection.run_id) continue;
    if (selection.offset && skipped < *selection.offset) {
      ++skipped;
      continue;
    }
    if (selection.limit && static_cast<double>(chosen.size()) >= *selection.limit) continue;
    chosen.push_back(i);
  }
  return chosen;
}

double javascript_number(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  if (text.empty()) return 0;
  const std::string s(text);
  if (s == "Infinity" || s == "+Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  char* end = nullptr;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'o' || s[1] == 'O' || s[1] == 'b' || s[1] == 'B')) {
    const int base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
    const unsigned long long v = std::strtoull(s.c_str() + 2, &end, base);
    return *end == '\0' ? static_cast<double>(v) : std::nan("");
  }
  // Decimal literal only: digits, one dot, optional exponent (strtod would also take hex and "inf").
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      return std::nan("");
  const double v = std::strtod(s.c_str(), &end);
  return *end == '\0' ? v : std::nan("");
}

}  // namespace strata::model
