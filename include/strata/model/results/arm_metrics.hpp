#pragma once
// Per-arm aggregates of a study's observations (`strata metrics`, docs/METRICS.md): an arm is a
// model x scenario. Pure arithmetic over observations already verified; no statistics that
// need a distribution (those are model/results/statistics).
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "strata/model/json/json.hpp"
#include "strata/model/results/verified_agreement.hpp"

namespace strata::model {

// Quantile q of the values by linear interpolation between closest ranks (numpy's default,
// Hyndman-Fan type 7). nullopt for no values.
std::optional<double> quantile(std::vector<double> values, double q);
// The same of values already sorted (not empty).
double sorted_quantile(const std::vector<double>& values, double q);

// total, median, p90 and the box-plot quantiles (min, p25, p75, max) of the executions that
// report a value, and how many do.
struct Distribution {
  std::vector<double> values;
  void add(double value) { values.push_back(value); }
  Json to_json() const;  // {"reported", "total", "median", "p90", "min", "p25", "p75", "max"}; null when none
};

class ArmMetrics {
 public:
  void add(const Json& observation);

  std::size_t executions() const { return executions_; }
  // success / decided (pending excluded); nullopt while nothing is decided.
  std::optional<double> success_rate() const;
  // The 95% Wilson interval of success_rate() as [low, high]; null while nothing is decided.
  Json success_interval() const;
  // The value a protocol metric id stands for, and whether a larger value is better; nullopt
  // for an id with no value here (see metric_ids()).
  std::optional<double> metric(const std::string& metric_id) const;
  // What the verifier found against the claims (--verify); StudyMetrics shows it when any arm has it.
  const VerifiedAgreement& verified() const { return verified_; }
  Json to_json() const;

 private:
  double count_of(const char* result) const;  // executions whose adjudicated result is `result`

  std::size_t executions_ = 0, with_evidence_ = 0, evidence_ids_ = 0;
  std::map<std::string, double> status_, task_outcome_, result_, result_source_, error_codes_;
  Distribution input_tokens_, cached_input_tokens_, output_tokens_, total_tokens_, duration_ms_;
  Distribution cost_usd_;           // measurements.agentCostUsd: configured pricing (study-v1 §3.9)
  Distribution reported_cost_usd_;  // measurements.agentReportedCostUsd: the agent CLI's own figure
  double checks_passed_ = 0, checks_total_ = 0;
  std::map<std::string, Distribution> rate_measurements_;  // documentation*Rate, for their metric ids
  VerifiedAgreement verified_;
};

// The protocol metric ids Strata computes, each with whether a larger value is better.
const std::vector<std::pair<std::string, bool>>& metric_ids();
std::optional<bool> larger_is_better(const std::string& metric_id);

using ArmKey = std::pair<std::string, std::string>;  // (modelId, scenarioId)

// The arms of a set of observations, in (model, scenario) order.
class StudyMetrics {
 public:
  void add(const Json& observation);
  const std::map<ArmKey, ArmMetrics>& arms() const { return arms_; }
  std::size_t observations() const { return observations_; }
  // [{"modelId", "scenarioId", ...ArmMetrics}], each with "verified" (VerifiedAgreement) when
  // any observation has a verified record.
  Json to_json() const;
  bool any_verified() const;

 private:
  std::map<ArmKey, ArmMetrics> arms_;
  std::size_t observations_ = 0;
};

}  // namespace strata::model
