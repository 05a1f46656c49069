#pragma once
// A hosted OpenAI-compatible model endpoint, called in-process from a study run's event
// loop (one io_context thread, no blocking calls). One EndpointClient per endpoint (base
// URL and key); every call to that endpoint goes through it, so they share:
// - keep-alive connections (TLS verified as in HttpsClient, no proxy, no redirects),
// - a concurrency limit that halves on 429/503 and grows back by one per success up to
//   `max_concurrency` (the server never sees more requests in flight than that),
// - an optional requests-per-minute pace.
// Each call retries on its own: 429/503 after Retry-After (seconds or HTTP date, capped) or
// else exponential backoff with jitter; transport failures up to `transport_retries` times.
// A request that fails on a reused connection before any response byte arrived (the server
// had closed it) is replayed once on a new connection and does not count as a retry.
//
// The API key lives in memory only: it goes into the Authorization header and nowhere else
// (never into a result, a detail text or an exception).
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "strata/net/https_client.hpp"

namespace strata::net {

// The headers of a chat-completions request (usage-boundary spec §1.6): the bearer key (left
// out when empty), JSON both ways, identity encoding, the user agent.
Headers chat_completions_headers(const std::string& api_key, const std::string& user_agent);

struct EndpointSettings {
  std::string base_url;  // e.g. https://api.example.com/v1; calls POST to <base>/chat/completions
  std::string api_key;   // empty: no Authorization header
  std::string ca_file;   // empty: the system store (SSL_CERT_FILE applies)
  std::string user_agent = "strata";

  int max_concurrency = 8;       // requests in flight at once, at most
  int requests_per_minute = 0;   // request starts (retries included), evenly spaced; 0: unlimited
  int transport_retries = 3;     // after a connect or I/O failure or an attempt timeout; 0: none
  int rate_limit_retries = 8;    // after a 429 or 503

  std::chrono::milliseconds deadline{std::chrono::minutes(5)};  // per call, every wait included
  std::chrono::milliseconds attempt_timeout{0};                 // per attempt; 0: only the deadline
  std::chrono::milliseconds initial_backoff{500};               // first retry without Retry-After
  std::chrono::milliseconds max_backoff{std::chrono::seconds(30)};
  std::chrono::milliseconds max_retry_after{std::chrono::seconds(60)};  // a longer Retry-After is cut to this
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(30)};     // idle connections older than this close

  std::size_t max_header_bytes = 64 * 1024;
  std::size_t max_body_bytes = 8 * 1024 * 1024;
  std::optional<std::uint64_t> jitter_seed;  // fixed jitter for tests; unset: random
};

enum class EndpointFailure {
  none,          // an HTTP response: see response.status (a non-2xx other than 429/503 is not retried)
  rate_limited,  // still 429/503 after rate_limit_retries; response holds the last one
  transport,     // no response: a failure that is not retried (TLS, resolve, limits) or the retries ran out
  deadline,      // the call's deadline passed, or the next wait would have crossed it
};

const char* describe(EndpointFailure failure);

struct EndpointResult {
  EndpointFailure failure = EndpointFailure::none;
  std::string detail;     // why, when failure != none; never the key, the request or the body
  HttpResponse response;  // the last response, or the last transport failure (failure, detail)

  int attempts = 0;           // requests that counted: 1 + transport_retries + rate_limit_waits
  int rate_limit_waits = 0;   // 429/503 answers waited out
  int transport_retries = 0;  // transport failures retried
  int stale_replays = 0;      // replays after a reused connection turned out closed (not counted)

  // A 2xx response arrived.
  bool ok() const { return failure == EndpointFailure::none && response.status >= 200 && response.status <= 299; }
};

struct EndpointStats {
  int concurrency_limit = 0;  // the adaptive limit now
  int in_flight = 0;          // calls holding a slot
  int waiting = 0;            // calls waiting for one
  long requests_sent = 0;     // every request written, replays included
  long connections_opened = 0;
  long connections_reused = 0;
  int idle_connections = 0;
};

// Lifetime: every call of one client runs on the same io_context (its idle connections
// belong to it); destroy the client before that io_context. A call in progress keeps the
// client's shared state alive until it finishes or its frame is destroyed.
class EndpointClient {
 public:
  // Throws strata::Error when the settings are unusable (the message never contains the
  // key or the URL).
  explicit EndpointClient(EndpointSettings settings);
  ~EndpointClient();
  EndpointClient(const EndpointClient&) = delete;
  EndpointClient& operator=(const EndpointClient&) = delete;

  // POSTs `body` (a JSON chat-completions request) and returns once there is an answer that
  // is not retried or the call gives up. Never throws for network behaviour (cancelling the
  // awaiting coroutine ends it with the usual operation_aborted; its slot and connection
  // are released, the connection is not reused).
  boost::asio::awaitable<EndpointResult> post_chat_completion(std::string body);

  EndpointStats stats() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace strata::net
