#include "budget_flags.hpp"

#include <cmath>

#include "command.hpp"
#include "strata/model/json/ecmascript_number.hpp"

namespace strata::cli {
namespace {

// A limit is a finite number >= 0 (CLI11's NonNegativeNumber lets "nan" through).
std::string limit_error(const std::string& text) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value) && value >= 0) return {};
  } catch (const std::exception&) {
  }
  return "must be a finite number >= 0, got '" + text + "'";
}

// Sums of costs rounded to 1e-8 USD carry binary noise: show them at that step.
double usd(double value) { return model::round_to_fixed(value, 8); }

}  // namespace

engine::SpendLimits BudgetFlags::limits() const {
  engine::SpendLimits limits;
  if (max_tokens >= 0) limits.max_tokens = std::floor(max_tokens);
  if (max_cost_usd >= 0) limits.max_cost_usd = max_cost_usd;
  return limits;
}

void add_budget_flags(CLI::App& command, BudgetFlags& flags, const std::string& what) {
  const CLI::Validator limit(limit_error, "LIMIT");
  command.add_option("--max-tokens", flags.max_tokens,
                     "Tokens (input + output) this invocation may spend; no " + what + " starts whose worst case could pass it")
      ->group("Budget")
      ->check(limit)
      ->check(CLI::Validator(
          [](const std::string& text) {
            return text.find_first_not_of("0123456789") == std::string::npos ? std::string{} : "must be a whole number";
          },
          "N"));
  command.add_option("--max-cost-usd", flags.max_cost_usd,
                     "USD this invocation may spend (every provider entry used needs pricing); no " + what +
                         " starts whose worst case could pass it")
      ->group("Budget")
      ->check(limit);
}

model::Json budget_summary(const engine::SpendLimits& limits, const engine::Spend& spent,
                           const std::optional<engine::Spend>& run_total) {
  model::Json budget = model::Json::object();
  if (limits.max_tokens) budget["maxTokens"] = *limits.max_tokens;
  if (limits.max_cost_usd) budget["maxCostUsd"] = *limits.max_cost_usd;
  budget["spentTokens"] = spent.tokens;
  budget["spentCostUsd"] = usd(spent.cost_usd);
  if (run_total) {
    budget["runTotalTokens"] = run_total->tokens;
    budget["runTotalCostUsd"] = usd(run_total->cost_usd);
  }
  return budget;
}

std::vector<std::string> budget_lines(const model::Json& budget) {
  std::string limit;
  if (budget.contains("maxTokens")) limit += number_text(budget["maxTokens"]) + " tokens";
  if (budget.contains("maxCostUsd")) limit += (limit.empty() ? "$" : ", $") + number_text(budget["maxCostUsd"]);
  std::vector<std::string> lines{"Spent: " + number_text(budget["spentTokens"]) + " tokens, $" +
                                 number_text(budget["spentCostUsd"]) + " (limit " + limit + ")"};
  if (budget.contains("runTotalTokens"))
    lines.push_back("Run total in the ledger: " + number_text(budget["runTotalTokens"]) + " tokens, $" +
                    number_text(budget["runTotalCostUsd"]));
  return lines;
}

}  // namespace strata::cli
