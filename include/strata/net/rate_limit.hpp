#pragma once
// Rate limiting for one endpoint, on one io_context thread (no locks):
// - AdaptiveConcurrencyLimit: at most `limit` requests in flight, waiters served in FIFO
//   order; the limit halves when the server says it is overloaded (429/503) and grows back
//   by one per success, up to the configured maximum (AIMD).
// - RequestPacer: at most N request starts per minute, evenly spaced.
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <list>

namespace strata::net {

class AdaptiveConcurrencyLimit {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // One request's permission to be in flight; gives it back when destroyed.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() { release(); }

    explicit operator bool() const { return owner_ != nullptr; }
    void release();

   private:
    friend class AdaptiveConcurrencyLimit;
    Slot(AdaptiveConcurrencyLimit* owner, std::uint64_t epoch) : owner_(owner), epoch_(epoch) {}
    AdaptiveConcurrencyLimit* owner_ = nullptr;
    std::uint64_t epoch_ = 0;  // the limit's epoch when the slot was granted
  };

  explicit AdaptiveConcurrencyLimit(int maximum);
  AdaptiveConcurrencyLimit(const AdaptiveConcurrencyLimit&) = delete;
  AdaptiveConcurrencyLimit& operator=(const AdaptiveConcurrencyLimit&) = delete;

  // A slot as soon as one is free and every earlier waiter has been served; an empty slot
  // when `deadline` passes first. Must run on the thread that owns this limit.
  boost::asio::awaitable<Slot> acquire(TimePoint deadline);

  // The request holding `slot` was told the server is overloaded: halve the limit (at least
  // 1). Requests already in flight when the limit was last cut report the same episode, so
  // they do not cut it again.
  void overloaded(const Slot& slot);
  // The request holding `slot` succeeded: one more slot, up to the maximum. Only requests
  // started since the last cut count; older ones say nothing about the new limit.
  void succeeded(const Slot& slot);

  int limit() const { return limit_; }
  int maximum() const { return maximum_; }
  int in_use() const { return in_use_; }
  int waiting() const { return static_cast<int>(waiters_.size()); }

 private:
  struct Waiter;
  void grant_waiters();
  void give_back();

  int maximum_;
  int limit_;
  int in_use_ = 0;
  std::uint64_t epoch_ = 0;  // counts the cuts
  std::list<Waiter*> waiters_;
};

class RequestPacer {
 public:
  // 0: no pacing.
  explicit RequestPacer(int requests_per_minute);

  // Waits for this request's turn, at least 60/N s after the previous one's. False, without
  // taking a turn, when the turn would come after `deadline`.
  boost::asio::awaitable<bool> wait_turn(std::chrono::steady_clock::time_point deadline);

 private:
  std::chrono::nanoseconds interval_;
  std::chrono::steady_clock::time_point next_{};
};

}  // namespace strata::net
