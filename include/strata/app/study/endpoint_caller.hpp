#pragma once
// How `strata run` reaches an endpoint provider (a provider entry with `endpoint`, Strata
// extension). The run only knows this interface; the implementation (app/endpoints/hosted_endpoints)
// lives with the HTTPS client, outside strata_core.
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <string>

#include "strata/model/study/endpoint_request.hpp"
#include "strata/model/json/json.hpp"
#include "strata/model/study/observation_builder.hpp"

namespace strata::app {

struct EndpointAttempt {
  const model::Json* provider = nullptr;  // the provider or adjudicator entry (has "endpoint")
  std::string request;                    // the compact request a process would read on stdin
  model::EndpointRole role = model::EndpointRole::provider;
  std::size_t output_limit = 0;           // bytes of model text kept (min of the two maxOutputBytes)
  // What the call is about, for the usage log (docs/ENDPOINTS.md, "Usage log"; read only
  // when one is configured): the execution's run id and recorded task (a judgement: those
  // of the observation judged), and which try of it this is (1-based). Not owned.
  const std::string* run_id = nullptr;
  const model::Json* task = nullptr;
  int attempt = 1;
};

class EndpointCaller {
 public:
  virtual ~EndpointCaller() = default;
  // One attempt: the outcome as the run records it. Never throws for network behaviour.
  // Called on the run's io_context thread. Pass a named EndpointAttempt (g++ 12).
  virtual boost::asio::awaitable<model::AttemptRecord> attempt(EndpointAttempt call) = 0;

  // Drops every connection. Called once the run's io_context has stopped and before it is
  // destroyed: the connections belong to it.
  virtual void close() = 0;
};

}  // namespace strata::app
