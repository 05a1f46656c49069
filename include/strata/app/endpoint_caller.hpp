#pragma once
// How `strata run` reaches an endpoint provider (a provider entry with `endpoint`, Strata
// extension). The run only knows this interface; the implementation (app/hosted_endpoints)
// lives with the HTTPS client, outside strata_core.
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <string>

#include "strata/model/json.hpp"
#include "strata/model/observation_builder.hpp"

namespace strata::app {

struct EndpointAttempt {
  const model::Json* provider = nullptr;  // the provider entry (has "endpoint")
  std::string request;                    // the compact study request (spec §1.9)
  std::size_t output_limit = 0;           // bytes of model text kept (min of the two maxOutputBytes)
};

class EndpointCaller {
 public:
  virtual ~EndpointCaller() = default;
  // One attempt: the outcome as the run records it. Never throws for network behaviour.
  // Called on the run's io_context thread. Pass a named EndpointAttempt (g++ 12).
  virtual boost::asio::awaitable<model::AttemptRecord> attempt(EndpointAttempt call) = 0;
};

}  // namespace strata::app
