#include "strata/net/endpoint_client.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <algorithm>
#include <random>

#include "connection_pool.hpp"
#include "http_connection.hpp"
#include "strata/error.hpp"
#include "strata/net/endpoint_url.hpp"
#include "strata/net/rate_limit.hpp"
#include "strata/net/retry_policy.hpp"
#include "strata/exec/awaitable_tuple.hpp"

namespace strata::net {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using exec::kTuple;

bool printable_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x21 && c <= 0x7E; });
}

// The origin and target of the endpoint; refuses what the model-call boundary refuses.
Url endpoint_url(const EndpointSettings& s) {
  if (!printable_ascii(s.base_url)) throw Error("endpoint base URL contains unsupported characters");
  if (const auto problem = base_url_problem(s.base_url)) {
    switch (*problem) {
      case BaseUrlProblem::not_http_url: throw Error("endpoint base URL must be an HTTP(S) URL");
      case BaseUrlProblem::credentials_or_query: throw Error("endpoint base URL cannot contain credentials or query data");
      case BaseUrlProblem::plain_http_to_remote: throw Error("non-loopback endpoints require HTTPS");
    }
  }
  std::optional<Url> url = parse_url(chat_completions_endpoint(s.base_url));
  if (!url) throw Error("endpoint base URL must be an HTTP(S) URL");
  return std::move(*url);
}

void check_settings(const EndpointSettings& s) {
  if (s.api_key.size() > 4096 || !printable_ascii(s.api_key)) throw Error("endpoint API key contains unsupported characters");
  if (!printable_ascii(s.user_agent)) throw Error("endpoint user agent contains unsupported characters");
  if (s.max_concurrency < 1) throw Error("endpoint max concurrency must be at least 1");
  if (s.requests_per_minute < 0 || s.transport_retries < 0 || s.rate_limit_retries < 0)
    throw Error("endpoint rate limits and retry counts cannot be negative");
  if (s.deadline.count() <= 0 || s.attempt_timeout.count() < 0 || s.initial_backoff.count() < 0 ||
      s.max_backoff.count() < 0 || s.max_retry_after.count() < 0 || s.idle_timeout.count() < 0)
    throw Error("endpoint timeouts must be positive");
}

// Worth another attempt: the server may well answer next time.
bool retryable(HttpFailure failure) {
  return failure == HttpFailure::connect || failure == HttpFailure::io || failure == HttpFailure::timeout;
}

bool overloaded(int status) { return status == 429 || status == 503; }

EndpointResult give_up(EndpointResult result, EndpointFailure failure, std::string detail) {
  result.failure = failure;
  result.detail = std::move(detail);
  return result;
}

std::string transport_detail(const HttpResponse& r) { return std::string(describe(r.failure)) + ": " + r.detail; }

asio::awaitable<void> sleep_for(milliseconds delay) {
  const auto executor = co_await asio::this_coro::executor;
  asio::steady_timer timer(executor, delay);
  co_await timer.async_wait(kTuple);
}

}  // namespace

Headers chat_completions_headers(const std::string& api_key, const std::string& user_agent) {
  Headers headers;
  if (!api_key.empty()) headers.emplace_back("Authorization", "Bearer " + api_key);
  headers.emplace_back("Content-Type", "application/json");
  headers.emplace_back("Accept", "application/json");
  headers.emplace_back("Accept-Encoding", "identity");
  headers.emplace_back("User-Agent", user_agent);
  return headers;
}

const char* describe(EndpointFailure failure) {
  switch (failure) {
    case EndpointFailure::none: return "ok";
    case EndpointFailure::rate_limited: return "rate limited";
    case EndpointFailure::transport: return "transport failure";
    case EndpointFailure::deadline: return "deadline passed";
  }
  return "unknown";
}

struct EndpointClient::State {
  EndpointSettings settings;
  Url url;
  Headers headers;
  ResponseLimits limits;
  ConnectionPool pool;
  AdaptiveConcurrencyLimit limit;
  RequestPacer pacer;
  Backoff backoff;
  long requests_sent = 0;

  explicit State(EndpointSettings s, Url u, ConnectionPool p)
      : settings(std::move(s)),
        url(std::move(u)),
        headers(chat_completions_headers(settings.api_key, settings.user_agent)),
        limits{settings.max_header_bytes, settings.max_body_bytes},
        pool(std::move(p)),
        limit(settings.max_concurrency),
        pacer(settings.requests_per_minute),
        backoff(settings.initial_backoff, settings.max_backoff,
                settings.jitter_seed ? *settings.jitter_seed : std::random_device{}()) {}

