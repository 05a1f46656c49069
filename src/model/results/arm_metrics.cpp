#include "strata/model/results/arm_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "strata/model/adjudication/adjudicated_result.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/results/statistics.hpp"

namespace strata::model {
namespace {

Json counts_json(const std::map<std::string, double>& counts) {
  Json out = Json::object();
  for (const auto& [name, count] : counts) out[name] = count;
  return out;
}

std::optional<double> number_at(const Json& object, const char* outer, const char* inner) {
  const auto it = object.find(outer);
  if (it == object.end() || !it->is_object()) return std::nullopt;
  return number_member(*it, inner);
}

// The documentation rate measurements and the protocol metric ids they answer.
const std::vector<std::pair<std::string, std::string>>& rate_metrics() {
  static const std::vector<std::pair<std::string, std::string>> all{
      {"documentation-correctness", "documentationCorrectnessRate"},
      {"documentation-completeness", "documentationCompletenessRate"},
      {"documentation-clarity", "documentationClarityRate"},
      {"documentation-maintainability", "documentationMaintainabilityRate"}};
  return all;
}

std::optional<double> mean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

}  // namespace

std::optional<double> quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  return sorted_quantile(values, q);
}

double sorted_quantile(const std::vector<double>& values, double q) {
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
}

Json Distribution::to_json() const {
  Json out = {{"reported", static_cast<double>(values.size())}};
  if (values.empty()) {
    for (const char* name : {"total", "median", "p90", "min", "p25", "p75", "max"}) out[name] = nullptr;
    return out;
  }
  std::vector<double> sorted = values;  // sorted once for every quantile
  std::sort(sorted.begin(), sorted.end());
  out["total"] = std::accumulate(values.begin(), values.end(), 0.0);
  out["median"] = sorted_quantile(sorted, 0.5);
  out["p90"] = sorted_quantile(sorted, 0.9);
  out["min"] = sorted.front();
  out["p25"] = sorted_quantile(sorted, 0.25);
  out["p75"] = sorted_quantile(sorted, 0.75);
  out["max"] = sorted.back();
  return out;
}

void ArmMetrics::add(const Json& o) {
  ++executions_;
  const Json& execution = o["execution"];
  status_[str(execution["status"])] += 1;
  if (execution.contains("errorCode")) error_codes_[str(execution["errorCode"])] += 1;
  task_outcome_[o.contains("taskOutcome") ? str(o["taskOutcome"]) : "none"] += 1;
  result_[adjudicated_result(o)] += 1;
  result_source_[result_source(o)] += 1;
  const auto input = number_member(execution, "inputTokens");
  const auto output = number_member(execution, "outputTokens");
  if (input) input_tokens_.add(*input);
  if (output) output_tokens_.add(*output);
  if (input && output) total_tokens_.add(*input + *output);
  if (const auto cached = number_at(o, "measurements", "cachedInputTokens")) cached_input_tokens_.add(*cached);
  // Two costs, never mixed (issue 36): Strata's configured pricing, and the agent CLI's own report.
  if (const auto cost = number_at(o, "measurements", "agentCostUsd")) cost_usd_.add(*cost);
  if (const auto cost = number_at(o, "measurements", "agentReportedCostUsd")) reported_cost_usd_.add(*cost);
  duration_ms_.add(execution["durationMs"].get<double>());
  const std::size_t ids = o.contains("evidenceIds") ? o["evidenceIds"].size() : 0;
  evidence_ids_ += ids;
  with_evidence_ += ids > 0 ? 1 : 0;
  checks_passed_ += number_at(o, "measurements", "acceptanceChecksPassed").value_or(0);
  checks_total_ += number_at(o, "measurements", "acceptanceChecksTotal").value_or(0);
  for (const auto& [metric_id, measurement] : rate_metrics())
    if (const auto rate = number_at(o, "measurements", measurement.c_str())) rate_measurements_[metric_id].add(*rate);
  verified_.add(o);
}

double ArmMetrics::count_of(const char* result) const {
  const auto it = result_.find(result);
  return it == result_.end() ? 0 : it->second;
}

std::optional<double> ArmMetrics::success_rate() const {
  const double decided = static_cast<double>(executions_) - count_of("pending");
  if (decided <= 0) return std::nullopt;
  return count_of("success") / decided;
}

