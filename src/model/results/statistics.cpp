#include "strata/model/results/statistics.hpp"

#include <algorithm>
#include <cmath>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>

namespace strata::model {
namespace {

constexpr std::size_t kMaxExact = 50;

double z975() {
  static const double z = boost::math::quantile(boost::math::normal_distribution<double>(), 0.975);
  return z;
}

// Ranks 1..n of the values (average ranks for ties), and sum(t^3 - t) over the tie groups.
std::vector<double> average_ranks(const std::vector<double>& values, double& tie_term) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  tie_term = 0;
  for (std::size_t start = 0; start < order.size();) {
    std::size_t end = start;
    while (end + 1 < order.size() && values[order[end + 1]] == values[order[start]]) ++end;
    const double rank = (static_cast<double>(start) + static_cast<double>(end)) / 2 + 1;
    for (std::size_t k = start; k <= end; ++k) ranks[order[k]] = rank;
    const double t = static_cast<double>(end - start + 1);
    tie_term += t * t * t - t;
    start = end + 1;
  }
  return ranks;
}

// P[W+ <= w] under the null for n untied ranks, for every w in 0..n(n+1)/2: the number of
// subsets of {1..n} with each sum, over 2^n (counts as doubles: exact up to n = 50's 1.1e15).
std::vector<double> signed_rank_cdf(std::size_t n) {
  const std::size_t max_sum = n * (n + 1) / 2;
  std::vector<double> counts(max_sum + 1, 0);
  counts[0] = 1;
  for (std::size_t rank = 1; rank <= n; ++rank)
    for (std::size_t sum = max_sum; sum >= rank; --sum) counts[sum] += counts[sum - rank];
  const double total = std::ldexp(1.0, static_cast<int>(n));
  std::vector<double> cdf(max_sum + 1);
  double running = 0;
  for (std::size_t w = 0; w <= max_sum; ++w) {
    running += counts[w];
    cdf[w] = running / total;
  }
  return cdf;
}

// The first j >= i with sorted[i] + sorted[j] > sum (the sums grow with j).
std::vector<double>::const_iterator first_sum_above(const std::vector<double>& sorted, std::size_t i, double sum) {
  return std::partition_point(sorted.begin() + static_cast<std::ptrdiff_t>(i), sorted.end(),
                              [&](double value) { return sorted[i] + value <= sum; });
}

// How many pairs i <= j of the sorted values have sorted[i] + sorted[j] <= sum.
std::size_t pair_sums_at_most(const std::vector<double>& sorted, double sum) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i)
    count += static_cast<std::size_t>(first_sum_above(sorted, i, sum) - (sorted.begin() + static_cast<std::ptrdiff_t>(i)));
  return count;
}

// The k-th smallest (1-based) Walsh average (sorted[i] + sorted[j]) / 2, i <= j, without building
// the n(n+1)/2 of them: bisection on the pair sum with a counting pass (O(n log n) each) down to
// adjacent doubles low < high with count(low) < k <= count(high), so the k-th smallest sum is
// high itself; it is then taken from the pairs, so the value is exactly one of the sums.
double kth_walsh_average(const std::vector<double>& sorted, std::size_t k) {
  double low = std::nextafter(sorted.front() + sorted.front(), -INFINITY), high = sorted.back() + sorted.back();
  for (int step = 0; step < 4000; ++step) {
    const double middle = low + (high - low) / 2;
    if (middle <= low || middle >= high) break;  // adjacent doubles
    (pair_sums_at_most(sorted, middle) >= k ? high : low) = middle;
  }
  double best = -INFINITY;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const auto end = first_sum_above(sorted, i, high);
    if (end != sorted.begin() + static_cast<std::ptrdiff_t>(i)) best = std::max(best, sorted[i] + *(end - 1));
  }
  return best / 2;
}

}  // namespace

