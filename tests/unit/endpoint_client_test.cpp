#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "strata/error.hpp"
#include "strata/net/endpoint_client.hpp"
#include "strata/net/rate_limit.hpp"
#include "strata/net/retry_policy.hpp"
#include "test_https_server.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using strata::net::AdaptiveConcurrencyLimit;
using strata::net::EndpointClient;
using strata::net::EndpointFailure;
using strata::net::EndpointResult;
using strata::net::EndpointSettings;
using strata::net::HttpFailure;
using strata::testing::TestHttpsServer;

namespace {

const std::string kKey = "sk-endpoint-secret-4f1c9a";
const std::string kBody = R"({"model":"m","messages":[{"role":"user","content":"hi"}],"stream":false})";

using strata::testing::shared_test_certificates;

// Fast retries so the tests stay quick; Retry-After values from the server are honoured.
EndpointSettings settings_for(const std::string& base_url) {
  EndpointSettings s;
  s.base_url = base_url;
  s.api_key = kKey;
  s.ca_file = shared_test_certificates().ca_file;
  s.deadline = 20s;
  s.initial_backoff = 10ms;
  s.max_backoff = 50ms;
  s.jitter_seed = 42;
  return s;
}

// `callers` concurrent calls on `io` (the client's io_context for its whole life).
std::vector<EndpointResult> call_concurrently(asio::io_context& io, EndpointClient& client, int callers) {
  std::vector<EndpointResult> results(static_cast<std::size_t>(callers));
  for (int i = 0; i < callers; ++i)
    asio::co_spawn(
        io,
        [&client, &results, i]() -> asio::awaitable<void> {
          std::string body = kBody;
          results[static_cast<std::size_t>(i)] = co_await client.post_chat_completion(std::move(body));
        },
        asio::detached);
  io.restart();
  io.run();
  return results;
}

EndpointResult call_once(asio::io_context& io, EndpointClient& client) { return call_concurrently(io, client, 1).at(0); }

int sum(const std::vector<EndpointResult>& results, int EndpointResult::*field) {
  int total = 0;
  for (const auto& r : results) total += r.*field;
  return total;
}

bool mentions_key(const EndpointResult& r) {
  auto has = [](const std::string& text) { return text.find(kKey) != std::string::npos; };
  bool found = has(r.detail) || has(r.response.detail) || has(r.response.body);
  for (const auto& [name, value] : r.response.headers) found = found || has(name) || has(value);
  return found;
}

}  // namespace

TEST_CASE("endpoint: sequential calls reuse one keep-alive connection", "[net][endpoint]") {
  TestHttpsServer server(shared_test_certificates());
  asio::io_context io(1);
  EndpointClient client(settings_for(server.url()));
  for (int i = 0; i < 10; ++i) {
    const EndpointResult r = call_once(io, client);
    REQUIRE(r.ok());
    CHECK(r.response.status == 200);
    CHECK(r.response.body.find("hello from the test server") != std::string::npos);
    CHECK(r.attempts == 1);
  }
  CHECK(server.requests() == 10);
  CHECK(server.connections() == 1);
  CHECK(client.stats().connections_opened == 1);
  CHECK(client.stats().connections_reused == 9);
  CHECK(client.stats().idle_connections == 1);
  const std::string last = server.last_request();
  CHECK(last.find("POST /v1/chat/completions HTTP/1.1") == 0);
  CHECK(last.find("Authorization: Bearer " + kKey) != std::string::npos);
  CHECK(last.find("Accept-Encoding: identity") != std::string::npos);
  CHECK(last.find("Connection: close") == std::string::npos);
}

