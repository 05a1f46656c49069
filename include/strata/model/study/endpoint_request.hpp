#pragma once
// What an endpoint provider or adjudicator (Strata extension: an entry with `endpoint`) is
// sent: the CM role packet of usage-boundary spec §1.4, so the request has the same shape as
// a `strata call`. The system message (the stable prefix) is byte-identical for every call
// in that role, so providers can cache it; the user message is the canonical dynamic packet,
// which carries the whole request a process would get on stdin as context.request.
#include <string>

#include "strata/model/json/json.hpp"

namespace strata::model {

enum class EndpointRole {
  provider,     // a study execution; the request is a provider request (spec §1.9)
  adjudicator,  // a judgement; the request is an adjudicator request (spec §4.2)
};

inline constexpr const char* kEndpointWorkflow = "strata-study";

// The CM stage and role names of each endpoint role.
const char* endpoint_stage(EndpointRole role);
const char* endpoint_role_name(EndpointRole role);

// The chat-completions request body for `request_text` (compact JSON) on an entry's
// `endpoint` (model and optional parameters).
std::string endpoint_request_body(EndpointRole role, const Json& endpoint, const std::string& request_text);

// The system message alone (the same for every call in the role).
const std::string& endpoint_system_message(EndpointRole role);

}  // namespace strata::model
