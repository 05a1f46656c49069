#include "strata/net/rate_limit.hpp"
#include "strata/exec/awaitable_tuple.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <utility>

namespace strata::net {
namespace {

namespace asio = boost::asio;
using exec::kTuple;

}  // namespace

// A coroutine waiting for a slot. It sleeps on its own timer until the deadline; whoever
// frees a slot hands it over directly (granted, counted in in_use_) and cancels the timer.
// `granted` is the truth: a cancel can arrive after the timer's own completion was queued.
struct AdaptiveConcurrencyLimit::Waiter {
  Waiter(const asio::any_io_executor& executor, TimePoint deadline) : timer(executor, deadline) {}
  asio::steady_timer timer;
  bool granted = false;
  std::uint64_t epoch = 0;
};

AdaptiveConcurrencyLimit::Slot::Slot(Slot&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), epoch_(other.epoch_) {}

AdaptiveConcurrencyLimit::Slot& AdaptiveConcurrencyLimit::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::exchange(other.owner_, nullptr);
    epoch_ = other.epoch_;
  }
  return *this;
}

void AdaptiveConcurrencyLimit::Slot::release() {
  if (owner_ != nullptr) std::exchange(owner_, nullptr)->give_back();
}

AdaptiveConcurrencyLimit::AdaptiveConcurrencyLimit(int maximum) : maximum_(std::max(1, maximum)), limit_(maximum_) {}

asio::awaitable<AdaptiveConcurrencyLimit::Slot> AdaptiveConcurrencyLimit::acquire(TimePoint deadline) {
  if (waiters_.empty() && in_use_ < limit_) {
    ++in_use_;
    co_return Slot(this, epoch_);
  }
  const auto executor = co_await asio::this_coro::executor;
  Waiter waiter(executor, deadline);
  const auto position = waiters_.insert(waiters_.end(), &waiter);
  // Leaves the queue however this frame ends (deadline, cancellation, destruction); a slot
  // granted but never handed to the caller goes back.
  struct Leave {
    AdaptiveConcurrencyLimit& limit;
    Waiter& waiter;
    std::list<Waiter*>::iterator position;
    bool handed_over = false;
    ~Leave() {
      if (!waiter.granted) {
        limit.waiters_.erase(position);
      } else if (!handed_over) {
        limit.give_back();
      }
    }
  } leave{*this, waiter, position};
  co_await waiter.timer.async_wait(kTuple);
  if (!waiter.granted) co_return Slot();
  leave.handed_over = true;
  co_return Slot(this, waiter.epoch);
}

void AdaptiveConcurrencyLimit::overloaded(const Slot& slot) {
  if (slot.owner_ != this || slot.epoch_ != epoch_) return;
  limit_ = std::max(1, limit_ / 2);
  ++epoch_;
}

void AdaptiveConcurrencyLimit::succeeded(const Slot& slot) {
  if (slot.owner_ != this || slot.epoch_ != epoch_ || limit_ >= maximum_) return;
  ++limit_;
  grant_waiters();
}

void AdaptiveConcurrencyLimit::grant_waiters() {
  while (in_use_ < limit_ && !waiters_.empty()) {
    Waiter* next = waiters_.front();
    waiters_.pop_front();
    next->granted = true;
    next->epoch = epoch_;
    ++in_use_;
    next->timer.cancel();
  }
}

void AdaptiveConcurrencyLimit::give_back() {
  --in_use_;
  grant_waiters();
}

RequestPacer::RequestPacer(int requests_per_minute)
    : interval_(requests_per_minute > 0 ? std::chrono::nanoseconds(std::chrono::minutes(1)) / requests_per_minute
                                        : std::chrono::nanoseconds(0)) {}

asio::awaitable<bool> RequestPacer::wait_turn(std::chrono::steady_clock::time_point deadline) {
  if (interval_.count() == 0) co_return true;
  const auto now = std::chrono::steady_clock::now();
  const auto turn = std::max(now, next_);
  if (turn > deadline) co_return false;
  next_ = turn + interval_;
  if (turn > now) {
    const auto executor = co_await asio::this_coro::executor;
    asio::steady_timer timer(executor, turn);
    co_await timer.async_wait(kTuple);
  }
  co_return true;
}

}  // namespace strata::net
