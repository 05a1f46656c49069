#include "strata/engine/job_pool.hpp"

#include <signal.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <cstdlib>

#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/exec/awaitable_tuple.hpp"

namespace strata::engine {
namespace {
namespace asio = boost::asio;
using exec::kTuple;
}  // namespace

JobPool::JobPool(asio::io_context& io, int jobs, std::chrono::milliseconds kill_grace)
    : io_(io), jobs_(jobs), kill_grace_(kill_grace), wake_(io), escalation_(io), progress_timer_(io),
      signals_(io, SIGINT, SIGTERM) {
  wake_.expires_at(asio::steady_timer::time_point::max());
}

asio::awaitable<void> JobPool::run(std::size_t count, std::function<bool(std::size_t)> wanted, Job job) {
  asio::co_spawn(io_, watch_signals(), asio::detached);
  if (progress_text_) asio::co_spawn(io_, report_progress(), asio::detached);
  count_ = count;
  next_ = 0;
  wanted_ = std::move(wanted);
  job_ = std::move(job);
  for (std::size_t s = 0; s < static_cast<std::size_t>(jobs_) && s < count && !stopping_; ++s) {
    ++slots_;
    asio::co_spawn(io_, work_slot(), [this](std::exception_ptr e) {
      --slots_;
      note_failure(e);
      wake_.cancel();
    });
  }
  while (slots_ > 0 || trailing_ > 0) co_await wake_.async_wait(kTuple);
  // signal_set::cancel does not reach a completion already queued: the flag covers it.
  finished_ = true;
  boost::system::error_code ignored;
  signals_.cancel(ignored);
  escalation_.cancel();
  progress_timer_.cancel();
  if (progress_text_) std::fputs("\n", stderr);
}

std::optional<std::size_t> JobPool::next_wanted() {
  while (next_ < count_ && !stopping_ && launching_) {
    const std::size_t i = next_++;
    if (wanted_(i)) return i;
  }
  return std::nullopt;
}

asio::awaitable<void> JobPool::work_slot() {
  while (const std::optional<std::size_t> i = next_wanted()) {
    ++running_;
    struct Release {  // the slot is free again however the job ends
      int& running;
      ~Release() { --running; }
    } release{running_};
    co_await job_(*i);
  }
}

void JobPool::finish_outside_slot(asio::awaitable<void> work) {
  ++trailing_;
  asio::co_spawn(io_, std::move(work), [this](std::exception_ptr e) {
    --trailing_;
    note_failure(e);
    wake_.cancel();
  });
}

void JobPool::note_failure(std::exception_ptr e) {
  if (!e) return;
  try {
    std::rethrow_exception(e);
  } catch (const Error& error) {
    if (!failure_) failure_ = error.describe();
  } catch (const std::exception& error) {
    if (!failure_) failure_ = error.what();
  }
  stop();
}

void JobPool::stop() {
  if (stopping_) return;
  stopping_ = true;
  if (on_stop_) on_stop_();
  exec::signal_all_process_groups(SIGTERM);
  asio::co_spawn(io_, escalate(), asio::detached);
  wake_.cancel();
}

asio::awaitable<void> JobPool::escalate() {
  escalation_.expires_after(kill_grace_);
  auto [ec] = co_await escalation_.async_wait(kTuple);
  if (!ec) exec::signal_all_process_groups(SIGKILL);
}

asio::awaitable<void> JobPool::watch_signals() {
  for (;;) {
    auto [ec, number] = co_await signals_.async_wait(kTuple);
    if (ec || finished_) co_return;
    if (interrupted_) {  // second signal: kill at once; what completed is already durable
      exec::signal_all_process_groups(SIGKILL);
      std::fputs("\nstrata: killed; completed work is in the journal, re-run to resume\n", stderr);
      std::_Exit(130);
    }
    interrupted_ = true;
    std::fprintf(stderr, "\nstrata: %s: stopping; completed work is kept (again to kill at once)\n",
                 number == SIGINT ? "interrupted" : "terminated");
    stop();
  }
}

asio::awaitable<void> JobPool::report_progress() {
  while (!finished_) {
    std::fprintf(stderr, "\r%s   ", progress_text_().c_str());
    std::fflush(stderr);
    progress_timer_.expires_after(std::chrono::milliseconds(250));
    co_await progress_timer_.async_wait(kTuple);
  }
}

}  // namespace strata::engine
