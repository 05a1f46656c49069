#pragma once
// A run-wide limit on tokens and money (`--max-tokens`, `--max-cost-usd`): what this invocation
// has spent, what its executions in flight could still spend (their reservations), and whether
// one more worst case fits. Pure accounting: no clock, no I/O; the event loop's gate
// (budget_gate.hpp) waits on it.
#include <optional>

#include "strata/model/json/json.hpp"

namespace strata::engine {

struct Spend {
  double tokens = 0;
  double cost_usd = 0;
};

struct SpendLimits {
  std::optional<double> max_tokens;
  std::optional<double> max_cost_usd;
  bool any() const { return max_tokens.has_value() || max_cost_usd.has_value(); }
};

// The most one attempt can spend: the plan's per-task token budget (`budget.maxTokens`), every
// token priced at the entry's highest rate (`pricing`; cost 0 without pricing, which a cost
// limit refuses before the run).
Spend worst_attempt(double max_tokens, const model::Json* pricing);

// What an observation says it spent: its input and output tokens, and the cost recorded for
// them (the entry's pricing, cached input at its own rate); nullopt when it reports no usage.
std::optional<Spend> reported_spend(const model::Json& observation);
// The same for the judgement in an adjudicated observation (adjudicatorInputTokens, ...).
std::optional<Spend> reported_judge_spend(const model::Json& observation);

class SpendBudget {
 public:
  explicit SpendBudget(SpendLimits limits) : limits_(limits) {}

  const SpendLimits& limits() const { return limits_; }
  // True when `worst` can be reserved without spent + reserved + worst passing a limit.
  bool fits(const Spend& worst) const;
  void reserve(const Spend& worst);
  // The reservation `reserved` is over: `actual` is spent instead.
  void settle(const Spend& reserved, const Spend& actual);
  const Spend& spent() const { return spent_; }
  const Spend& reserved() const { return reserved_; }
  int reservations() const { return reservations_; }

 private:
  SpendLimits limits_;
  Spend spent_, reserved_;
  int reservations_ = 0;
};

}  // namespace strata::engine
