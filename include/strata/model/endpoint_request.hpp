#pragma once
// What an endpoint provider (Strata extension: a provider entry with `endpoint`) is sent for
// one study execution: the CM role packet of usage-boundary spec §1.4, so the request has the
// same shape as a `strata call`. The system message (the stable prefix) is byte-identical for
// every execution of every run, so providers can cache it; the user message is the canonical
// dynamic packet, which carries the whole study request a provider process gets on stdin.
#include <string>

#include "strata/model/json.hpp"

namespace strata::model {

inline constexpr const char* kEndpointWorkflow = "strata-study";
inline constexpr const char* kEndpointStage = "execution";
inline constexpr const char* kEndpointRole = "study-provider";

// The chat-completions request body for `request_text` (the compact provider request of
// spec §1.9) on the provider entry's `endpoint` (model and optional parameters).
std::string endpoint_request_body(const Json& endpoint, const std::string& request_text);

// The system message alone (the same for every execution).
const std::string& endpoint_system_message();

}  // namespace strata::model
