#include "strata/net/view_server.hpp"

#include <openssl/crypto.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <deque>
#include <list>
#include <memory>

#include "strata/error.hpp"
#include "strata/app/view/view_app.hpp"

namespace strata::net {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr const char* kPageSecurity =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
// strata report's HTML keeps its style sheet inline and has no script: shown in the page's frame.
constexpr const char* kReportSecurity =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'; sandbox";
constexpr const char* kCookie = "strata_view_token";
constexpr std::size_t kMaxQueuedEvents = 64;  // an event stream further behind is closed
constexpr int kHeartbeatPolls = 60;           // a comment line every 60 polls finds closed streams

struct Connection {
  explicit Connection(tcp::socket socket) : stream(std::move(socket)) {}
  beast::tcp_stream stream;
  bool idle = true;  // waiting for a request's first bytes: closed first when connections run out
};

struct EventStream {
  explicit EventStream(const asio::any_io_executor& executor) : wake(executor) {}
  std::deque<std::string> queue;
  asio::steady_timer wake;
  bool closed = false;
};

// A request budget per connection: `rate` a second, bursts of twice that.
class TokenBucket {
 public:
  explicit TokenBucket(double rate) : rate_(rate), tokens_(2 * rate), last_(Clock::now()) {}
  bool take() {
    const auto now = Clock::now();
    tokens_ = std::min(2 * rate_, tokens_ + rate_ * std::chrono::duration<double>(now - last_).count());
    last_ = now;
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

 private:
  double rate_, tokens_;
  Clock::time_point last_;
};

bool same_secret(const std::string& given, const std::string& token) {
  return given.size() == token.size() && CRYPTO_memcmp(given.data(), token.data(), token.size()) == 0;
}

std::string cookie_member(std::string_view cookies, std::string_view name) {
  std::size_t start = 0;
  while (start < cookies.size()) {
    std::size_t end = cookies.find(';', start);
    if (end == std::string_view::npos) end = cookies.size();
    std::string_view part = cookies.substr(start, end - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    if (part.size() > name.size() && part.substr(0, name.size()) == name && part[name.size()] == '=') return std::string(part.substr(name.size() + 1));
    start = end + 1;
  }
  return {};
}

class Server {
 public:
  Server(asio::io_context& io, app::ViewApp& app, const ViewServerOptions& options)
      : io_(io), app_(app), options_(options), acceptor_(io), loopback_(is_loopback_address(options.bind)) {}

  unsigned short listen() {
    beast::error_code ec;
    const auto address = asio::ip::make_address(options_.bind, ec);
    if (ec) throw Error("not an IP address: " + options_.bind, "--bind");
    const tcp::endpoint endpoint(address, options_.port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) throw Error("cannot listen on " + options_.bind + ":" + std::to_string(options_.port) + ": " + ec.message(), "--bind/--port");
    port_ = acceptor_.local_endpoint().port();
    return port_;
  }

  asio::awaitable<void> accept_loop() {
    for (;;) {
      beast::error_code ec;
      tcp::socket socket = co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) {
        if (ec == asio::error::operation_aborted) co_return;
        continue;  // a connection that failed before it was ours (EMFILE: try the next one)
      }
      if (connections_.size() >= options_.max_connections && !close_oldest_idle()) {
        socket.close(ec);  // every connection is busy with a request: this one waits its turn elsewhere
        continue;
      }
      auto connection = std::make_shared<Connection>(std::move(socket));
      connections_.push_back(connection);
      asio::co_spawn(io_, session(connection), asio::detached);
    }
  }

  asio::awaitable<void> poll_loop() {
    asio::steady_timer timer(io_);
    int polls = 0;
    for (;;) {
      timer.expires_after(options_.poll_interval);
      beast::error_code ec;
      co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
      std::string change = app_.refresh();
      if (!change.empty()) publish("event: change\ndata: " + change + "\n\n");
      if (++polls % kHeartbeatPolls == 0) publish(": still here\n\n");
    }
  }

 private:
  bool close_oldest_idle() {
    for (auto& connection : connections_) {
      if (!connection->idle) continue;
      beast::error_code ec;
      connection->idle = false;
      connection->stream.socket().close(ec);
      return true;
    }
    return false;
  }

  void publish(const std::string& event) {
    for (auto& stream : streams_) {
      if (stream->closed) continue;
      if (stream->queue.size() >= kMaxQueuedEvents) {
        stream->closed = true;  // a reader this far behind is not reading
      } else {
        stream->queue.push_back(event);
      }
      stream->wake.cancel();
    }
  }

  http::response<http::string_body> answer(const http::request<http::string_body>& request, http::status status,
                                           const std::string& content_type, std::string body, bool report_page = false) {
    http::response<http::string_body> response(status, request.version());
    response.set(http::field::server, "strata-view");
    response.set(http::field::content_type, content_type);
    response.set(http::field::cache_control, "no-store");
    response.set("X-Content-Type-Options", "nosniff");
    response.set("Referrer-Policy", "no-referrer");
    response.set("Cross-Origin-Resource-Policy", "same-origin");
    response.set("Content-Security-Policy", report_page ? kReportSecurity : kPageSecurity);
    response.set("X-Frame-Options", report_page ? "SAMEORIGIN" : "DENY");
    response.body() = std::move(body);
    response.prepare_payload();
    return response;
  }

  http::response<http::string_body> refusal(const http::request<http::string_body>& request, http::status status, const std::string& message) {
    std::string body = "{\"error\":\"" + message + "\"}";  // messages are fixed ASCII text
    return answer(request, status, "application/json", std::move(body));
  }

  // The Host header of a loopback server names a loopback address (a page of another site, its
  // name re-pointed at 127.0.0.1, is not served).
  bool host_allowed(std::string_view host) const {
    if (!loopback_) return true;
    const std::string port = ":" + std::to_string(port_);
    for (const char* name : {"127.0.0.1", "localhost", "[::1]"}) {
      const std::string with_port = name + port;
      if (host == name || host == with_port) return true;
    }
    return false;
  }

  asio::awaitable<bool> write(Connection& connection, http::response<http::string_body> response) {
    beast::error_code ec;
    connection.stream.expires_after(options_.request_timeout);
    co_await http::async_write(connection.stream, response, asio::redirect_error(asio::use_awaitable, ec));
    co_return !ec;
  }

  asio::awaitable<void> session(std::shared_ptr<Connection> connection) {
    beast::flat_buffer buffer(options_.header_limit + 1024);
    TokenBucket bucket(options_.requests_per_second);
    for (;;) {
      connection->idle = true;
      http::request_parser<http::string_body> parser;
      parser.header_limit(static_cast<std::uint32_t>(options_.header_limit));
      parser.body_limit(options_.body_limit);
      connection->stream.expires_after(options_.request_timeout);
      beast::error_code ec;
      co_await http::async_read(connection->stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
      connection->idle = false;
      if (ec) {
        http::request<http::string_body> bare;  // the answer's version; the request is unusable
        bare.version(11);
        if (ec == http::error::header_limit)
          co_await write(*connection, refusal(bare, http::status::request_header_fields_too_large, "the request's header is too large"));
        else if (ec == http::error::body_limit)
          co_await write(*connection, refusal(bare, http::status::payload_too_large, "a request has no body here"));
        else if (ec.category() == beast::error_code(http::error::bad_target).category())  // a malformed request
          co_await write(*connection, refusal(bare, http::status::bad_request, "a malformed request"));
        break;  // a timeout, a closed connection, or after the answer above
      }
      const http::request<http::string_body>& request = parser.get();
      if (!bucket.take()) {
        auto response = refusal(request, http::status::too_many_requests, "too many requests");
        response.set(http::field::retry_after, "1");
        response.keep_alive(false);
        co_await write(*connection, std::move(response));
        break;
      }
      const std::string_view target(request.target().data(), request.target().size());
      const std::size_t question = target.find('?');
      const std::string path(target.substr(0, question));
      const std::string query(question == std::string_view::npos ? std::string_view() : target.substr(question + 1));
      std::string set_cookie;
      http::response<http::string_body> response;
      if (!host_allowed(std::string_view(request[http::field::host].data(), request[http::field::host].size()))) {
        response = refusal(request, http::status::misdirected_request, "the Host header does not name this server");
      } else if (request.method() != http::verb::get && request.method() != http::verb::head) {
        response = refusal(request, http::status::method_not_allowed, "only GET and HEAD");
        response.set(http::field::allow, "GET, HEAD");
      } else if (!options_.token.empty() && !same_secret(app::query_members(query)["token"], options_.token) &&
                 !same_secret(cookie_member(std::string_view(request[http::field::cookie].data(), request[http::field::cookie].size()), kCookie), options_.token)) {
        response = refusal(request, http::status::unauthorized, "an access token is needed: open the address strata view printed");
      } else if (path == "/api/events") {
        co_await event_stream(connection);
        break;
      } else {
        if (!options_.token.empty() && !app::query_members(query)["token"].empty())
          set_cookie = std::string(kCookie) + "=" + options_.token + "; HttpOnly; SameSite=Strict; Path=/";
        app::ViewResponse answered;
        try {
          answered = app_.handle(path, query);
        } catch (const std::exception&) {
          answered = {500, "application/json", "{\"error\":\"the viewer could not read this\"}", false};
        }
        response = answer(request, static_cast<http::status>(answered.status), answered.content_type, std::move(answered.body), answered.report_page);
        if (!set_cookie.empty()) response.set(http::field::set_cookie, set_cookie);
      }
      const bool keep_alive = request.keep_alive() && response.result() != http::status::misdirected_request;
      response.keep_alive(keep_alive);
      if (request.method() == http::verb::head) {
        response.prepare_payload();
        response.body().clear();
        response.content_length(0);
      }
      if (!co_await write(*connection, std::move(response)) || !keep_alive) break;
    }
    beast::error_code ignored;
    connection->stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    connection->stream.socket().close(ignored);
    connections_.remove(connection);
  }

  asio::awaitable<void> event_stream(std::shared_ptr<Connection> connection) {
    beast::error_code ec;
    if (streams_.size() >= options_.max_event_streams) {
      http::request<http::string_body> bare;
      bare.version(11);
      co_await write(*connection, refusal(bare, http::status::service_unavailable, "too many live streams open"));
      co_return;
    }
    auto stream = std::make_shared<EventStream>(io_.get_executor());
    streams_.push_back(stream);
    std::string head =
        "HTTP/1.1 200 OK\r\nServer: strata-view\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
        "X-Content-Type-Options: nosniff\r\nContent-Security-Policy: default-src 'none'\r\nConnection: keep-alive\r\n\r\n"
        "retry: 1000\n: connected\n\n";
    stream->queue.push_back(std::move(head));
    while (!stream->closed) {
      while (!stream->queue.empty() && !stream->closed) {
        const std::string event = std::move(stream->queue.front());
        stream->queue.pop_front();
        connection->stream.expires_after(options_.request_timeout);  // a reader that stops reading is cut off
        co_await asio::async_write(connection->stream, asio::buffer(event), asio::redirect_error(asio::use_awaitable, ec));
        if (ec) stream->closed = true;
      }
      if (stream->closed) break;
      connection->stream.expires_never();
      stream->wake.expires_at(asio::steady_timer::time_point::max());
      co_await stream->wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    streams_.remove(stream);
  }

  asio::io_context& io_;
  app::ViewApp& app_;
  ViewServerOptions options_;
  tcp::acceptor acceptor_;
  bool loopback_;
  unsigned short port_ = 0;
  std::list<std::shared_ptr<Connection>> connections_;
  std::list<std::shared_ptr<EventStream>> streams_;
};

}  // namespace

bool is_loopback_address(const std::string& address) {
  beast::error_code ec;
  const auto parsed = asio::ip::make_address(address, ec);
  return !ec && parsed.is_loopback();
}

void serve_view(app::ViewApp& app, const ViewServerOptions& options, const std::function<void(unsigned short)>& listening) {
  asio::io_context io(1);
  Server server(io, app, options);
  const unsigned short port = server.listen();
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&io](const beast::error_code&, int) { io.stop(); });
  asio::co_spawn(io, server.accept_loop(), asio::detached);
  asio::co_spawn(io, server.poll_loop(), asio::detached);
  listening(port);
  io.run();
}

}  // namespace strata::net
