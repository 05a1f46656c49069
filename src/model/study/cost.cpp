#include "strata/model/study/cost.hpp"

#include <algorithm>

#include "strata/model/json/ecmascript_number.hpp"

namespace strata::model {

Pricing pricing_from(const Json& pricing) {
  return Pricing{pricing["inputPerMillionUsd"].get<double>(), pricing["cachedInputPerMillionUsd"].get<double>(),
                 pricing["outputPerMillionUsd"].get<double>()};
}

std::optional<double> cost_usd(const Pricing& pricing, std::optional<double> input_tokens,
                               std::optional<double> cached_input_tokens, std::optional<double> output_tokens) {
  if (!input_tokens || !output_tokens) return std::nullopt;
  const double cached_used = std::min(cached_input_tokens.value_or(0), *input_tokens);
  const double uncached = *input_tokens - cached_used;
  // Same operation order as the reference, so the doubles match before rounding.
  const double raw = (uncached * pricing.input_per_million + cached_used * pricing.cached_input_per_million +
                      *output_tokens * pricing.output_per_million) /
                     1000000;
  return round_to_fixed(raw, 8);
}

double spent_cost_usd(const Json& measurements) {
  for (const char* name : {"agentCostUsd", "agentReportedCostUsd"}) {
    const auto found = measurements.find(name);
    if (found != measurements.end() && found->is_number()) return found->get<double>();
  }
  return 0;
}

}  // namespace strata::model
