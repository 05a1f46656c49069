#pragma once
// The launch side of a run-wide budget, on the event loop: an execution (or judgement) is
// admitted only when its worst case fits beside what was spent and what is reserved by those in
// flight. One that does not fit waits while others are in flight (their settlement may free
// room: real usage is usually far below the worst case) and is refused once nothing is in
// flight and it still does not fit: the budget is reached, and nothing is launched after that.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "strata/engine/spend_budget.hpp"

namespace strata::engine {

class BudgetGate {
 public:
  BudgetGate(boost::asio::io_context& io, SpendLimits limits);

  // True when `worst` is now reserved; false when the budget is reached (or was already).
  // Without limits, always true at once.
  boost::asio::awaitable<bool> admit(Spend worst);
  // Ends an admitted reservation with what was really spent; wakes those waiting.
  void settle(const Spend& reserved, const Spend& actual);
  // The run is stopping (a signal, a failure): every waiter is refused, without "reached".
  void close();

  bool limited() const { return budget_.limits().any(); }
  bool reached() const { return reached_; }
  const SpendBudget& budget() const { return budget_; }

 private:
  SpendBudget budget_;
  boost::asio::steady_timer settled_;  // cancelled on every settlement: wakes every waiter
  bool reached_ = false, closed_ = false;
};

}  // namespace strata::engine