TEST_CASE("endpoint: 64 callers never have more requests in flight than the limit", "[net][endpoint]") {
  TestHttpsServer server(shared_test_certificates());
  server.set_fault("delay:20");  // answers take a while, so requests overlap at the server
  asio::io_context io(1);
  EndpointSettings settings = settings_for(server.url());
  settings.max_concurrency = 8;
  EndpointClient client(settings);
  const std::vector<EndpointResult> results = call_concurrently(io, client, 64);
  for (const auto& r : results) CHECK(r.ok());
  CHECK(server.requests() == 64);
  CHECK(server.max_in_flight() <= 8);
  CHECK(server.max_in_flight() > 1);  // the calls did run concurrently
  CHECK(server.connections() <= 8);   // connections open only inside a slot
  CHECK(client.stats().in_flight == 0);
  CHECK(client.stats().waiting == 0);
}

TEST_CASE("endpoint: 429 on every third request, with and without Retry-After: every call completes",
          "[net][endpoint]") {
  TestHttpsServer server(shared_test_certificates());
  server.set_fault("throttle:429,delay:10");
  asio::io_context io(1);
  EndpointSettings settings = settings_for(server.url());
  settings.max_concurrency = 8;
  EndpointClient client(settings);
  const std::vector<EndpointResult> results = call_concurrently(io, client, 64);
  for (const auto& r : results) {
    CHECK(r.ok());
    CHECK(r.failure == EndpointFailure::none);
    CHECK(r.transport_retries == 0);
    CHECK(r.attempts == 1 + r.rate_limit_waits);
  }
  CHECK(server.throttled() > 0);
  CHECK(sum(results, &EndpointResult::rate_limit_waits) == server.throttled());
  CHECK(sum(results, &EndpointResult::attempts) == server.requests());
  CHECK(server.requests() == 64 + server.throttled());
  CHECK(server.max_in_flight() <= 8);
}

TEST_CASE("endpoint: the concurrency limit halves on 429 and grows back by one per success", "[net][endpoint]") {
  TestHttpsServer server(shared_test_certificates());
  server.set_fault("throttle:429:0");  // request 3 gets 429 with Retry-After: 0
  asio::io_context io(1);
  EndpointSettings settings = settings_for(server.url());
  settings.max_concurrency = 8;
  EndpointClient client(settings);
  CHECK(client.stats().concurrency_limit == 8);
  CHECK(call_once(io, client).ok());
  CHECK(call_once(io, client).ok());
  const EndpointResult third = call_once(io, client);
  CHECK(third.ok());
  CHECK(third.rate_limit_waits == 1);
  CHECK(third.attempts == 2);
  CHECK(client.stats().concurrency_limit == 5);  // 8 -> 4 on the 429, +1 for the retry's success
  server.set_fault("ok");
  for (int i = 0; i < 3; ++i) CHECK(call_once(io, client).ok());
  CHECK(client.stats().concurrency_limit == 8);
  CHECK(call_once(io, client).ok());
  CHECK(client.stats().concurrency_limit == 8);  // never above the configured maximum
}

TEST_CASE("endpoint: 503 with Retry-After in seconds or as an HTTP date is waited out", "[net][endpoint]") {
  for (const std::string fault : {"throttle:503:1", "throttle:503:date"}) {
    INFO(fault);
    TestHttpsServer server(shared_test_certificates());
    server.set_fault(fault);
    asio::io_context io(1);
    EndpointClient client(settings_for(server.url()));
    std::vector<EndpointResult> results;
    for (int i = 0; i < 6; ++i) results.push_back(call_once(io, client));
    for (const auto& r : results) CHECK(r.ok());
    CHECK(server.throttled() >= 2);
    CHECK(sum(results, &EndpointResult::rate_limit_waits) == server.throttled());
    CHECK(sum(results, &EndpointResult::attempts) == server.requests());
  }
}

TEST_CASE("endpoint: rate-limit retries are bounded", "[net][endpoint]") {
  TestHttpsServer server(shared_test_certificates());
  server.set_fault("status:429");  // every request, no Retry-After: backoff
  asio::io_context io(1);
  EndpointSettings settings = settings_for(server.url());
  settings.rate_limit_retries = 2;
  EndpointClient client(settings);
  const EndpointResult r = call_once(io, client);
  CHECK(r.failure == EndpointFailure::rate_limited);
  CHECK_FALSE(r.ok());
  CHECK(r.response.status == 429);
  CHECK(r.attempts == 3);
  CHECK(r.rate_limit_waits == 2);
  CHECK(server.requests() == 3);
  CHECK(client.stats().concurrency_limit == 1);  // 8 -> 4 -> 2 -> 1
}

