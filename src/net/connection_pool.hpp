#pragma once
// Keep-alive connections to one origin. A request borrows a connection (an idle one that
// still looks open, most recently used first, else a new one) and gives it back when the
// response allows reuse. Idle connections are capped in number and age. One io_context
// thread; private to src/net.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "http_connection.hpp"

namespace strata::net {

class ConnectionPool {
 public:
  ConnectionPool(Url origin, const std::string& ca_file, std::size_t max_idle, std::chrono::milliseconds idle_timeout);

  struct Lease {
    std::unique_ptr<HttpConnection> connection;  // null when opening failed
    bool reused = false;                         // it served a request before
    HttpResponse failure;                        // why opening failed
  };

  // An idle connection, or a new one opened before `deadline`.
  boost::asio::awaitable<Lease> borrow(SteadyTime deadline);
  // Always a new connection.
  boost::asio::awaitable<Lease> open(SteadyTime deadline);
  // Takes back a connection whose last response allowed another request.
  void give_back(std::unique_ptr<HttpConnection> connection);

  std::size_t idle() const { return idle_.size(); }
  long opened() const { return opened_; }
  long reused() const { return reused_; }

 private:
  struct Idle {
    std::unique_ptr<HttpConnection> connection;
    SteadyTime since;
  };

  Url origin_;
  boost::asio::ssl::context tls_;
  std::size_t max_idle_;
  std::chrono::milliseconds idle_timeout_;
  std::vector<Idle> idle_;  // oldest first
  long opened_ = 0, reused_ = 0;
};

}  // namespace strata::net
