#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <vector>

#include "strata/engine/budget_gate.hpp"
#include "strata/engine/spend_budget.hpp"

using strata::engine::BudgetGate;
using strata::engine::Spend;
using strata::engine::SpendBudget;
using strata::engine::SpendLimits;
using strata::model::Json;
namespace asio = boost::asio;

TEST_CASE("worst case of an attempt: the token budget at the entry's highest rate", "[budget]") {
  const Json pricing = {{"currency", "USD"}, {"inputPerMillionUsd", 1.25}, {"cachedInputPerMillionUsd", 0.125},
                        {"outputPerMillionUsd", 10}};
  const Spend priced = strata::engine::worst_attempt(400000, &pricing);
  CHECK(priced.tokens == 400000);
  CHECK(priced.cost_usd == Approx(4.0));
  const Spend unpriced = strata::engine::worst_attempt(1000, nullptr);
  CHECK(unpriced.tokens == 1000);
  CHECK(unpriced.cost_usd == 0);
}

TEST_CASE("what an observation reports, and nothing when it reports no tokens", "[budget]") {
  const Json observation = {{"execution", {{"inputTokens", 600}, {"outputTokens", 400}}},
                            {"measurements", {{"agentCostUsd", 0.0014}}}};
  const auto spend = strata::engine::reported_spend(observation);
  REQUIRE(spend);
  CHECK(spend->tokens == 1000);
  CHECK(spend->cost_usd == 0.0014);
  CHECK_FALSE(strata::engine::reported_spend(Json{{"execution", {{"status", "failed"}}}}));
  // Without configured pricing an agent CLI's own figure is what was spent (issue 36); with it, the pricing's.
  const Json reported = {{"execution", {{"inputTokens", 600}, {"outputTokens", 400}}},
                         {"measurements", {{"agentReportedCostUsd", 0.02}}}};
  CHECK(strata::engine::reported_spend(reported)->cost_usd == 0.02);
  const Json both = {{"execution", {{"inputTokens", 600}, {"outputTokens", 400}}},
                     {"measurements", {{"agentReportedCostUsd", 0.02}, {"agentCostUsd", 0.0014}}}};
  CHECK(strata::engine::reported_spend(both)->cost_usd == 0.0014);
  const Json judged = {{"measurements", {{"adjudicatorInputTokens", 100}, {"adjudicatorOutputTokens", 30},
                                         {"adjudicatorCostUsd", 0.0003}}}};
  const auto judge = strata::engine::reported_judge_spend(judged);
  REQUIRE(judge);
  CHECK(judge->tokens == 130);
  CHECK(judge->cost_usd == 0.0003);
  CHECK_FALSE(strata::engine::reported_judge_spend(Json{{"measurements", {{"adjudicatorInputTokens", 100}}}}));
}

TEST_CASE("reservations and settlements against both limits", "[budget]") {
  SpendBudget budget(SpendLimits{3000.0, 0.006});
  const Spend worst{1000, 0.002};
  for (int i = 0; i < 3; ++i) {
    REQUIRE(budget.fits(worst));
    budget.reserve(worst);
  }
  CHECK_FALSE(budget.fits(worst));  // exactly at both limits: a fourth cannot fit
  CHECK(budget.reservations() == 3);
  budget.settle(worst, Spend{500, 0.0007});  // real usage frees room
  CHECK(budget.fits(Spend{500, 0.0013}));
  CHECK_FALSE(budget.fits(Spend{501, 0.0}));
  CHECK_FALSE(budget.fits(Spend{0, 0.00131}));
  budget.settle(worst, worst);
  budget.settle(worst, worst);
  CHECK(budget.reservations() == 0);
  CHECK(budget.reserved().tokens == 0);
  CHECK(budget.spent().tokens == 2500);
  CHECK(budget.spent().cost_usd == Approx(0.0047));
}

TEST_CASE("costs that sum to the limit with binary noise still fit", "[budget]") {
  SpendBudget budget(SpendLimits{std::nullopt, 0.3});
  for (int i = 0; i < 3; ++i) {  // 0.1 + 0.1 + 0.1 > 0.3 in doubles
    REQUIRE(budget.fits(Spend{0, 0.1}));
    budget.reserve(Spend{0, 0.1});
    budget.settle(Spend{0, 0.1}, Spend{0, 0.1});
  }
  CHECK_FALSE(budget.fits(Spend{0, 0.00000001}));
}

TEST_CASE("the gate: a worst case waits for settlements, and is refused once nothing is in flight", "[budget]") {
  asio::io_context io(1);
  BudgetGate gate(io, SpendLimits{2500.0, std::nullopt});
  const Spend worst{1000, 0};
  std::vector<int> admitted, refused;
  const auto request = [&](int id) -> asio::awaitable<void> {
    if (co_await gate.admit(worst))
      admitted.push_back(id);
    else
      refused.push_back(id);
  };
  for (int id = 0; id < 4; ++id) asio::co_spawn(io, request(id), asio::detached);
  io.poll();
  CHECK(admitted == std::vector<int>{0, 1});
  CHECK(refused.empty());  // 2 and 3 wait: what runs may free room
  const Spend little{400, 0};
  gate.settle(worst, little);  // 400 spent + 1000 reserved: 2 fits, 3 not yet
  io.poll();
  CHECK(admitted == std::vector<int>{0, 1, 2});
  CHECK(refused.empty());
  gate.settle(worst, worst);  // 1400 spent + 1000 reserved: 3 still waits for 2
  io.poll();
  CHECK(refused.empty());
  gate.settle(worst, worst);  // 2400 spent, nothing in flight: 3 can never fit
  io.poll();
  CHECK(refused == std::vector<int>{3});
  CHECK(gate.reached());
  CHECK(gate.budget().spent().tokens == 2400);
  io.restart();  // it ran out of work
  asio::co_spawn(io, request(4), asio::detached);
  io.poll();
  CHECK(refused == std::vector<int>{3, 4});  // nothing starts after the budget is reached
}

TEST_CASE("the gate: closing it (a signal, a failure) refuses waiters without 'reached'", "[budget]") {
  asio::io_context io(1);
  BudgetGate gate(io, SpendLimits{1000.0, std::nullopt});
  int refused = 0;
  const Spend worst{1000, 0};  // a named value: no aggregate temporary inside co_await (g++ 12)
  const auto request = [&]() -> asio::awaitable<void> {
    if (!co_await gate.admit(worst)) ++refused;
  };
  asio::co_spawn(io, request(), asio::detached);
  asio::co_spawn(io, request(), asio::detached);
  io.poll();
  CHECK(refused == 0);
  gate.close();
  io.poll();
  CHECK(refused == 1);
  CHECK_FALSE(gate.reached());
}

TEST_CASE("the gate without limits admits at once", "[budget]") {
  asio::io_context io(1);
  BudgetGate gate(io, SpendLimits{});
  int admitted = 0;
  const Spend huge{1e12, 1e9};
  const auto request = [&]() -> asio::awaitable<void> {
    if (co_await gate.admit(huge)) ++admitted;
  };
  for (int i = 0; i < 3; ++i) asio::co_spawn(io, request(), asio::detached);
  io.poll();
  CHECK(admitted == 3);
}
