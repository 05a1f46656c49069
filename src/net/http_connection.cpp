#include "http_connection.hpp"
#include "strata/exec/awaitable_tuple.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace strata::net {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using exec::kTuple;
using Clock = std::chrono::steady_clock;

// EMFILE or ENFILE when this process cannot open a socket right now, else 0. Beast reports a
// socket it could not open as "operation canceled", so after a failed connect the system is
// asked directly.
int descriptor_shortage() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno == EMFILE || errno == ENFILE ? errno : 0;
  ::close(fd);
  return 0;
}

HttpFailure classify(const boost::system::error_code& ec, bool past_deadline) {
  if (past_deadline || ec == beast::error::timeout) return HttpFailure::timeout;
  if (ec == http::error::header_limit) return HttpFailure::header_too_large;
  if (ec == http::error::body_limit) return HttpFailure::body_too_large;
  // The peer closed the connection before or in the middle of the response.
  if (ec == http::error::end_of_stream || ec == http::error::partial_message) return HttpFailure::io;
  // Any other Beast HTTP parser error: the peer did not speak valid HTTP/1.1.
  if (&ec.category() == &boost::system::error_code(http::error::bad_version).category()) return HttpFailure::protocol;
  return HttpFailure::io;
}

template <class Stream>
asio::awaitable<Exchange> exchange_on(Stream& stream, beast::flat_buffer& buffer, const BeastRequest& request,
                                      const ResponseLimits& limits, SteadyTime deadline) {
  Exchange out;
  auto [wec, written] = co_await http::async_write(stream, request, kTuple);
  if (wec) {
    out.response = failed(classify(wec, Clock::now() >= deadline), "sending the request failed: " + wec.message());
    out.nothing_received = true;
    co_return out;
  }
  http::response_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(limits.max_header_bytes, UINT32_MAX)));
  parser.body_limit(limits.max_body_bytes);
  auto [rec, read] = co_await http::async_read(stream, buffer, parser, kTuple);
  if (rec) {
    out.response = failed(classify(rec, Clock::now() >= deadline), "reading the response failed: " + rec.message());
    out.nothing_received = !parser.got_some();
    co_return out;
  }
  auto response = parser.release();
  out.reusable = response.keep_alive() && buffer.size() == 0;
  out.response.status = static_cast<int>(response.result_int());
  for (const auto& field : response)
    out.response.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  out.response.body = std::move(response.body());
  co_return out;
}

}  // namespace

asio::ssl::context make_client_tls_context(const std::string& ca_file) {
  asio::ssl::context tls(asio::ssl::context::tls_client);
  tls.set_verify_mode(asio::ssl::verify_peer);
  if (ca_file.empty()) {
    tls.set_default_verify_paths();
  } else {
    tls.load_verify_file(ca_file);
  }
  return tls;
}

BeastRequest make_request(const std::string& method, const Url& url, const Headers& headers, std::string body,
                          bool keep_alive) {
  BeastRequest req{http::string_to_verb(method), url.target, 11};
  const bool default_port = (url.scheme == "https" && url.port == "443") || (url.scheme == "http" && url.port == "80");
  const std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  req.set(http::field::host, default_port ? host : host + ":" + url.port);
  for (const auto& [name, value] : headers) req.set(name, value);
  // HTTP/1.1 keeps the connection by default; only the refusal is spelled out.
  if (!keep_alive) req.set(http::field::connection, "close");
  req.body() = std::move(body);
  req.prepare_payload();
  return req;
}

asio::awaitable<HttpConnection::Opened> HttpConnection::open(asio::ssl::context& tls, const Url& url,
                                                             SteadyTime deadline) {
  Opened out;
  std::unique_ptr<HttpConnection> c(new HttpConnection());
  auto executor = co_await asio::this_coro::executor;
  tcp::resolver resolver(executor);
  c->plain_.emplace(executor);
  c->plain_->expires_at(deadline);
  // The resolver has no deadline of its own: a timer-less lookup of a literal or a local
  // name is immediate; for DNS the total deadline is enforced on the connection below.
  auto [rec, endpoints] = co_await resolver.async_resolve(url.host, url.port, kTuple);
  if (rec) {
    out.failure = failed(HttpFailure::resolve, "cannot resolve the host: " + rec.message());
    co_return out;
  }
  auto [cec, endpoint] = co_await c->plain_->async_connect(endpoints, kTuple);
  if (cec) {
    const int shortage = cec == beast::error::timeout ? 0 : descriptor_shortage();
    out.failure = failed(shortage != 0                     ? HttpFailure::descriptors
                         : cec == beast::error::timeout ? HttpFailure::timeout
                                                        : HttpFailure::connect,
                         shortage != 0 ? "cannot open a socket: " + std::string(std::strerror(shortage))
                                       : "cannot connect: " + cec.message());
    co_return out;
  }
  boost::system::error_code ignored;
  c->plain_->socket().set_option(tcp::no_delay(true), ignored);  // a request is one write; never wait for an ACK
  if (url.scheme == "http") {
    out.connection = std::move(c);
    co_return out;
  }

  c->tls_.emplace(std::move(*c->plain_), tls);
  c->plain_.reset();
  auto& stream = *c->tls_;
  boost::system::error_code not_ip;
  asio::ip::make_address(url.host, not_ip);
  X509_VERIFY_PARAM* param = SSL_get0_param(stream.native_handle());
  if (not_ip) {
    // SSL_set_tlsext_host_name is a macro with a C cast; call SSL_ctrl directly.
    SSL_ctrl(stream.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
             const_cast<char*>(url.host.c_str()));
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    X509_VERIFY_PARAM_set1_host(param, url.host.c_str(), 0);
  } else {
    X509_VERIFY_PARAM_set1_ip_asc(param, url.host.c_str());
  }
  auto [hec] = co_await stream.async_handshake(asio::ssl::stream_base::client, kTuple);
  if (hec) {
    const long verify = SSL_get_verify_result(stream.native_handle());
    std::string why = verify != X509_V_OK ? X509_verify_cert_error_string(verify) : hec.message();
    out.failure = failed(Clock::now() >= deadline ? HttpFailure::timeout : HttpFailure::tls, "TLS handshake failed: " + why);
    co_return out;
  }
  out.connection = std::move(c);
  co_return out;
}

asio::awaitable<Exchange> HttpConnection::exchange(const BeastRequest& request, const ResponseLimits& limits,
                                                   SteadyTime deadline) {
  tcp().expires_at(deadline);
  if (tls_) co_return co_await exchange_on(*tls_, buffer_, request, limits, deadline);
  co_return co_await exchange_on(*plain_, buffer_, request, limits, deadline);
}

asio::awaitable<void> HttpConnection::close_gracefully(SteadyTime deadline) {
  if (tls_) {
    tcp().expires_at(deadline);
    co_await tls_->async_shutdown(kTuple);
    co_return;
  }
  boost::system::error_code ignored;
  plain_->socket().shutdown(tcp::socket::shutdown_both, ignored);
}

bool HttpConnection::still_open() {
  auto& socket = tcp().socket();
  if (!socket.is_open() || buffer_.size() != 0) return false;
  char byte = 0;
  const ssize_t n = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  // 0: the peer closed it; > 0: bytes nobody asked for (a TLS close_notify, a stray
  // response); an error other than "nothing to read": a reset.
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

void HttpConnection::park() { tcp().expires_never(); }

beast::tcp_stream& HttpConnection::tcp() { return tls_ ? beast::get_lowest_layer(*tls_) : *plain_; }

}  // namespace strata::net
