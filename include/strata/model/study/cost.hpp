#pragma once
// The cost formula of spec §3.9.
#include <optional>

#include "strata/model/json/json.hpp"

namespace strata::model {

struct Pricing {
  double input_per_million = 0;
  double cached_input_per_million = 0;
  double output_per_million = 0;
};

// The rates of a validated `pricing` object of a provider or adjudicator entry.
Pricing pricing_from(const Json& pricing);

// USD cost rounded like ECMAScript toFixed(8); nullopt when a token count is missing.
std::optional<double> cost_usd(const Pricing& pricing, std::optional<double> input_tokens,
                               std::optional<double> cached_input_tokens, std::optional<double> output_tokens);

// What an execution spent, for the budgets and the progress line: Strata's configured-pricing
// figure (measurements.agentCostUsd) when it has one, else the agent CLI's own report
// (agentReportedCostUsd, issue 36), else 0. A budget counts money spent whichever side priced it.
double spent_cost_usd(const Json& measurements);

}  // namespace strata::model