Interval wilson_interval(std::size_t successes, std::size_t n) {
  const double z = z975(), total = static_cast<double>(n), p = static_cast<double>(successes) / total;
  const double denominator = 1 + z * z / total;
  const double center = (p + z * z / (2 * total)) / denominator;
  const double half = z * std::sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator;
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

std::optional<double> mcnemar_exact_p(std::size_t b, std::size_t c) {
  if (b + c == 0) return std::nullopt;
  const boost::math::binomial_distribution<double> discordant(static_cast<double>(b + c), 0.5);
  return std::min(1.0, 2 * boost::math::cdf(discordant, static_cast<double>(std::min(b, c))));
}

Interval paired_proportion_difference_interval(std::size_t b, std::size_t c, std::size_t n) {
  const double total = static_cast<double>(n) + 2;
  const double p12 = (static_cast<double>(b) + 0.5) / total, p21 = (static_cast<double>(c) + 0.5) / total;
  const double difference = p21 - p12;
  const double half = z975() * std::sqrt((p12 + p21 - difference * difference) / total);
  return {std::max(-1.0, difference - half), std::min(1.0, difference + half)};
}

std::optional<SignedRankTest> wilcoxon_signed_rank(const std::vector<double>& differences) {
  std::vector<double> nonzero, magnitudes;
  for (const double d : differences)
    if (d != 0) {
      nonzero.push_back(d);
      magnitudes.push_back(std::fabs(d));
    }
  const std::size_t n = nonzero.size();
  if (n < kMinWilcoxonPairs) return std::nullopt;
  double tie_term = 0;
  const std::vector<double> ranks = average_ranks(magnitudes, tie_term);
  double positive = 0, negative = 0;
  for (std::size_t i = 0; i < n; ++i) (nonzero[i] > 0 ? positive : negative) += ranks[i];
  SignedRankTest test;
  test.pairs = n;
  test.statistic = std::min(positive, negative);
  test.exact = n <= kMaxExact && tie_term == 0 && n == differences.size();
  if (test.exact) {
    test.p_value = std::min(1.0, 2 * signed_rank_cdf(n)[static_cast<std::size_t>(test.statistic)]);
  } else {
    const double count = static_cast<double>(n);
    const double mean = count * (count + 1) / 4;
    const double se = std::sqrt(count * (count + 1) * (2 * count + 1) / 24 - tie_term / 48);
    const double z = (test.statistic - mean) / se;
    test.p_value = std::min(1.0, 2 * boost::math::cdf(boost::math::complement(boost::math::normal_distribution<double>(), std::fabs(z))));
  }
  return test;
}

std::optional<ShiftEstimate> hodges_lehmann(const std::vector<double>& differences) {
  const std::size_t n = differences.size();
  if (n < kMinWilcoxonPairs) return std::nullopt;
  std::vector<double> sorted = differences;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t m = n * (n + 1) / 2;  // Walsh averages: never built (16,000 pairs would make 128 million)
  ShiftEstimate shift;
  shift.estimate = m % 2 == 1 ? kth_walsh_average(sorted, m / 2 + 1)
                              : (kth_walsh_average(sorted, m / 2) + kth_walsh_average(sorted, m / 2 + 1)) / 2;
  // c: the largest count with P[W+ <= c - 1] <= 2.5%; the interval is the c-th smallest and the
  // c-th largest Walsh average (c >= 1: the widest interval when even that is too narrow).
  std::size_t c = 1;
  if (n <= kMaxExact) {
    const std::vector<double> cdf = signed_rank_cdf(n);
    while (c < m && cdf[c] <= 0.025) ++c;  // cdf[c] = P[W+ <= c]: c + 1 still qualifies
  } else {
    const double count = static_cast<double>(n);
    const double below = count * (count + 1) / 4 - z975() * std::sqrt(count * (count + 1) * (2 * count + 1) / 24);
    c = static_cast<std::size_t>(std::max(1.0, std::floor(below)));
  }
  shift.interval = {kth_walsh_average(sorted, c), kth_walsh_average(sorted, m + 1 - c)};
  return shift;
}

}  // namespace strata::model
