#include "strata/engine/spend_budget.hpp"

#include <algorithm>

#include "strata/model/study/cost.hpp"

namespace strata::engine {
namespace {

// Recorded costs are rounded to 1e-8 USD (spec §3.9); sums of such doubles carry binary
// rounding noise far below that step, which must not turn "exactly at the limit" into "past it".
constexpr double kCostTolerance = 5e-9;

double number_or(const model::Json& object, const char* name, double fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(name);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace

Spend worst_attempt(double max_tokens, const model::Json* pricing) {
  Spend worst{max_tokens, 0};
  if (pricing != nullptr && pricing->is_object()) {
    const model::Pricing rates = model::pricing_from(*pricing);
    const double highest = std::max({rates.input_per_million, rates.cached_input_per_million, rates.output_per_million});
    worst.cost_usd = max_tokens * highest / 1000000;
  }
  return worst;
}

std::optional<Spend> reported_spend(const model::Json& observation) {
  const model::Json& execution = observation["execution"];
  if (!execution.contains("inputTokens") || !execution.contains("outputTokens")) return std::nullopt;
  Spend spend{execution["inputTokens"].get<double>() + execution["outputTokens"].get<double>(), 0};
  if (observation.contains("measurements")) spend.cost_usd = model::spent_cost_usd(observation["measurements"]);
  return spend;
}

std::optional<Spend> reported_judge_spend(const model::Json& observation) {
  if (!observation.contains("measurements")) return std::nullopt;
  const model::Json& measurements = observation["measurements"];
  const double input = number_or(measurements, "adjudicatorInputTokens", -1);
  const double output = number_or(measurements, "adjudicatorOutputTokens", -1);
  if (input < 0 || output < 0) return std::nullopt;
  return Spend{input + output, number_or(measurements, "adjudicatorCostUsd", 0)};
}

bool SpendBudget::fits(const Spend& worst) const {
  if (limits_.max_tokens && spent_.tokens + reserved_.tokens + worst.tokens > *limits_.max_tokens) return false;
  if (limits_.max_cost_usd &&
      spent_.cost_usd + reserved_.cost_usd + worst.cost_usd > *limits_.max_cost_usd + kCostTolerance)
    return false;
  return true;
}

void SpendBudget::reserve(const Spend& worst) {
  reserved_.tokens += worst.tokens;
  reserved_.cost_usd += worst.cost_usd;
  ++reservations_;
}

void SpendBudget::settle(const Spend& reserved, const Spend& actual) {
  reserved_.tokens -= reserved.tokens;
  reserved_.cost_usd -= reserved.cost_usd;
  if (--reservations_ == 0) reserved_ = {};  // no drift left behind by the subtractions
  spent_.tokens += actual.tokens;
  spent_.cost_usd += actual.cost_usd;
}

}  // namespace strata::engine
