#pragma once
// The completion token of the event-loop coroutines: `co_await op(kTuple)` yields
// (error_code, results...) instead of throwing, so every failure is handled where it happens.
// Event-loop files only (exec/, engine/, net/).
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace strata::exec {

inline constexpr auto kTuple = boost::asio::as_tuple(boost::asio::use_awaitable);

}  // namespace strata::exec
