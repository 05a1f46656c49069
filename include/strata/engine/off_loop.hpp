#pragma once
// Blocking work (the file system, fsync) run on a thread pool while the event loop serves the
// other executions. An event-loop header: only the run and the adjudication include it.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <functional>

namespace strata::engine {

// Runs `work` on `pool` and resumes when it is done (co_spawn there: an awaitable resumes on its
// own executor). `work` should not throw: callers catch inside it and report after.
// (g++ 12 mishandles a lambda with captures in a co_await expression: callers pass a named one.)
inline boost::asio::awaitable<void> off_loop(boost::asio::thread_pool& pool, std::function<void()> work) {
  co_await boost::asio::co_spawn(
      pool,
      [&]() -> boost::asio::awaitable<void> {
        work();
        co_return;
      },
      boost::asio::use_awaitable);
}

}  // namespace strata::engine