TEST_CASE("endpoint: transport retries are bounded; 0 means one attempt", "[net][endpoint]") {
  TestHttpsServer server(shared_test_certificates());
  server.set_fault("reset");
  for (const int retries : {3, 0}) {
    INFO(retries);
    const int before = server.requests();
    asio::io_context io(1);
    EndpointSettings settings = settings_for(server.url());
    settings.transport_retries = retries;
    EndpointClient client(settings);
    const EndpointResult r = call_once(io, client);
    CHECK(r.failure == EndpointFailure::transport);
    CHECK(r.response.failure == HttpFailure::io);
    CHECK(r.attempts == retries + 1);
    CHECK(r.transport_retries == retries);
    CHECK(r.stale_replays == 0);  // every attempt was on a new connection
    CHECK(server.requests() - before == retries + 1);
  }

  // Nothing listening: connect failures are retried the same way.
  asio::io_context io(1);
  unsigned short port = 0;
  {
    asio::ip::tcp::acceptor probe(io, {asio::ip::make_address("127.0.0.1"), 0});
    port = probe.local_endpoint().port();
  }
  EndpointSettings settings = settings_for("https://127.0.0.1:" + std::to_string(port) + "/v1");
  settings.transport_retries = 2;
  EndpointClient client(settings);
  const EndpointResult r = call_once(io, client);
  CHECK(r.failure == EndpointFailure::transport);
  CHECK(r.response.failure == HttpFailure::connect);
  CHECK(r.attempts == 3);
}

TEST_CASE("endpoint: a reused connection the server closed is replayed once, not counted as a retry",
          "[net][endpoint]") {
  SECTION("the server resets the second request on a connection") {
    TestHttpsServer server(shared_test_certificates());
    server.set_fault("reset-reused");
    asio::io_context io(1);
    EndpointSettings settings = settings_for(server.url());
    settings.transport_retries = 0;
    EndpointClient client(settings);
    REQUIRE(call_once(io, client).ok());
    const EndpointResult r = call_once(io, client);
    CHECK(r.ok());
    CHECK(r.attempts == 1);
    CHECK(r.transport_retries == 0);
    CHECK(r.stale_replays == 1);
    CHECK(server.requests() == 3);
    CHECK(server.connections() == 2);
  }
  SECTION("the server closes idle connections without notice") {
    TestHttpsServer server(shared_test_certificates());
    server.set_fault("drop-idle");
    asio::io_context io(1);
    EndpointSettings settings = settings_for(server.url());
    settings.transport_retries = 0;
    EndpointClient client(settings);
    for (int i = 0; i < 3; ++i) {
      // Either the pool sees the connection closed, or the request on it fails and is
      // replayed: both without a retry.
      const EndpointResult r = call_once(io, client);
      CHECK(r.ok());
      CHECK(r.attempts == 1);
      CHECK(r.transport_retries == 0);
    }
    CHECK(server.requests() == 3);
    CHECK(server.connections() == 3);
  }
}

