#pragma once
// The statistics of a paired comparison of two arms (`strata metrics`, `strata report`;
// docs/METRICS.md): intervals and tests on Boost.Math's distributions, no hand-written special
// functions. Pure; every function is checked against SciPy in the tests.
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace strata::model {

struct Interval {
  double low = 0, high = 0;
};

// The 95% Wilson score interval of a proportion successes / n (n > 0).
Interval wilson_interval(std::size_t successes, std::size_t n);

// The exact two-sided McNemar test on the discordant pairs: b (baseline succeeded, current
// failed) and c (the reverse); p = min(1, 2 * P[Binomial(b + c, 1/2) <= min(b, c)]). nullopt
// when there is no discordant pair (nothing to test).
std::optional<double> mcnemar_exact_p(std::size_t b, std::size_t c);

// The 95% interval of the paired difference in success rate (current - baseline) over n pairs
// with b and c as above: Agresti and Min's (2005) adjusted Wald interval (half a pair added to
// each cell of the 2x2 table), clipped to [-1, 1].
Interval paired_proportion_difference_interval(std::size_t b, std::size_t c, std::size_t n);

// The Wilcoxon signed-rank test of paired differences (zeros dropped, as SciPy's default
// zero_method="wilcox"): the statistic T = the smaller of the positive and negative rank sums,
// and the two-sided p-value, exact (the null distribution enumerated) when at most 50 non-zero
// differences remain and none were dropped and no |difference| is tied, else the normal
// approximation with the tie correction and no continuity correction (SciPy's "approx").
// nullopt below kMinWilcoxonPairs non-zero differences (no p-value can be small there).
struct SignedRankTest {
  double statistic = 0;
  double p_value = 1;
  bool exact = false;
  std::size_t pairs = 0;  // non-zero differences
};
inline constexpr std::size_t kMinWilcoxonPairs = 6;
std::optional<SignedRankTest> wilcoxon_signed_rank(const std::vector<double>& differences);

// The Hodges-Lehmann estimate of the median paired difference (the median of the Walsh
// averages) and its 95% interval from the signed-rank distribution (exact for at most 50
// differences, normal beyond); nullopt below kMinWilcoxonPairs differences.
struct ShiftEstimate {
  double estimate = 0;
  Interval interval;
};
std::optional<ShiftEstimate> hodges_lehmann(const std::vector<double>& differences);

}  // namespace strata::model
