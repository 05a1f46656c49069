#include "strata/model/results/cluster_robust.hpp"

#include <cmath>
#include <map>

#include <boost/math/distributions/students_t.hpp>

namespace strata::model {
namespace {

// G / (G - 1) * sum over clusters of (the cluster's sum of scores)^2 / n^2: the CR1 variance of
// a mean whose pairs have the given scores (deviations, or influences, summing to 0).
double cluster_variance(const std::vector<double>& scores, const std::vector<std::string>& clusters, std::size_t& count) {
  const double n = static_cast<double>(scores.size());
  double sum_of_squares = 0;
  if (clusters.empty()) {
    for (const double s : scores) sum_of_squares += s * s;
    count = scores.size();
  } else {
    std::map<std::string, double> sums;
    for (std::size_t i = 0; i < scores.size(); ++i) sums[clusters[i]] += scores[i];
    for (const auto& [name, sum] : sums) sum_of_squares += sum * sum;
    count = sums.size();
  }
  const double g = static_cast<double>(count);
  return count < 2 ? 0 : g / (g - 1) * sum_of_squares / (n * n);
}

// The estimate, interval (on the log scale for a ratio) and design effect from the scores.
std::optional<ClusteredEstimate> estimate_from(double estimate, const std::vector<double>& scores,
                                               const std::vector<std::string>& clusters, bool log_scale) {
  ClusteredEstimate out;
  const double variance = cluster_variance(scores, clusters, out.clusters);
  if (out.clusters < kMinClusters) return std::nullopt;
  std::size_t pairs = 0;
  const double plain = cluster_variance(scores, {}, pairs);
  out.estimate = estimate;
  out.standard_error = std::sqrt(variance);
  out.design_effect = plain > 0 ? variance / plain : 1;
  const boost::math::students_t_distribution<double> t(static_cast<double>(out.clusters - 1));
  const double half = boost::math::quantile(t, 0.975) * out.standard_error;
  if (log_scale)
    out.interval = {std::exp(std::log(estimate) - half), std::exp(std::log(estimate) + half)};
  else
    out.interval = {estimate - half, estimate + half};
  return out;
}

double mean_of(const std::vector<double>& values) {
  double sum = 0;
  for (const double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

}  // namespace

std::optional<ClusteredEstimate> clustered_mean(const std::vector<double>& values, const std::vector<std::string>& clusters) {
  if (values.size() < 2) return std::nullopt;
  const double mean = mean_of(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (const double v : values) deviations.push_back(v - mean);
  return estimate_from(mean, deviations, clusters, false);
}

std::optional<ClusteredEstimate> ratio_of_means(const std::vector<double>& baseline, const std::vector<double>& current,
                                                const std::vector<std::string>& clusters) {
  if (baseline.size() < 2 || baseline.size() != current.size()) return std::nullopt;
  const double base_mean = mean_of(baseline), current_mean = mean_of(current);
  if (!(base_mean > 0) || !(current_mean > 0)) return std::nullopt;
  std::vector<double> influences;
  influences.reserve(baseline.size());
  for (std::size_t i = 0; i < baseline.size(); ++i) influences.push_back(current[i] / current_mean - baseline[i] / base_mean);
  return estimate_from(current_mean / base_mean, influences, clusters, true);
}

}  // namespace strata::model
