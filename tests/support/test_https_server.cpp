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

#include <ctime>
#include <sstream>

namespace strata::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

// A chat completion with `reply` as the model's text (a JSON string value, escaped).
std::string completion(const std::string& usage, const std::string& reply = "hello from the test server") {
  std::string text;
  for (const char c : reply) {
    if (c == '"' || c == '\\') text += '\\';
    text += c;
  }
  return R"({"id":"chatcmpl-test","object":"chat.completion","model":"test-model-1","choices":[{"index":0,)"
         R"("message":{"role":"assistant","content":")" + text + R"("},"finish_reason":"stop"}])" +
         (usage.empty() ? std::string() : ",\"usage\":" + usage) + "}";
}

struct Answer {
  http::status status = http::status::ok;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

Answer answer_for(const std::string& fault, const std::string& reply) {
  Answer a;
  a.body = completion(R"({"prompt_tokens":11,"completion_tokens":7,"total_tokens":18})", reply);
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
    a.body = completion(R"({"prompt_tokens":20,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":16}})", reply);
  } else if (fault == "usage-cache-write") {
    a.body = completion(R"({"prompt_tokens":20,"completion_tokens":4,"cache_creation_input_tokens":9,"cache_read_input_tokens":3})");
  }
  return a;
}

// An IMF-fixdate `seconds` from now (whole seconds, so 1 s less than that at worst).
std::string http_date_in(int seconds) {
  const std::time_t when = std::time(nullptr) + seconds;
  std::tm parts{};
  gmtime_r(&when, &parts);
  char text[64];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &parts);
  return text;
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

  // A model request counts as in flight from the moment it has been read until its answer
  // starts (or its connection is dropped): the client cannot have seen the answer before,
  // so a client that never has more than N requests outstanding is never measured above N.
  class InFlight {
   public:
    explicit InFlight(TestHttpsServer& owner) : owner_(owner) {
      const int now = ++owner_.in_flight_;
      for (int seen = owner_.max_in_flight_.load(); now > seen && !owner_.max_in_flight_.compare_exchange_weak(seen, now);) {
      }
    }
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;
    ~InFlight() { leave(); }
    void leave() {
      if (counted_) --owner_.in_flight_;
      counted_ = false;
    }

   private:
    TestHttpsServer& owner_;
    bool counted_ = true;
  };

  // Control requests from test scripts: POST /__fault/<name> switches the fault, POST
  // /__reply sets the model's text (the request body) in successful answers, GET /__requests
  // tells how many model requests arrived, GET /__stats returns the counters as JSON. They
  // are not counted.
  std::string control(const std::string& target, const std::string& body) {
    if (target.rfind("/__fault/", 0) == 0) owner.set_fault(target.substr(9));
    if (target == "/__reply") owner.set_reply(body);
    if (target == "/__stats")
      return "{\"requests\":" + std::to_string(owner.requests_.load()) + ",\"connections\":" +
             std::to_string(owner.connections_.load()) + ",\"max_in_flight\":" + std::to_string(owner.max_in_flight_.load()) +
             ",\"throttled\":" + std::to_string(owner.throttled_.load()) + "}";
    return std::to_string(owner.requests_.load());
  }

  template <class Stream>
  asio::awaitable<void> serve(Stream& stream) {
    beast::flat_buffer buffer;
    for (int on_connection = 1;; ++on_connection) {
      http::request<http::string_body> request;
      auto [ec, n] = co_await http::async_read(stream, buffer, request, kTuple);
      if (ec) co_return;
      const std::string target(request.target());
      if (target.rfind("/__", 0) == 0) {
        http::response<http::string_body> answer{http::status::ok, request.version()};
        answer.body() = control(target, request.body());
        answer.prepare_payload();
        co_await http::async_write(stream, answer, kTuple);
        continue;
      }
      const int number = ++owner.requests_;
      InFlight flight(owner);
      {
        std::ostringstream text;
        text << request;
        std::lock_guard lock(owner.mutex_);
        owner.last_request_ = text.str();
      }
      const bool keep_going = co_await respond(stream, request, owner.fault(), number, on_connection, flight);
      if (!keep_going || !request.keep_alive()) co_return;
    }
  }

  // Answers the `number`th model request, the `on_connection`th on its connection; false
  // when the connection must end.
  template <class Stream>
  asio::awaitable<bool> respond(Stream& stream, const http::request<http::string_body>& request, std::string fault,
                                int number, int on_connection, InFlight& flight) {
    // "<fault>,delay:<ms>": the fault, answered after a pause.
    if (const auto comma = fault.find(",delay:"); comma != std::string::npos) {
      const int delay = std::stoi(fault.substr(comma + 7));
      fault.resize(comma);
      co_await pause(std::chrono::milliseconds(delay));
    } else if (fault.rfind("delay:", 0) == 0) {
      co_await pause(std::chrono::milliseconds(std::stoi(fault.substr(6))));
      fault = "ok";
    }
    if (fault == "reset" || (fault == "reset-reused" && on_connection > 1)) {
      // The request arrived; the connection is reset instead of answered.
      flight.leave();
      auto& socket = beast::get_lowest_layer(stream).socket();
      boost::system::error_code ignored;
      socket.set_option(asio::socket_base::linger(true, 0), ignored);
      socket.close(ignored);
      co_return false;
    }
    if (fault == "slow-headers") co_await pause(std::chrono::milliseconds(3000));
    Answer a = answer_for(fault, owner.reply());
    if (fault.rfind("throttle:", 0) == 0 && number % 3 == 0) {
      // "throttle:<status>[:<seconds>|:date]": every third request gets <status>, with a
      // Retry-After (default 1 s; "date": an HTTP date 1-2 s ahead) every other time.
      const std::string spec = fault.substr(9);
      const auto colon = spec.find(':');
      const std::string retry_after = colon == std::string::npos ? "1" : spec.substr(colon + 1);
      a.status = static_cast<http::status>(std::stoi(spec.substr(0, colon)));
      a.body = R"({"error":{"message":"rate limited"}})";
      if ((number / 3) % 2 == 1) a.headers.push_back({"Retry-After", retry_after == "date" ? http_date_in(2) : retry_after});
      ++owner.throttled_;
    }
    flight.leave();
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
    // "drop-idle": answered as if the connection stayed open, then closed (an idle timeout).
    co_return !ec && fault != "drop-idle";
  }

  asio::awaitable<void> session(tcp::socket socket) {
    ++owner.connections_;
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
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

void TestHttpsServer::set_reply(const std::string& reply) {
  std::lock_guard lock(mutex_);
  reply_ = reply;
}

std::string TestHttpsServer::reply() const {
  std::lock_guard lock(mutex_);
  return reply_;
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
