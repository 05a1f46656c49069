#include "test_https_server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <sstream>

namespace strata::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

std::string completion(const std::string& usage) {
  return R"({"id":"chatcmpl-test","object":"chat.completion","model":"test-model-1","choices":[{"index":0,)"
         R"("message":{"role":"assistant","content":"hello from the test server"},"finish_reason":"stop"}])" +
         (usage.empty() ? std::string() : ",\"usage\":" + usage) + "}";
}

struct Answer {
  http::status status = http::status::ok;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

Answer answer_for(const std::string& fault) {
  Answer a;
  a.body = completion(R"({"prompt_tokens":11,"completion_tokens":7,"total_tokens":18})");
  if (fault == "redirect") {
    a.status = http::status::found;
    a.headers.push_back({"Location", "https://other.invalid/v1/chat/completions"});
    a.body = "{}";
  } else if (fault.rfind("status:", 0) == 0) {
    a.status = static_cast<http::status>(std::stoi(fault.substr(7)));
    a.body = R"({"error":{"message":"injected failure"}})";
  } else if (fault == "retry-after") {
    a.status = http::status::too_many_requests;
    a.headers.push_back({"Retry-After", "1"});
    a.body = R"({"error":{"message":"slow down"}})";
  } else if (fault == "huge") {
    a.body = completion("") + std::string(9 * 1024 * 1024, ' ');
  } else if (fault == "invalid-json") {
    a.body = R"({"choices":[)";
  } else if (fault == "deep") {
    a.body = std::string(200, '[') + std::string(200, ']');
  } else if (fault == "nan") {
    a.body = R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":NaN,"completion_tokens":1}})";
  } else if (fault == "usage-missing") {
    a.body = completion("");
  } else if (fault == "usage-aliased") {
    a.body = completion(R"({"input_tokens":13,"output_tokens":5})");
  } else if (fault == "usage-cached") {
    a.body = completion(R"({"prompt_tokens":20,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":16}})");
  } else if (fault == "usage-cache-write") {
    a.body = completion(R"({"prompt_tokens":20,"completion_tokens":4,"cache_creation_input_tokens":9,"cache_read_input_tokens":3})");
  }
  return a;
}

asio::awaitable<void> pause(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor);
  t.expires_after(d);
  co_await t.async_wait(kTuple);
}

}  // namespace

struct TestHttpsServer::Impl {
  TestHttpsServer& owner;
  asio::io_context io{1};
  asio::ssl::context tls{asio::ssl::context::tls_server};
  tcp::acceptor acceptor{io};

  Impl(TestHttpsServer& o, const TestCertificates& certs) : owner(o) {
    const ServerIdentity* id = owner.identity_ == Identity::wrong_host ? &certs.wrong_host
                               : owner.identity_ == Identity::untrusted ? &certs.untrusted
                                                                        : &certs.good;
    tls.use_certificate_chain(asio::buffer(id->chain_pem));
    tls.use_private_key(asio::buffer(id->key_pem), asio::ssl::context::pem);
    acceptor.open(tcp::v4());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind({asio::ip::make_address("127.0.0.1"), 0});
    acceptor.listen(1024);
    owner.port_ = acceptor.local_endpoint().port();
  }

