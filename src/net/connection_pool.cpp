#include "connection_pool.hpp"

#include <algorithm>

namespace strata::net {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

ConnectionPool::ConnectionPool(Url origin, const std::string& ca_file, std::size_t max_idle,
                               std::chrono::milliseconds idle_timeout)
    : origin_(std::move(origin)), tls_(make_client_tls_context(ca_file)), max_idle_(max_idle), idle_timeout_(idle_timeout) {}

asio::awaitable<ConnectionPool::Lease> ConnectionPool::borrow(SteadyTime deadline) {
  const auto now = Clock::now();
  while (!idle_.empty()) {
    Idle candidate = std::move(idle_.back());
    idle_.pop_back();
    // Too old (the server has probably dropped it, maybe silently) or visibly closed:
    // dropping it here is cheaper than a failed request.
    if (now - candidate.since > idle_timeout_ || !candidate.connection->still_open()) continue;
    ++reused_;
    Lease lease;
    lease.connection = std::move(candidate.connection);
    lease.reused = true;
    co_return lease;
  }
  co_return co_await open(deadline);
}

asio::awaitable<ConnectionPool::Lease> ConnectionPool::open(SteadyTime deadline) {
  HttpConnection::Opened opened = co_await HttpConnection::open(tls_, origin_, deadline);
  Lease lease;
  if (opened.connection) ++opened_;
  lease.connection = std::move(opened.connection);
  lease.failure = std::move(opened.failure);
  co_return lease;
}

void ConnectionPool::give_back(std::unique_ptr<HttpConnection> connection) {
  const auto now = Clock::now();
  const auto expired = std::find_if(idle_.begin(), idle_.end(), [&](const Idle& i) { return now - i.since <= idle_timeout_; });
  idle_.erase(idle_.begin(), expired);
  if (max_idle_ == 0) return;  // closes it
  if (idle_.size() >= max_idle_) idle_.erase(idle_.begin());  // the oldest spare closes
  connection->park();
  idle_.push_back(Idle{std::move(connection), now});
}

}  // namespace strata::net
