#pragma once
// Runs numbered jobs on one io_context, at most N at once, started in order. Owns what
// every long command needs around that: SIGINT/SIGTERM (stop launching, terminate the
// running process groups, SIGKILL after a grace period; a second signal kills at once),
// the first fatal error, and a progress line on stderr.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <string>

namespace strata::engine {

class JobPool {
 public:
  using Job = std::function<boost::asio::awaitable<void>(std::size_t)>;

  JobPool(boost::asio::io_context& io, int jobs, std::chrono::milliseconds kill_grace);

  // Starts job(i) for every i in [0, count) for which `wanted(i)` holds, in order, at most
  // `jobs` at once; completes when every started job and every piece of work handed to
  // finish_outside_slot() has finished. Stops launching after a signal or the first job that
  // throws.
  //
  // Each slot is a worker coroutine that starts its next job as soon as the previous one
  // returns: a freed slot is refilled without a round trip through a scheduler, so a burst of
  // completions does not queue the next launches behind one another's bookkeeping.
  boost::asio::awaitable<void> run(std::size_t count, std::function<bool(std::size_t)> wanted, Job job);

  // Runs `work` (a job's bookkeeping after its slot-bound part, e.g. making its result
  // durable) without holding the slot: the slot starts its next job meanwhile. run() waits for
  // it; if it throws, the pool stops as for a failed job.
  void finish_outside_slot(boost::asio::awaitable<void> work);

  // Prints progress_text() on stderr every 250 ms while run() is active.
  void show_progress(std::function<std::string()> progress_text) { progress_text_ = std::move(progress_text); }

  // Called once when the pool stops (a signal or a failure): lets work that waits for something
  // other than a process (a budget reservation) give up.
  void on_stop(std::function<void()> callback) { on_stop_ = std::move(callback); }

  // Launches nothing more; what runs goes on to its end (a run-wide budget that is reached).
  void stop_launching() { launching_ = false; }

  bool stopping() const { return stopping_; }
  bool interrupted() const { return interrupted_; }
  int running() const { return running_; }
  const std::optional<std::string>& failure() const { return failure_; }

 private:
  boost::asio::awaitable<void> work_slot();
  std::optional<std::size_t> next_wanted();
  void stop();
  void note_failure(std::exception_ptr e);
  boost::asio::awaitable<void> escalate();
  boost::asio::awaitable<void> watch_signals();
  boost::asio::awaitable<void> report_progress();

  boost::asio::io_context& io_;
  int jobs_;
  std::chrono::milliseconds kill_grace_;
  boost::asio::steady_timer wake_, escalation_, progress_timer_;
  boost::asio::signal_set signals_;
  std::function<std::string()> progress_text_;
  std::function<void()> on_stop_;
  std::size_t count_ = 0, next_ = 0;  // jobs [0, count_); next_ is the next one to consider
  std::function<bool(std::size_t)> wanted_;
  Job job_;
  int slots_ = 0;     // worker coroutines still active
  int trailing_ = 0;  // finish_outside_slot() work still active
  int running_ = 0;
  bool stopping_ = false, interrupted_ = false, finished_ = false, launching_ = true;
  std::optional<std::string> failure_;
};

}  // namespace strata::engine
