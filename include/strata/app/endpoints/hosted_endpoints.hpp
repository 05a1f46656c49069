#pragma once
// The endpoint providers of one `strata run` (Strata extension, docs/ENDPOINTS.md): one
// net::EndpointClient per endpoint (base URL and key), shared by all the executions of the
// entries that name it
// (keep-alive connections, per-endpoint concurrency, requests per minute, retries), and the
// mapping of an HTTP outcome to the attempt record a provider process would have produced.
#include <chrono>
#include <map>
#include <memory>
#include <vector>

#include "strata/app/study/endpoint_caller.hpp"
#include "strata/app/study/run_preflight.hpp"

namespace strata::net {
class EndpointClient;
}

namespace strata::app {

class EndpointUsageLog;

// The provider entries with `endpoint` that a run's executions use, each once.
std::vector<const model::Json*> endpoint_providers(const RunPreflight& preflight);

class HostedEndpoints final : public EndpointCaller {
 public:
  // For each entry with `endpoint` (others are ignored): its base URL and key variables must
  // be set (an https URL, or http to a loopback host, without credentials or query). Throws
  // strata::Error naming the entry and the variable, never a value. `attempt_deadline` bounds
  // each attempt (plan budget.maxRuntimeMs, or the suite's maxRuntimeMsPerTask for a judge),
  // waits for a slot and retries included.
  // With a `usage_log` (not owned; it outlives this object), every attempt claims a call
  // id there before its request and records a usage event after it; a claim that cannot be
  // recorded makes attempt() throw strata::Error without sending anything.
  HostedEndpoints(const std::vector<const model::Json*>& entries, std::chrono::milliseconds attempt_deadline,
                  EndpointUsageLog* usage_log = nullptr);
  ~HostedEndpoints() override;

  boost::asio::awaitable<model::AttemptRecord> attempt(EndpointAttempt call) override;
  void close() override;

 private:
  std::map<const model::Json*, std::shared_ptr<net::EndpointClient>> clients_;  // shared per endpoint
  std::map<const model::Json*, std::string> keys_;  // each entry's API key: kept out of the usage log
  EndpointUsageLog* usage_log_ = nullptr;
};

}  // namespace strata::app