  // One attempt: a pooled connection, the exchange, and the free replay when a reused
  // connection turns out to have been closed by the server.
  asio::awaitable<Exchange> attempt(const BeastRequest& request, SteadyTime deadline, EndpointResult& result) {
    ConnectionPool::Lease lease = co_await pool.borrow(deadline);
    for (;;) {
      if (!lease.connection) {
        Exchange failed;
        failed.response = std::move(lease.failure);
        co_return failed;
      }
      ++requests_sent;
      Exchange exchange = co_await lease.connection->exchange(request, limits, deadline);
      if (exchange.response.ok()) {
        if (exchange.reusable) pool.give_back(std::move(lease.connection));
        co_return exchange;
      }
      const bool stale = lease.reused && exchange.nothing_received && exchange.response.failure == HttpFailure::io;
      if (!stale) co_return exchange;
      ++result.stale_replays;
      lease = co_await pool.open(deadline);
    }
  }

  // How long to wait before retrying a 429/503: its Retry-After (capped), else backoff.
  milliseconds rate_limit_delay(const HttpResponse& response, int retry) {
    const std::string value = response.header("Retry-After");
    if (const auto asked = parse_retry_after(value, std::chrono::system_clock::now()))
      return std::min(*asked, settings.max_retry_after);
    return backoff.delay(retry);
  }
};

EndpointClient::EndpointClient(EndpointSettings settings) {
  check_settings(settings);
  Url url = endpoint_url(settings);
  std::optional<ConnectionPool> pool;
  try {
    pool.emplace(url, settings.ca_file, static_cast<std::size_t>(settings.max_concurrency), settings.idle_timeout);
  } catch (const boost::system::system_error&) {
    throw Error("cannot load the CA file " + settings.ca_file);
  }
  state_ = std::make_shared<State>(std::move(settings), std::move(url), std::move(*pool));
}

EndpointClient::~EndpointClient() = default;

EndpointStats EndpointClient::stats() const {
  EndpointStats s;
  s.concurrency_limit = state_->limit.limit();
  s.in_flight = state_->limit.in_use();
  s.waiting = state_->limit.waiting();
  s.requests_sent = state_->requests_sent;
  s.connections_opened = state_->pool.opened();
  s.connections_reused = state_->pool.reused();
  s.idle_connections = static_cast<int>(state_->pool.idle());
  return s;
}

asio::awaitable<EndpointResult> EndpointClient::post_chat_completion(std::string body) {
  const std::shared_ptr<State> keep_alive = state_;
  State& s = *keep_alive;
  const SteadyTime deadline = Clock::now() + s.settings.deadline;
  const BeastRequest request = make_request("POST", s.url, s.headers, std::move(body), /*keep_alive=*/true);
  EndpointResult result;
  for (;;) {
    milliseconds wait{0};
    {
      // The slot is held from before the connection is chosen until the response is read,
      // so the server never has more of our requests at once than the limit.
      const AdaptiveConcurrencyLimit::Slot slot = co_await s.limit.acquire(deadline);
      if (!slot || Clock::now() >= deadline)
        co_return give_up(std::move(result), EndpointFailure::deadline, "the deadline passed while waiting for a request slot");
      if (!co_await s.pacer.wait_turn(deadline))
        co_return give_up(std::move(result), EndpointFailure::deadline, "the deadline passed while waiting for the request rate");
      ++result.attempts;
      SteadyTime attempt_deadline = deadline;
      if (s.settings.attempt_timeout.count() > 0) attempt_deadline = std::min(deadline, Clock::now() + s.settings.attempt_timeout);
      Exchange exchange = co_await s.attempt(request, attempt_deadline, result);
      result.response = std::move(exchange.response);
      const HttpResponse& r = result.response;
      if (!r.ok()) {
        if (Clock::now() >= deadline)
          co_return give_up(std::move(result), EndpointFailure::deadline, "the deadline passed: " + transport_detail(r));
        if (!retryable(r.failure) || result.transport_retries >= s.settings.transport_retries)
          co_return give_up(std::move(result), EndpointFailure::transport,
                            transport_detail(r) + " (" + std::to_string(result.attempts) + " attempt" +
                                (result.attempts == 1 ? "" : "s") + ")");
        wait = s.backoff.delay(result.transport_retries);
        ++result.transport_retries;
      } else if (overloaded(r.status)) {
        s.limit.overloaded(slot);
        if (result.rate_limit_waits >= s.settings.rate_limit_retries)
          co_return give_up(std::move(result), EndpointFailure::rate_limited,
                            "HTTP " + std::to_string(r.status) + " after " + std::to_string(result.rate_limit_waits) +
                                " rate-limit retries");
        wait = s.rate_limit_delay(r, result.rate_limit_waits);
        if (Clock::now() + wait >= deadline)
          co_return give_up(std::move(result), EndpointFailure::deadline,
                            "HTTP " + std::to_string(r.status) + ": the deadline leaves no time to wait for a retry");
        ++result.rate_limit_waits;
      } else {
        s.limit.succeeded(slot);
        co_return result;
      }
    }
    // The slot is free while this call waits.
    if (Clock::now() + wait >= deadline)
      co_return give_up(std::move(result), EndpointFailure::deadline,
                        "the deadline leaves no time to retry after " + transport_detail(result.response));
    co_await sleep_for(wait);
  }
}

}  // namespace strata::net
