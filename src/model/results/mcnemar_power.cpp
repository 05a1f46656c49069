#include "strata/model/results/mcnemar_power.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>

namespace strata::model {
namespace {

// The largest k with 2 * P[Binomial(d, 1/2) <= k] <= alpha, -1 when none: the exact test rejects
// when the smaller discordant count is at most k (the rule of mcnemar_exact_p, p <= alpha).
long critical_count(std::size_t discordant, double alpha) {
  if (discordant == 0) return -1;
  const boost::math::binomial_distribution<double> fair(static_cast<double>(discordant), 0.5);
  const auto rejects = [&](long k) { return 2 * boost::math::cdf(fair, static_cast<double>(k)) <= alpha; };
  // Start near the answer (the quantile), then step to it exactly.
  long k = static_cast<long>(std::floor(boost::math::quantile(fair, alpha / 2)));
  k = std::min(k, static_cast<long>(discordant) - 1);
  while (k >= 0 && !rejects(k)) --k;
  while (k + 1 < static_cast<long>(discordant) && rejects(k + 1)) ++k;
  return k;
}

// P[reject | d discordant pairs] when a discordant pair favours the current arm with
// probability q: P[C <= k] + P[C >= d - k] (the two tails never meet: k < d / 2).
double conditional_power(std::size_t discordant, long k, double q) {
  if (k < 0) return 0;
  if (q <= 0 || q >= 1) return 1;  // every discordant pair one way: min(b, c) = 0 <= k
  const double d = static_cast<double>(discordant);
  const boost::math::binomial_distribution<double> current(d, q);
  const double lower = boost::math::cdf(current, static_cast<double>(k));
  const double upper = boost::math::cdf(boost::math::complement(current, d - static_cast<double>(k) - 1));
  return lower + upper;
}

// The critical counts of one alpha, by discordant count, computed when first needed: shared by
// the power curves of a search over effects.
class CriticalCounts {
 public:
  explicit CriticalCounts(double alpha) : alpha_(alpha) {}
  long at(std::size_t discordant) {
    if (counts_.size() <= discordant) counts_.resize(discordant + 1, kUnknown);
    long& k = counts_[discordant];
    if (k == kUnknown) k = critical_count(discordant, alpha_);
    return k;
  }

 private:
  static constexpr long kUnknown = -2;
  double alpha_;
  std::vector<long> counts_;
};

// The power over n pairs for one (effect, discordance, alpha): the conditional power of each
// discordant count is computed when first needed and reused for every n (a sample size search
// evaluates thousands of neighbouring n).
class PowerCurve {
 public:
  PowerCurve(double effect, double discordance, CriticalCounts& critical)
      : q_((discordance + effect) / (2 * discordance)), discordance_(discordance), critical_(critical) {}

  double at(std::size_t pairs) {
    if (discordance_ >= 1) return conditional(pairs);
    const double n = static_cast<double>(pairs);
    // Binomial(n, discordance) weights, only where they are not negligible (12 standard
    // deviations: the mass outside is far below 1e-30).
    const double mean = n * discordance_, spread = 12 * std::sqrt(n * discordance_ * (1 - discordance_)) + 2;
    const auto low = static_cast<std::size_t>(std::max(0.0, std::floor(mean - spread)));
    const auto high = static_cast<std::size_t>(std::min(n, std::ceil(mean + spread)));
    const double log_p = std::log(discordance_), log_not = std::log1p(-discordance_);
    const double log_n = std::lgamma(n + 1);
    double power = 0;
    for (std::size_t d = low; d <= high; ++d) {
      const double k = static_cast<double>(d);
      const double log_weight = log_n - std::lgamma(k + 1) - std::lgamma(n - k + 1) + k * log_p + (n - k) * log_not;
      power += std::exp(log_weight) * conditional(d);
    }
    return std::min(1.0, power);
  }

 private:
  double conditional(std::size_t discordant) {
    if (conditional_.size() <= discordant) conditional_.resize(discordant + 1, -1);
    double& value = conditional_[discordant];
    if (value < 0) value = conditional_power(discordant, critical_.at(discordant), q_);
    return value;
  }

  double q_, discordance_;
  CriticalCounts& critical_;
  std::vector<double> conditional_;  // by discordant count; -1 until computed
};

double z(double p) { return boost::math::quantile(boost::math::normal_distribution<double>(), p); }

}  // namespace

double mcnemar_power(std::size_t pairs, double effect, double discordance, double alpha) {
  CriticalCounts critical(alpha);
  return PowerCurve(effect, discordance, critical).at(pairs);
}

std::optional<double> mcnemar_minimum_detectable_effect(std::size_t pairs, double discordance, double alpha, double power) {
  CriticalCounts critical(alpha);
  const auto power_at = [&](double effect) { return PowerCurve(effect, discordance, critical).at(pairs); };
  if (power_at(discordance) < power) return std::nullopt;
  // The power grows with the effect (the conditional test's tails move apart): bisect on a
  // grid of 1e-6 so that the answer is a grid point whose power reaches the target.
  long low = 0, high = static_cast<long>(std::ceil(discordance * 1e6));
  while (high - low > 1) {
    const long middle = low + (high - low) / 2;
    if (power_at(std::min(discordance, static_cast<double>(middle) / 1e6)) >= power)
      high = middle;
    else
      low = middle;
  }
  return std::min(discordance, static_cast<double>(high) / 1e6);
}

std::optional<std::size_t> mcnemar_pairs_needed(double effect, double discordance, double alpha, double power) {
  effect = std::fabs(effect);
  if (effect == 0) return std::nullopt;
  const double root = z(1 - alpha / 2) * std::sqrt(discordance) + z(power) * std::sqrt(discordance - effect * effect);
  const double normal = root * root / (effect * effect);
  if (normal * 0.75 > static_cast<double>(kMaxPowerPairs)) return std::nullopt;
  CriticalCounts critical(alpha);
  PowerCurve curve(effect, discordance, critical);
  for (auto n = static_cast<std::size_t>(std::max(1.0, std::floor(normal * 0.75))); n <= kMaxPowerPairs; ++n)
    if (curve.at(n) >= power) return n;
  return std::nullopt;
}

}  // namespace strata::model
