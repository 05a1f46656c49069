#pragma once
// Strata's HTTP(S) client (DESIGN decision 3): one request per call on the caller's
// io_context, TLS peer and host-name verification always on (system store, so
// SSL_CERT_FILE works, or a given CA file), SNI, no proxy variable ever read, a 3xx
// returned as a status and never followed, one total deadline, header and body limits,
// and plain HTTP only to a loopback host. Beast stays inside the .cpp.
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace strata::net {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string url;  // absolute http(s) URL
  std::string method = "POST";
  Headers headers;  // sent as given (besides Host, Content-Length, Connection)
  std::string body;
  std::chrono::milliseconds timeout{120000};  // total: resolve + connect + TLS + write + read
  std::size_t max_header_bytes = 64 * 1024;
  std::size_t max_body_bytes = 8 * 1024 * 1024;
};

enum class HttpFailure {
  none,
  invalid_url,     // not an http(s) URL, or plain http to a non-loopback host
  resolve,         // name resolution failed
  connect,         // no connection (refused, unreachable)
  tls,             // handshake or certificate verification failed
  timeout,         // the total deadline passed
  io,              // the connection broke while writing or reading
  header_too_large,
  body_too_large,
  protocol,        // not a valid HTTP/1.1 response
  descriptors,     // this process is out of file descriptors (EMFILE/ENFILE): not the endpoint's doing
};

struct HttpResponse {
  HttpFailure failure = HttpFailure::none;
  std::string detail;  // a human-readable reason when failure != none (never the request)
  int status = 0;
  Headers headers;
  std::string body;

  bool ok() const { return failure == HttpFailure::none; }
  // The first header with this name (case-insensitive), or "".
  std::string header(const std::string& name) const;
};

const char* describe(HttpFailure failure);

class HttpsClient {
 public:
  // ca_file empty: the system store (OpenSSL default paths; SSL_CERT_FILE/SSL_CERT_DIR apply).
  explicit HttpsClient(const std::string& ca_file = {});
  ~HttpsClient();
  HttpsClient(const HttpsClient&) = delete;
  HttpsClient& operator=(const HttpsClient&) = delete;

  // Never throws for network behaviour. Pass a named HttpRequest (g++ 12 coroutine bug).
  boost::asio::awaitable<HttpResponse> send(HttpRequest request);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::net