TEST_CASE("endpoint: the deadline holds with slow headers", "[net][endpoint]") {
  TestHttpsServer server(shared_test_certificates());
  server.set_fault("slow-headers");  // headers after 3 s
  SECTION("one total deadline") {
    asio::io_context io(1);
    EndpointSettings settings = settings_for(server.url());
    settings.deadline = 300ms;
    EndpointClient client(settings);
    const EndpointResult r = call_once(io, client);
    CHECK(r.failure == EndpointFailure::deadline);
    CHECK(r.response.failure == HttpFailure::timeout);
    CHECK(r.attempts == 1);
    CHECK(server.requests() == 1);
  }
  SECTION("an attempt timeout inside the deadline is a retried transport failure") {
    asio::io_context io(1);
    EndpointSettings settings = settings_for(server.url());
    settings.attempt_timeout = 200ms;
    settings.transport_retries = 1;
    EndpointClient client(settings);
    const EndpointResult r = call_once(io, client);
    CHECK(r.failure == EndpointFailure::transport);
    CHECK(r.response.failure == HttpFailure::timeout);
    CHECK(r.attempts == 2);
    CHECK(server.requests() == 2);
  }
  SECTION("calls waiting for a slot give up at their deadline too") {
    // The first call holds the only slot until its deadline; the others' deadlines pass
    // (microseconds later) while they wait, or just after the slot came free. Which of the
    // two is a race, so only the outcome is checked (the queue itself: the limit's test).
    asio::io_context io(1);
    EndpointSettings settings = settings_for(server.url());
    settings.max_concurrency = 1;
    settings.deadline = 300ms;
    EndpointClient client(settings);
    const std::vector<EndpointResult> results = call_concurrently(io, client, 4);
    for (const auto& r : results) CHECK(r.failure == EndpointFailure::deadline);
    CHECK(sum(results, &EndpointResult::attempts) >= 1);
    CHECK(server.requests() <= sum(results, &EndpointResult::attempts));
    CHECK(client.stats().in_flight == 0);
    CHECK(client.stats().waiting == 0);
  }
}

TEST_CASE("endpoint: a cancelled call gives its slot back", "[net][endpoint]") {
  using namespace boost::asio::experimental::awaitable_operators;
  TestHttpsServer server(shared_test_certificates());
  server.set_fault("slow-headers");
  asio::io_context io(1);
  EndpointSettings settings = settings_for(server.url());
  settings.max_concurrency = 1;  // one call sends, the other waits for the slot
  EndpointClient client(settings);
  int cancelled = 0;
  // The first call takes the slot and is cancelled at 200 ms, in the middle of its exchange;
  // the second is cancelled at 100 ms while it waits for the slot.
  for (const auto after : {200ms, 100ms})
    asio::co_spawn(
        io,
        [&, after]() -> asio::awaitable<void> {
          const auto executor = co_await asio::this_coro::executor;
          asio::steady_timer timer(executor, after);
          std::string body = kBody;
          const auto first = co_await (client.post_chat_completion(std::move(body)) || timer.async_wait(asio::use_awaitable));
          if (first.index() == 1) ++cancelled;
        },
        asio::detached);
  io.run();
  CHECK(cancelled == 2);
  CHECK(client.stats().in_flight == 0);
  CHECK(client.stats().waiting == 0);
  CHECK(client.stats().idle_connections == 0);  // the interrupted connection is not reused
  server.set_fault("ok");
  CHECK(call_once(io, client).ok());
  CHECK(server.requests() == 2);
}

TEST_CASE("endpoint: a non-2xx status other than 429/503 comes back as is", "[net][endpoint]") {
  TestHttpsServer server(shared_test_certificates());
  asio::io_context io(1);
  EndpointClient client(settings_for(server.url()));
  for (const int status : {400, 401, 500, 502}) {
    INFO(status);
    server.set_fault("status:" + std::to_string(status));
    const int before = server.requests();
    const EndpointResult r = call_once(io, client);
    CHECK(r.failure == EndpointFailure::none);
    CHECK_FALSE(r.ok());
    CHECK(r.response.status == status);
    CHECK(r.response.body.find("injected failure") != std::string::npos);
    CHECK(r.attempts == 1);
    CHECK(server.requests() - before == 1);
  }
  server.set_fault("redirect");
  const EndpointResult r = call_once(io, client);
  CHECK(r.response.status == 302);
  CHECK(r.attempts == 1);
}

