#pragma once
// Intervals that respect a design whose pairs come in clusters (tasks of one repository or one
// category move together): the cluster-robust (CR1, Liang-Zeger with the G / (G - 1) correction)
// variance of a mean and of a ratio of means, with Student's t on G - 1 degrees of freedom
// (docs/METRICS.md "Clustered intervals"). Pure.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "strata/model/results/statistics.hpp"

namespace strata::model {

// Fewer clusters than this leave too few degrees of freedom for the variance: no clustered
// interval is given (t on 3 degrees of freedom is 3.18, and the variance itself is then
// estimated from 4 sums).
inline constexpr std::size_t kMinClusters = 5;

struct ClusteredEstimate {
  double estimate = 0;        // the mean, or the ratio of means
  Interval interval;          // 95%
  double standard_error = 0;  // of the mean, or of the log of the ratio
  std::size_t clusters = 0;
  // (clustered standard error / the same with every pair its own cluster)^2: how much the
  // clustering widens the interval; 1 for independent pairs.
  double design_effect = 1;
};

// The mean of `values` and its 95% interval; clusters[i] names the cluster of values[i] (an
// empty `clusters`: every value its own cluster). nullopt below kMinClusters clusters.
std::optional<ClusteredEstimate> clustered_mean(const std::vector<double>& values, const std::vector<std::string>& clusters);

// The ratio of means sum(current) / sum(baseline) of paired values and its 95% interval, on the
// log scale by the delta method (the influence of pair i: current_i / mean(current) -
// baseline_i / mean(baseline)); clusters as above. nullopt below kMinClusters clusters or when
// either mean is not positive.
std::optional<ClusteredEstimate> ratio_of_means(const std::vector<double>& baseline, const std::vector<double>& current,
                                                const std::vector<std::string>& clusters);

}  // namespace strata::model
