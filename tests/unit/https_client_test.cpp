#include <catch2/catch.hpp>

#include <stdlib.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_future.hpp>

#include <chrono>
#include <filesystem>

#include "strata/net/https_client.hpp"
#include "test_https_server.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using strata::net::HttpFailure;
using strata::net::HttpRequest;
using strata::net::HttpResponse;
using strata::net::HttpsClient;
using strata::testing::TestHttpsServer;

namespace {

using strata::testing::shared_test_certificates;

HttpResponse send(HttpsClient& client, HttpRequest request) {
  asio::io_context io(1);
  auto future = asio::co_spawn(io, client.send(std::move(request)), asio::use_future);
  io.run();
  return future.get();
}

HttpRequest post(const std::string& url) {
  HttpRequest r;
  r.url = url + "/chat/completions";
  r.headers = {{"Authorization", "Bearer sk-test"}, {"Content-Type", "application/json"}};
  r.body = R"({"model":"m","messages":[],"stream":false})";
  r.timeout = 5s;
  return r;
}

}  // namespace

TEST_CASE("a verified HTTPS POST reaches the server once", "[net][https]") {
  TestHttpsServer server(shared_test_certificates());
  HttpsClient client(shared_test_certificates().ca_file);
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    INFO(host);
    const HttpResponse r = send(client, post(server.url(host)));
    REQUIRE(r.ok());
    CHECK(r.status == 200);
    CHECK(r.body.find("hello from the test server") != std::string::npos);
  }
  CHECK(server.requests() == 2);
  CHECK(server.last_request().find("POST /v1/chat/completions HTTP/1.1") == 0);
  CHECK(server.last_request().find("Authorization: Bearer sk-test") != std::string::npos);
}

TEST_CASE("a 3xx is returned as a status and never followed", "[net][https]") {
  TestHttpsServer server(shared_test_certificates());
  server.set_fault("redirect");
  HttpsClient client(shared_test_certificates().ca_file);
  const HttpResponse r = send(client, post(server.url()));
  REQUIRE(r.ok());
  CHECK(r.status == 302);
  CHECK(r.header("location") == "https://other.invalid/v1/chat/completions");
  CHECK(server.requests() == 1);
}

TEST_CASE("limits and faults fail closed", "[net][https]") {
  TestHttpsServer server(shared_test_certificates());
  HttpsClient client(shared_test_certificates().ca_file);
  server.set_fault("huge");
  CHECK(send(client, post(server.url())).failure == HttpFailure::body_too_large);
  server.set_fault("status:503");
  CHECK(send(client, post(server.url())).status == 503);
  server.set_fault("retry-after");
  HttpResponse r = send(client, post(server.url()));
  CHECK(r.status == 429);
  CHECK(r.header("Retry-After") == "1");
  server.set_fault("truncated");
  CHECK_FALSE(send(client, post(server.url())).ok());
  server.set_fault("reset");
  CHECK_FALSE(send(client, post(server.url())).ok());
  server.set_fault("slow-headers");
  HttpRequest slow = post(server.url());
  slow.timeout = 400ms;
  const auto t0 = std::chrono::steady_clock::now();
  r = send(client, slow);
  CHECK(r.failure == HttpFailure::timeout);
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);
}

TEST_CASE("certificate problems are refused", "[net][https]") {
  HttpsClient client(shared_test_certificates().ca_file);
  TestHttpsServer wrong(shared_test_certificates(), TestHttpsServer::Identity::wrong_host);
  HttpResponse r = send(client, post(wrong.url("localhost")));
  CHECK(r.failure == HttpFailure::tls);
  CHECK(r.detail.find("hostname mismatch") != std::string::npos);
  CHECK(wrong.requests() == 0);
  TestHttpsServer untrusted(shared_test_certificates(), TestHttpsServer::Identity::untrusted);
  r = send(client, post(untrusted.url()));
  CHECK(r.failure == HttpFailure::tls);
  CHECK(untrusted.requests() == 0);
  // Without the test CA the system store does not trust the test server either.
  HttpsClient system_store;
  TestHttpsServer good(shared_test_certificates());
  CHECK(send(system_store, post(good.url())).failure == HttpFailure::tls);
}

TEST_CASE("plain HTTP only to loopback", "[net][https]") {
  HttpsClient client(shared_test_certificates().ca_file);
  HttpResponse r = send(client, post("http://example.invalid/v1"));
  CHECK(r.failure == HttpFailure::invalid_url);
  TestHttpsServer plain(shared_test_certificates(), TestHttpsServer::Identity::plain_http);
  r = send(client, post(plain.url()));
  REQUIRE(r.ok());
  CHECK(r.status == 200);
}

TEST_CASE("proxy variables are never read; SSL_CERT_FILE is", "[net][https]") {
  asio::io_context io(1);
  asio::ip::tcp::acceptor proxy(io, {asio::ip::make_address("127.0.0.1"), 0});
  const std::string proxy_url = "http://127.0.0.1:" + std::to_string(proxy.local_endpoint().port());
  for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"})
    ::setenv(name, proxy_url.c_str(), 1);
  ::setenv("SSL_CERT_FILE", shared_test_certificates().ca_file.c_str(), 1);
  TestHttpsServer server(shared_test_certificates());
  HttpsClient system_store;  // reads SSL_CERT_FILE now
  const HttpResponse r = send(system_store, post(server.url("localhost")));
  for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "SSL_CERT_FILE"})
    ::unsetenv(name);
  REQUIRE(r.ok());
  CHECK(r.status == 200);
  proxy.non_blocking(true);
  boost::system::error_code ec;
  asio::ip::tcp::socket accepted(io);
  proxy.accept(accepted, ec);
  CHECK(ec == asio::error::would_block);  // the proxy listener saw no connection
}