TEST_CASE("endpoint: the API key appears in no result, detail or error", "[net][endpoint]") {
  std::vector<EndpointResult> results;
  {
    TestHttpsServer server(shared_test_certificates());
    asio::io_context io(1);
    EndpointSettings settings = settings_for(server.url());
    settings.deadline = 2s;
    settings.attempt_timeout = 300ms;
    settings.transport_retries = 1;
    settings.rate_limit_retries = 1;
    EndpointClient client(settings);
    for (const std::string fault :
         {"ok", "reset", "truncated", "huge", "status:401", "status:429", "throttle:503:1", "slow-headers", "invalid-json"}) {
      server.set_fault(fault);
      results.push_back(call_once(io, client));
    }
    CHECK(server.last_request().find(kKey) != std::string::npos);  // the key was sent, in its header
  }
  {
    TestHttpsServer wrong(shared_test_certificates(), TestHttpsServer::Identity::wrong_host);
    asio::io_context io(1);
    EndpointClient client(settings_for(wrong.url("localhost")));
    results.push_back(call_once(io, client));
    CHECK(results.back().response.failure == HttpFailure::tls);
  }
  {
    asio::io_context io(1);
    EndpointSettings settings = settings_for("https://127.0.0.1:1/v1");
    settings.transport_retries = 0;
    EndpointClient client(settings);
    results.push_back(call_once(io, client));
  }
  for (const auto& r : results) {
    INFO(r.detail);
    CHECK_FALSE(mentions_key(r));
  }

  // Unusable settings: the error names neither the key nor the URL that may carry one.
  const auto error_of = [](EndpointSettings settings) -> std::string {
    try {
      EndpointClient client(std::move(settings));
    } catch (const strata::Error& e) {
      return e.what();
    }
    return {};
  };
  EndpointSettings with_userinfo = settings_for("https://user:" + kKey + "@127.0.0.1:9/v1");
  std::string message = error_of(with_userinfo);
  CHECK_FALSE(message.empty());
  CHECK(message.find(kKey) == std::string::npos);
  EndpointSettings bad_key = settings_for("https://127.0.0.1:9/v1");
  bad_key.api_key = kKey + "\r\nX-Injected: 1";
  message = error_of(bad_key);
  CHECK_FALSE(message.empty());
  CHECK(message.find(kKey) == std::string::npos);
  EndpointSettings plain_remote = settings_for("http://example.invalid/v1");
  CHECK(error_of(plain_remote) == "non-loopback endpoints require HTTPS");
}

TEST_CASE("endpoint: a plain HTTP loopback endpoint works", "[net][endpoint]") {
  TestHttpsServer server(shared_test_certificates(), TestHttpsServer::Identity::plain_http);
  asio::io_context io(1);
  EndpointClient client(settings_for(server.url()));
  for (int i = 0; i < 3; ++i) CHECK(call_once(io, client).ok());
  CHECK(server.connections() == 1);
}

TEST_CASE("endpoint: requests per minute space the calls out", "[net][endpoint]") {
  TestHttpsServer server(shared_test_certificates());
  asio::io_context io(1);
  EndpointSettings settings = settings_for(server.url());
  settings.requests_per_minute = 6000;  // one every 10 ms
  EndpointClient client(settings);
  const std::vector<EndpointResult> results = call_concurrently(io, client, 5);
  for (const auto& r : results) CHECK(r.ok());
  CHECK(server.requests() == 5);

  strata::net::RequestPacer slow(1);  // one a minute: the second turn would miss a 1 s deadline
  bool first = false, second = true;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        first = co_await slow.wait_turn(std::chrono::steady_clock::now() + 1s);
        second = co_await slow.wait_turn(std::chrono::steady_clock::now() + 1s);
      },
      asio::detached);
  io.restart();
  io.run();
  CHECK(first);
  CHECK_FALSE(second);
}

