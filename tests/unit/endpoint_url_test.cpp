#include <catch2/catch.hpp>

#include "strata/net/endpoint_url.hpp"

using namespace strata::net;

TEST_CASE("loopback is decided on the text alone", "[net]") {
  for (const char* host : {"localhost", "LOCALHOST", "127.0.0.1", "127.255.0.9", "::1", "[::1]", "0:0:0:0:0:0:0:1"}) {
    INFO(host);
    CHECK(is_loopback_host(host));
  }
  for (const char* host : {"localhost.", "127.1", "0x7f.0.0.1", "0.0.0.0", "::ffff:127.0.0.1", "example.com", "128.0.0.1", ""}) {
    INFO(host);
    CHECK_FALSE(is_loopback_host(host));
  }
}

TEST_CASE("http(s) URLs are parsed strictly", "[net]") {
  auto url = parse_url("HTTPS://Api.Example.com:8443/v1?x#y");
  REQUIRE(url);
  CHECK(url->scheme == "https");
  CHECK(url->host == "api.example.com");
  CHECK(url->port == "8443");
  CHECK(url->target == "/v1");
  CHECK(url->has_query);
  CHECK(url->has_fragment);
  url = parse_url("http://[::1]/v1");
  REQUIRE(url);
  CHECK(url->host == "::1");
  CHECK(url->port == "80");
  url = parse_url("https://user:pw@h/v1");
  REQUIRE(url);
  CHECK(url->has_userinfo);
  url = parse_url("https://h/v1?");
  REQUIRE(url);
  CHECK_FALSE(url->has_query);  // an empty query is no query (reference behaviour)
  CHECK_FALSE(parse_url("http://[::1"));
  CHECK_FALSE(parse_url("https://h:bad/v1"));
  CHECK_FALSE(parse_url("https://h:70000/v1"));
  CHECK_FALSE(parse_url("ftp://h/v1"));
  CHECK_FALSE(parse_url("h/v1"));
}

TEST_CASE("the chat-completions endpoint", "[net]") {
  CHECK(chat_completions_endpoint("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1/chat/completions");
  CHECK(chat_completions_endpoint("https://h/v1/") == "https://h/v1/chat/completions");
  CHECK(chat_completions_endpoint("https://h/v1/chat/completions/") == "https://h/v1/chat/completions");
  CHECK(chat_completions_endpoint("https://h") == "https://h/chat/completions");
  CHECK(chat_completions_endpoint("https://h/v1/Chat/Completions") == "https://h/v1/Chat/Completions/chat/completions");
}