  template <class Stream>
  asio::awaitable<void> serve(Stream& stream) {
    beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> request;
      auto [ec, n] = co_await http::async_read(stream, buffer, request, kTuple);
      if (ec) co_return;
      const int now = ++owner.in_flight_;
      for (int seen = owner.max_in_flight_.load(); now > seen && !owner.max_in_flight_.compare_exchange_weak(seen, now);) {
      }
      ++owner.requests_;
      {
        std::ostringstream text;
        text << request;
        std::lock_guard lock(owner.mutex_);
        owner.last_request_ = text.str();
      }
      // Control requests from test scripts: POST /__fault/<name> switches the fault,
      // GET /__requests tells how many model requests arrived. Neither is counted.
      const std::string target(request.target());
      if (target.rfind("/__", 0) == 0) {
        --owner.requests_;
        if (target.rfind("/__fault/", 0) == 0) owner.set_fault(target.substr(9));
        http::response<http::string_body> control{http::status::ok, request.version()};
        control.body() = std::to_string(owner.requests_.load());
        control.prepare_payload();
        co_await http::async_write(stream, control, kTuple);
        --owner.in_flight_;
        continue;
      }
      const std::string fault = owner.fault();
      bool keep_going = co_await respond(stream, request, fault);
      --owner.in_flight_;
      if (!keep_going || !request.keep_alive()) co_return;
    }
  }

  template <class Stream>
  asio::awaitable<bool> respond(Stream& stream, const http::request<http::string_body>& request, const std::string& fault) {
    if (fault == "reset") {  // the request arrived; the connection is reset instead of answered
      auto& socket = beast::get_lowest_layer(stream).socket();
      boost::system::error_code ignored;
      socket.set_option(asio::socket_base::linger(true, 0), ignored);
      socket.close(ignored);
      co_return false;
    }
    if (fault == "slow-headers") co_await pause(std::chrono::milliseconds(3000));
    const Answer a = answer_for(fault);
    if (fault == "truncated" || fault == "slow-body") {
      std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                         std::to_string(a.body.size()) + "\r\n\r\n";
      co_await asio::async_write(stream, asio::buffer(head), kTuple);
      if (fault == "truncated") {
        co_await asio::async_write(stream, asio::buffer(a.body.data(), 10), kTuple);
        co_return false;
      }
      for (char c : a.body) {
        co_await asio::async_write(stream, asio::buffer(&c, 1), kTuple);
        co_await pause(std::chrono::milliseconds(20));
      }
      co_return true;
    }
    http::response<http::string_body> response{a.status, request.version()};
    response.set(http::field::content_type, "application/json");
    for (const auto& [k, v] : a.headers) response.set(k, v);
    response.keep_alive(request.keep_alive());
    response.body() = a.body;
    response.prepare_payload();
    auto [ec, n] = co_await http::async_write(stream, response, kTuple);
    co_return !ec;
  }

  asio::awaitable<void> session(tcp::socket socket) {
    ++owner.connections_;
    if (owner.identity_ == Identity::plain_http) {
      beast::tcp_stream stream(std::move(socket));
      co_await serve(stream);
      co_return;
    }
    beast::ssl_stream<beast::tcp_stream> stream(std::move(socket), tls);
    auto [ec] = co_await stream.async_handshake(asio::ssl::stream_base::server, kTuple);
    if (ec) co_return;
    co_await serve(stream);
    co_await stream.async_shutdown(kTuple);
  }

  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor.async_accept(kTuple);
      if (ec) co_return;
      asio::co_spawn(io, session(std::move(socket)), asio::detached);
    }
  }
};

TestHttpsServer::TestHttpsServer(const TestCertificates& certificates, Identity identity) : identity_(identity) {
  impl_ = std::make_unique<Impl>(*this, certificates);
  asio::co_spawn(impl_->io, impl_->accept_loop(), asio::detached);
  thread_ = std::thread([this] { impl_->io.run(); });
}

TestHttpsServer::~TestHttpsServer() {
  asio::post(impl_->io, [this] { impl_->io.stop(); });
  thread_.join();
}

std::string TestHttpsServer::url(const std::string& host) const {
  return std::string(identity_ == Identity::plain_http ? "http" : "https") + "://" + host + ":" + std::to_string(port_) + "/v1";
}

void TestHttpsServer::set_fault(const std::string& fault) {
  std::lock_guard lock(mutex_);
  fault_ = fault;
}

std::string TestHttpsServer::fault() const {
  std::lock_guard lock(mutex_);
  return fault_;
}

std::string TestHttpsServer::last_request() const {
  std::lock_guard lock(mutex_);
  return last_request_;
}

}  // namespace strata::testing
