#include "strata/engine/budget_gate.hpp"

#include "strata/exec/awaitable_tuple.hpp"

namespace strata::engine {

namespace asio = boost::asio;
using exec::kTuple;

BudgetGate::BudgetGate(asio::io_context& io, SpendLimits limits) : budget_(limits), settled_(io) {
  settled_.expires_at(asio::steady_timer::time_point::max());
}

asio::awaitable<bool> BudgetGate::admit(Spend worst) {
  if (!limited()) co_return true;
  while (!reached_ && !closed_) {
    if (budget_.fits(worst)) {
      budget_.reserve(worst);
      co_return true;
    }
    if (budget_.reservations() == 0) {  // nothing in flight can free room: this is the end
      reached_ = true;
      settled_.cancel();  // and every other waiter learns it now
      break;
    }
    co_await settled_.async_wait(kTuple);
  }
  co_return false;
}

void BudgetGate::close() {
  closed_ = true;
  settled_.cancel();
}

void BudgetGate::settle(const Spend& reserved, const Spend& actual) {
  if (!limited()) return;
  budget_.settle(reserved, actual);
  settled_.cancel();
}

}  // namespace strata::engine
