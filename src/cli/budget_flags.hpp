#pragma once
// The run-wide budget options of `strata run` and `strata adjudicate` (--max-tokens,
// --max-cost-usd) and how a summary shows what was spent against them.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "strata/engine/spend_budget.hpp"
#include "strata/model/json/json.hpp"

namespace strata::cli {

// The exit status of a command that stopped launching because its budget was reached.
inline constexpr int kBudgetReachedExit = 4;

struct BudgetFlags {
  double max_tokens = -1, max_cost_usd = -1;  // negative: not given
  engine::SpendLimits limits() const;
};

// --max-tokens N, --max-cost-usd X (group "Budget"); `what` names the unit launched
// ("execution", "judgement") in the help text.
void add_budget_flags(CLI::App& command, BudgetFlags& flags, const std::string& what);

// {"maxTokens"?, "maxCostUsd"?, "spentTokens", "spentCostUsd", "runTotalTokens"?, "runTotalCostUsd"?}
model::Json budget_summary(const engine::SpendLimits& limits, const engine::Spend& spent,
                           const std::optional<engine::Spend>& run_total);
// "Spent: ...", and "Run total in the ledger: ..." when known, from budget_summary().
std::vector<std::string> budget_lines(const model::Json& budget);

}  // namespace strata::cli
