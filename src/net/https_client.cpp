#include "strata/net/https_client.hpp"

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

#include <algorithm>
#include <cctype>
#include <optional>

#include "strata/net/endpoint_url.hpp"

namespace strata::net {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
using Clock = std::chrono::steady_clock;

HttpResponse failed(HttpFailure failure, std::string detail) {
  HttpResponse r;
  r.failure = failure;
  r.detail = std::move(detail);
  return r;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

http::request<http::string_body> build_request(const HttpRequest& r, const Url& url) {
  http::request<http::string_body> req{http::string_to_verb(r.method), url.target, 11};
  const bool default_port = (url.scheme == "https" && url.port == "443") || (url.scheme == "http" && url.port == "80");
  const std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  req.set(http::field::host, default_port ? host : host + ":" + url.port);
  for (const auto& [name, value] : r.headers) req.set(name, value);
  req.set(http::field::connection, "close");
  req.body() = r.body;
  req.prepare_payload();
  return req;
}

HttpFailure classify(const boost::system::error_code& ec, bool past_deadline) {
  if (past_deadline || ec == beast::error::timeout) return HttpFailure::timeout;
  if (ec == http::error::header_limit) return HttpFailure::header_too_large;
  if (ec == http::error::body_limit) return HttpFailure::body_too_large;
  // Any other Beast HTTP parser error: the peer did not speak valid HTTP/1.1.
  if (&ec.category() == &boost::system::error_code(http::error::bad_version).category()) return HttpFailure::protocol;
  return HttpFailure::io;
}

// Reads the response on any stream; the stream's deadline is already set.
template <class Stream>
asio::awaitable<HttpResponse> exchange(Stream& stream, const http::request<http::string_body>& request,
                                       const HttpRequest& r, Clock::time_point deadline) {
  auto [wec, written] = co_await http::async_write(stream, request, kTuple);
  if (wec) co_return failed(classify(wec, Clock::now() >= deadline), "sending the request failed: " + wec.message());
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(r.max_header_bytes));
  parser.body_limit(r.max_body_bytes);
  auto [rec, read] = co_await http::async_read(stream, buffer, parser, kTuple);
  if (rec) co_return failed(classify(rec, Clock::now() >= deadline), "reading the response failed: " + rec.message());
  auto response = parser.release();
  HttpResponse out;
  out.status = static_cast<int>(response.result_int());
  for (const auto& field : response) out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  out.body = std::move(response.body());
  co_return out;
}

}  // namespace

struct HttpsClient::Impl {
  asio::ssl::context tls{asio::ssl::context::tls_client};
};

const char* describe(HttpFailure failure) {
  switch (failure) {
    case HttpFailure::none: return "ok";
    case HttpFailure::invalid_url: return "invalid URL";
    case HttpFailure::resolve: return "name resolution failed";
    case HttpFailure::connect: return "connection failed";
    case HttpFailure::tls: return "TLS verification failed";
    case HttpFailure::timeout: return "timed out";
    case HttpFailure::io: return "connection broken";
    case HttpFailure::header_too_large: return "response headers too large";
    case HttpFailure::body_too_large: return "response body too large";
    case HttpFailure::protocol: return "invalid HTTP response";
  }
  return "unknown";
}

std::string HttpResponse::header(const std::string& name) const {
  for (const auto& [key, value] : headers)
    if (iequals(key, name)) return value;
  return {};
}

HttpsClient::HttpsClient(const std::string& ca_file) : impl_(std::make_unique<Impl>()) {
  impl_->tls.set_verify_mode(asio::ssl::verify_peer);
  if (ca_file.empty()) {
    impl_->tls.set_default_verify_paths();
  } else {
    impl_->tls.load_verify_file(ca_file);
  }
}

HttpsClient::~HttpsClient() = default;

asio::awaitable<HttpResponse> HttpsClient::send(HttpRequest r) {
  const Clock::time_point deadline = Clock::now() + r.timeout;
  const std::optional<Url> url = parse_url(r.url);
  if (!url) co_return failed(HttpFailure::invalid_url, "not an http(s) URL");
  if (url->scheme == "http" && !is_loopback_host(url->host))
    co_return failed(HttpFailure::invalid_url, "plain HTTP is only allowed to a loopback host");
  const http::request<http::string_body> request = build_request(r, *url);

  auto executor = co_await asio::this_coro::executor;
  tcp::resolver resolver(executor);
  beast::tcp_stream tcp_stream(executor);
  tcp_stream.expires_at(deadline);
  // The resolver has no deadline of its own: a timer-less lookup of a literal or a local
  // name is immediate; for DNS the total deadline is enforced on the connection below.
  auto [rec, endpoints] = co_await resolver.async_resolve(url->host, url->port, kTuple);
  if (rec) co_return failed(HttpFailure::resolve, "cannot resolve the host: " + rec.message());
  auto [cec, endpoint] = co_await tcp_stream.async_connect(endpoints, kTuple);
  if (cec) co_return failed(cec == beast::error::timeout ? HttpFailure::timeout : HttpFailure::connect, "cannot connect: " + cec.message());

  if (url->scheme == "http") {
    HttpResponse response = co_await exchange(tcp_stream, request, r, deadline);
    boost::system::error_code ignored;
    tcp_stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    co_return response;
  }

  beast::ssl_stream<beast::tcp_stream> stream(std::move(tcp_stream), impl_->tls);
  boost::system::error_code not_ip;
  asio::ip::make_address(url->host, not_ip);
  X509_VERIFY_PARAM* param = SSL_get0_param(stream.native_handle());
  if (not_ip) {
    // SSL_set_tlsext_host_name is a macro with a C cast; call SSL_ctrl directly.
    SSL_ctrl(stream.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
             const_cast<char*>(url->host.c_str()));
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    X509_VERIFY_PARAM_set1_host(param, url->host.c_str(), 0);
  } else {
    X509_VERIFY_PARAM_set1_ip_asc(param, url->host.c_str());
  }
  auto [hec] = co_await stream.async_handshake(asio::ssl::stream_base::client, kTuple);
  if (hec) {
    const long verify = SSL_get_verify_result(stream.native_handle());
    std::string why = verify != X509_V_OK ? X509_verify_cert_error_string(verify) : hec.message();
    co_return failed(Clock::now() >= deadline ? HttpFailure::timeout : HttpFailure::tls, "TLS handshake failed: " + why);
  }
  HttpResponse response = co_await exchange(stream, request, r, deadline);
  // A polite close_notify, bounded by one second (and the deadline); errors do not matter.
  beast::get_lowest_layer(stream).expires_at(std::min(deadline, Clock::now() + std::chrono::seconds(1)));
  co_await stream.async_shutdown(kTuple);
  co_return response;
}

}  // namespace strata::net
