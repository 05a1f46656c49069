#pragma once
// The power of the exact McNemar test a paired comparison of success makes (`strata plan --power`,
// the findings of `strata metrics`; docs/METRICS.md "Power"). Pure, exact: no normal approximation
// is used for a result, only to decide where a search starts.
//
// The model: each of n pairs is discordant (one arm succeeds, the other fails) with probability
// `discordance`; a discordant pair favours the current arm with probability
// (discordance + effect) / (2 * discordance), so that the difference in success rate
// (current - baseline) is `effect`. The test rejects when the two-sided exact McNemar p
// (model/results/statistics) is at most alpha.
#include <cstddef>
#include <optional>

namespace strata::model {

inline constexpr double kDefaultDiscordance = 0.30;  // a pair's chance of differing between arms
inline constexpr double kDefaultAlpha = 0.05;
inline constexpr double kDefaultTargetPower = 0.80;
inline constexpr std::size_t kMaxPowerPairs = 100000;  // the largest sample size searched

// The probability that the test rejects over `pairs` pairs (0 < discordance <= 1,
// |effect| <= discordance, 0 < alpha < 1).
double mcnemar_power(std::size_t pairs, double effect, double discordance, double alpha);

// The smallest effect > 0 the test detects with at least `power` over `pairs` pairs (to 1e-6,
// rounded up, so that mcnemar_power at the result is >= power); nullopt when even
// effect = discordance is not detected so often.
std::optional<double> mcnemar_minimum_detectable_effect(std::size_t pairs, double discordance, double alpha, double power);

// The smallest number of pairs at which the test detects `effect` with at least `power`,
// searched upward from three quarters of Connor's (1987) normal approximation (the exact power
// below that is far under any target); nullopt above kMaxPowerPairs.
std::optional<std::size_t> mcnemar_pairs_needed(double effect, double discordance, double alpha, double power);

}  // namespace strata::model