TEST_CASE("adaptive concurrency limit: FIFO hand-over, one cut per overload episode", "[net][endpoint]") {
  asio::io_context io(1);
  AdaptiveConcurrencyLimit limit(2);
  const auto far = std::chrono::steady_clock::now() + 1h;
  std::vector<int> order;
  std::vector<AdaptiveConcurrencyLimit::Slot> held;
  held.reserve(8);
  const auto take = [&](int id) {
    asio::co_spawn(
        io,
        [&, id]() -> asio::awaitable<void> {
          AdaptiveConcurrencyLimit::Slot slot = co_await limit.acquire(far);
          if (!slot) co_return;
          order.push_back(id);
          held.push_back(std::move(slot));
        },
        asio::detached);
  };
  for (int id = 1; id <= 4; ++id) take(id);
  io.poll();
  CHECK(order == std::vector<int>{1, 2});
  CHECK(limit.in_use() == 2);
  CHECK(limit.waiting() == 2);

  held[0].release();  // 3 gets it, ahead of anyone new
  take(5);
  io.poll();
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK(limit.waiting() == 2);

  limit.overloaded(held[1]);  // 2 -> 1
  CHECK(limit.limit() == 1);
  limit.overloaded(held[2]);  // slot 3 was granted before the cut: same episode
  CHECK(limit.limit() == 1);
  limit.succeeded(held[2]);  // nor does its success count
  CHECK(limit.limit() == 1);

  held[1].release();
  io.poll();
  CHECK(order == std::vector<int>{1, 2, 3});  // 1 in use, limit 1
  held[2].release();
  io.poll();
  CHECK(order == std::vector<int>{1, 2, 3, 4});
  limit.succeeded(held[3]);  // granted after the cut: counts, and lets 5 in
  CHECK(limit.limit() == 2);
  io.poll();
  CHECK(order == std::vector<int>{1, 2, 3, 4, 5});
  CHECK(limit.in_use() == 2);

  // A waiter whose deadline passes leaves the queue empty-handed.
  bool timed_out = false;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        AdaptiveConcurrencyLimit::Slot slot = co_await limit.acquire(std::chrono::steady_clock::now() + 20ms);
        timed_out = !slot;
      },
      asio::detached);
  io.restart();  // the last poll() ran out of work, which stops the io_context
  io.run();
  CHECK(timed_out);
  CHECK(limit.waiting() == 0);
  held.clear();
  CHECK(limit.in_use() == 0);
}

TEST_CASE("Retry-After: delta-seconds and the three HTTP date forms", "[net][endpoint]") {
  using strata::net::parse_retry_after;
  using std::chrono::milliseconds;
  // 1994-11-06 08:49:37 UTC
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(784111777));
  CHECK(parse_retry_after("120", now) == milliseconds(120000));
  CHECK(parse_retry_after(" 3 ", now) == milliseconds(3000));
  CHECK(parse_retry_after("0", now) == milliseconds(0));
  CHECK(parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now) == milliseconds(10000));
  CHECK(parse_retry_after("Sunday, 06-Nov-94 08:50:37 GMT", now) == milliseconds(60000));
  CHECK(parse_retry_after("Sun Nov  6 08:49:39 1994", now) == milliseconds(2000));
  CHECK(parse_retry_after("Sat, 05 Nov 1994 08:49:37 GMT", now) == milliseconds(0));  // in the past
  CHECK(parse_retry_after("99999999999999999999", now) > milliseconds(0));             // saturates
  for (const char* bad : {"", "-1", "1.5", "soon", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT",
                          "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT"}) {
    INFO(bad);
    CHECK_FALSE(parse_retry_after(bad, now).has_value());
  }
}

TEST_CASE("backoff: exponential with jitter, capped, reproducible from the seed", "[net][endpoint]") {
  using std::chrono::milliseconds;
  strata::net::Backoff a(100ms, 1000ms, 7), b(100ms, 1000ms, 7);
  for (int retry = 0; retry < 8; ++retry) {
    INFO(retry);
    const milliseconds full = std::min(milliseconds(100 << std::min(retry, 10)), milliseconds(1000));
    const milliseconds d = a.delay(retry);
    CHECK(d >= full / 2);
    CHECK(d <= full);
    CHECK(b.delay(retry) == d);
  }
}
