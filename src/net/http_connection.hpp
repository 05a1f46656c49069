#pragma once
// One HTTP/1.1 connection to an origin: plain TCP (the callers allow it only to a loopback
// host) or TLS with peer and host-name verification and SNI. HttpsClient uses one per call
// and closes it; the endpoint pool keeps them alive between calls. Private to src/net: this
// header carries Beast types, the public headers do not.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "strata/net/endpoint_url.hpp"
#include "strata/net/https_client.hpp"

namespace strata::net {

using SteadyTime = std::chrono::steady_clock::time_point;

// A response that carries only a failure and its reason.
inline HttpResponse failed(HttpFailure failure, std::string detail) {
  HttpResponse r;
  r.failure = failure;
  r.detail = std::move(detail);
  return r;
}
using BeastRequest = boost::beast::http::request<boost::beast::http::string_body>;

// Peer verification on; the system store (SSL_CERT_FILE/SSL_CERT_DIR apply) or `ca_file`.
boost::asio::ssl::context make_client_tls_context(const std::string& ca_file);

// The request as sent: Host from the URL, `headers` as given, Content-Length, and
// `Connection: close` unless `keep_alive`.
BeastRequest make_request(const std::string& method, const Url& url, const Headers& headers, std::string body,
                          bool keep_alive);

struct ResponseLimits {
  std::size_t max_header_bytes = 64 * 1024;
  std::size_t max_body_bytes = 8 * 1024 * 1024;
};

struct Exchange {
  HttpResponse response;
  // The exchange failed before a single byte of a response arrived (the request may or may
  // not have reached the server): on a reused keep-alive connection this is how a
  // connection the server had already closed shows itself.
  bool nothing_received = false;
  // The response was complete and allows another request on this connection.
  bool reusable = false;
};

class HttpConnection {
 public:
  struct Opened {
    std::unique_ptr<HttpConnection> connection;  // null on failure
    HttpResponse failure;                        // failure, detail when connection is null
  };

  // Resolves, connects and (https) handshakes, all before `deadline`. `url` must already
  // have passed the caller's scheme rules.
  static boost::asio::awaitable<Opened> open(boost::asio::ssl::context& tls, const Url& url, SteadyTime deadline);

  // Writes `request` and reads one response, both before `deadline`.
  boost::asio::awaitable<Exchange> exchange(const BeastRequest& request, const ResponseLimits& limits,
                                            SteadyTime deadline);

  // TLS: a close_notify bounded by `deadline`; plain: a TCP shutdown. Errors do not matter.
  boost::asio::awaitable<void> close_gracefully(SteadyTime deadline);

  // For an idle connection: true when the peer has neither closed it nor sent anything
  // unexpected (a peek at the socket, no blocking).
  bool still_open();

  // Called when the connection goes idle: no deadline while nobody uses it.
  void park();

 private:
  HttpConnection() = default;
  boost::beast::tcp_stream& tcp();

  std::optional<boost::beast::tcp_stream> plain_;
  std::optional<boost::beast::ssl_stream<boost::beast::tcp_stream>> tls_;
  boost::beast::flat_buffer buffer_;
};

}  // namespace strata::net
