#include "strata/model/endpoint_request.hpp"

#include "strata/model/cm_packet.hpp"
#include "strata/model/json_writer.hpp"
#include "strata/model/payload_shapes.hpp"
#include "strata/model/shape.hpp"

namespace strata::model {
namespace {

Json stable_prefix() {
  return Json{
      {"safety", "Work only from the request below. Do not claim to have run commands, changed files or contacted "
                 "services that the request does not describe."},
      {"workflow", "One execution of a controlled study (protocol doc-bridge.study-provider.v1): the dynamic packet's "
                   "context.request is the study request a provider process would read on stdin."},
      {"project_rules", "Pursue the objective within the allowed tools and without the forbidden actions; cite "
                        "evidence only by the ids the request defines; report counts you actually observed."},
      {"role", "study-provider"},
      {"output_schema", "Reply with exactly one JSON object and nothing else. It follows this JSON Schema: " +
                            compact_json(json_schema(provider_response_shape()))}};
}

// The dynamic packet of one execution; integers stay integers (strict CM parse).
Json dynamic_packet(const std::string& request_text) {
  Json request = cm::parse_strict(request_text, "study request");
  Json constraints = Json::array();
  for (const auto& action : request["forbiddenActions"]) constraints.push_back("Forbidden: " + action.get<std::string>());
  Json packet = Json::object();
  packet["workflow"] = kEndpointWorkflow;
  packet["stage"] = kEndpointStage;
  packet["role"] = kEndpointRole;
  packet["objective"] = request["objective"];
  packet["identifiers"] = request["task"];
  packet["constraints"] = std::move(constraints);
  packet["expected_output"] = request["expectedOutcome"];
  packet["context"] = Json{{"request", std::move(request)}};
  return packet;
}

}  // namespace

const std::string& endpoint_system_message() {
  static const std::string system = [] {
    Json packet = Json::object();
    packet["stable_prefix"] = stable_prefix();
    packet["dynamic_packet"] = Json{{"workflow", kEndpointWorkflow}, {"stage", kEndpointStage}, {"role", kEndpointRole},
                                    {"objective", "-"}, {"identifiers", Json::object()}, {"constraints", Json::array()},
                                    {"expected_output", "-"}};
    return cm::role_messages(packet, kEndpointWorkflow, kEndpointStage, kEndpointRole).system;
  }();
  return system;
}

std::string endpoint_request_body(const Json& endpoint, const std::string& request_text) {
  Json packet = Json::object();
  packet["stable_prefix"] = stable_prefix();
  packet["dynamic_packet"] = dynamic_packet(request_text);
  const cm::RoleMessages messages = cm::role_messages(packet, kEndpointWorkflow, kEndpointStage, kEndpointRole);
  const auto parameters = endpoint.find("parameters");
  return cm::request_body(endpoint["model"].get<std::string>(), messages,
                          parameters == endpoint.end() ? nullptr : &*parameters);
}

}  // namespace strata::model