Json ArmMetrics::success_interval() const {
  const std::size_t decided = executions_ - static_cast<std::size_t>(count_of("pending"));
  if (decided == 0) return nullptr;
  const Interval interval = wilson_interval(static_cast<std::size_t>(count_of("success")), decided);
  return Json::array({interval.low, interval.high});
}

std::optional<double> ArmMetrics::metric(const std::string& metric_id) const {
  if (metric_id == "task-success") return success_rate();
  if (metric_id == "tokens-to-answer") return quantile(total_tokens_.values, 0.5);
  if (metric_id == "time-to-answer") return quantile(duration_ms_.values, 0.5);
  if (metric_id == "evidence-citation-rate")
    return executions_ == 0 ? std::nullopt : std::optional<double>(static_cast<double>(with_evidence_) / executions_);
  if (metric_id == "study-cost") {
    if (cost_usd_.values.empty()) return std::nullopt;
    return std::accumulate(cost_usd_.values.begin(), cost_usd_.values.end(), 0.0);
  }
  const auto rates = rate_measurements_.find(metric_id);
  return rates == rate_measurements_.end() ? std::nullopt : mean(rates->second.values);
}

Json ArmMetrics::to_json() const {
  Json out = {{"executions", static_cast<double>(executions_)},
              {"status", counts_json(status_)},
              {"taskOutcome", counts_json(task_outcome_)},
              {"result", counts_json(result_)},
              {"resultSource", counts_json(result_source_)},
              {"successRate", number_or_null(success_rate())},
              {"successInterval", success_interval()},
              {"inputTokens", input_tokens_.to_json()},
              {"cachedInputTokens", cached_input_tokens_.to_json()},
              {"outputTokens", output_tokens_.to_json()},
              {"totalTokens", total_tokens_.to_json()},
              {"costUsd", cost_usd_.values.empty() ? Json(nullptr) : cost_usd_.to_json()},
              {"reportedCostUsd", reported_cost_usd_.values.empty() ? Json(nullptr) : reported_cost_usd_.to_json()},
              {"durationMs", duration_ms_.to_json()},
              {"evidence", {{"withEvidence", static_cast<double>(with_evidence_)},
                            {"coverage", number_or_null(metric("evidence-citation-rate"))},
                            {"meanIds", executions_ == 0 ? Json(nullptr) : Json(static_cast<double>(evidence_ids_) / executions_)}}},
              {"acceptanceChecks", {{"passed", checks_passed_}, {"total", checks_total_}}},
              {"errorCodes", counts_json(error_codes_)}};
  return out;
}

const std::vector<std::pair<std::string, bool>>& metric_ids() {
  static const std::vector<std::pair<std::string, bool>> all = [] {
    std::vector<std::pair<std::string, bool>> ids{{"task-success", true},
                                                  {"tokens-to-answer", false},
                                                  {"time-to-answer", false},
                                                  {"evidence-citation-rate", true},
                                                  {"study-cost", false}};
    for (const auto& [metric_id, measurement] : rate_metrics()) ids.emplace_back(metric_id, true);
    return ids;
  }();
  return all;
}

std::optional<bool> larger_is_better(const std::string& metric_id) {
  for (const auto& [id, larger] : metric_ids())
    if (id == metric_id) return larger;
  return std::nullopt;
}

void StudyMetrics::add(const Json& observation) {
  ++observations_;
  const Json& task = observation["task"];
  arms_[{str(task["modelId"]), str(task["scenarioId"])}].add(observation);
}

bool StudyMetrics::any_verified() const {
  for (const auto& [key, arm] : arms_)
    if (arm.verified().any_verified()) return true;
  return false;
}

Json StudyMetrics::to_json() const {
  Json out = Json::array();
  const bool verified = any_verified();  // a ledger without --verify keeps its report as it was
  for (const auto& [key, arm] : arms_) {
    Json entry = {{"modelId", key.first}, {"scenarioId", key.second}};
    const Json values = arm.to_json();  // held: items() of a temporary would dangle
    for (const auto& [name, value] : values.items()) entry[name] = value;
    if (verified) entry["verified"] = arm.verified().to_json();
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace strata::model
