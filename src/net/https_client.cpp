#include "strata/net/https_client.hpp"

#include <boost/asio/ssl/context.hpp>

#include <algorithm>
#include <cctype>
#include <optional>

#include "http_connection.hpp"
#include "strata/net/endpoint_url.hpp"

namespace strata::net {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

struct HttpsClient::Impl {
  asio::ssl::context tls;
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
    case HttpFailure::descriptors: return "out of file descriptors";
  }
  return "unknown";
}

std::string HttpResponse::header(const std::string& name) const {
  for (const auto& [key, value] : headers)
    if (iequals(key, name)) return value;
  return {};
}

HttpsClient::HttpsClient(const std::string& ca_file) : impl_(std::make_unique<Impl>(Impl{make_client_tls_context(ca_file)})) {}

HttpsClient::~HttpsClient() = default;

// One connection per call, closed afterwards (`Connection: close`).
asio::awaitable<HttpResponse> HttpsClient::send(HttpRequest r) {
  const Clock::time_point deadline = Clock::now() + r.timeout;
  const std::optional<Url> url = parse_url(r.url);
  if (!url) co_return failed(HttpFailure::invalid_url, "not an http(s) URL");
  if (url->scheme == "http" && !is_loopback_host(url->host))
    co_return failed(HttpFailure::invalid_url, "plain HTTP is only allowed to a loopback host");
  const BeastRequest request = make_request(r.method, *url, r.headers, r.body, /*keep_alive=*/false);

  HttpConnection::Opened opened = co_await HttpConnection::open(impl_->tls, *url, deadline);
  if (!opened.connection) co_return std::move(opened.failure);
  ResponseLimits limits;
  limits.max_header_bytes = r.max_header_bytes;
  limits.max_body_bytes = r.max_body_bytes;
  Exchange exchange = co_await opened.connection->exchange(request, limits, deadline);
  // A polite close_notify, bounded by one second (and the deadline); errors do not matter.
  co_await opened.connection->close_gracefully(std::min(deadline, Clock::now() + std::chrono::seconds(1)));
  co_return std::move(exchange.response);
}

}  // namespace strata::net
