#include "strata/model/study/endpoint_request.hpp"

#include "strata/model/cm/cm_packet.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/payload_shapes.hpp"
#include "strata/model/json/shape.hpp"

namespace strata::model {
namespace {

Json stable_prefix(EndpointRole role) {
  const bool provider = role == EndpointRole::provider;
  const Shape& output = provider ? provider_response_shape() : adjudicator_response_shape();
  return Json{
      {"safety", "Work only from the request below. Do not claim to have run commands, changed files or contacted "
                 "services that the request does not describe."},
      {"workflow", provider ? "One execution of a controlled study (protocol doc-bridge.study-provider.v1): the dynamic "
                              "packet's context.request is the study request a provider process would read on stdin."
                            : "One independent judgement in a controlled study: the dynamic packet's context.request is "
                              "the adjudicator request (task, rubric, candidate) a judge process would read on stdin."},
      {"project_rules", provider ? "Pursue the objective within the allowed tools and without the forbidden actions; cite "
                                   "evidence only by the ids the request defines; report counts you actually observed."
                                 : "Judge the candidate only against the task's rubric, acceptance checks and evidence "
                                   "requirements; do not reward claims the candidate's evidence does not support."},
      {"role", endpoint_role_name(role)},
      {"output_schema", "Reply with exactly one JSON object and nothing else. It follows this JSON Schema: " +
                            compact_json(json_schema(output))}};
}

// The dynamic packet of one call; integers stay integers (strict CM parse).
Json dynamic_packet(EndpointRole role, const std::string& request_text) {
  Json request = cm::parse_strict(request_text, "request");
  Json packet = Json::object();
  packet["workflow"] = kEndpointWorkflow;
  packet["stage"] = endpoint_stage(role);
  packet["role"] = endpoint_role_name(role);
  Json constraints = Json::array();
  if (role == EndpointRole::provider) {
    for (const auto& action : request["forbiddenActions"]) constraints.push_back("Forbidden: " + action.get<std::string>());
    packet["objective"] = request["objective"];
    packet["identifiers"] = request["task"];
    packet["expected_output"] = request["expectedOutcome"];
  } else {
    const Json& task = request["task"];
    packet["objective"] = "Judge whether the candidate achieved: " + task["objective"].get<std::string>();
    packet["identifiers"] = Json{{"taskId", task["id"]}, {"category", task["category"]}, {"difficulty", task["difficulty"]}};
    packet["expected_output"] = "One adjudicator response object: the outcome and the reason for it.";
  }
  packet["constraints"] = std::move(constraints);
  packet["context"] = Json{{"request", std::move(request)}};
  return packet;
}

// Checked by the CM rules of §1.4 (role_messages) once per role, for the system message.
cm::RoleMessages messages_for(EndpointRole role, Json dynamic) {
  Json packet = Json::object();
  packet["stable_prefix"] = stable_prefix(role);
  packet["dynamic_packet"] = std::move(dynamic);
  return cm::role_messages(packet, kEndpointWorkflow, endpoint_stage(role), endpoint_role_name(role));
}

}  // namespace

const char* endpoint_stage(EndpointRole role) { return role == EndpointRole::provider ? "execution" : "adjudication"; }
const char* endpoint_role_name(EndpointRole role) {
  return role == EndpointRole::provider ? "study-provider" : "study-adjudicator";
}

const std::string& endpoint_system_message(EndpointRole role) {
  static const auto system_of = [](EndpointRole r) {
    const Json placeholder = {{"workflow", kEndpointWorkflow}, {"stage", endpoint_stage(r)}, {"role", endpoint_role_name(r)},
                              {"objective", "-"},  {"identifiers", Json::object()}, {"constraints", Json::array()},
                              {"expected_output", "-"}};
    return messages_for(r, placeholder).system;
  };
  static const std::string provider = system_of(EndpointRole::provider);
  static const std::string adjudicator = system_of(EndpointRole::adjudicator);
  return role == EndpointRole::provider ? provider : adjudicator;
}

// The system message is the same for every call (built once); the user message is the
// canonical dynamic packet (§1.4), which role_messages would produce from it too.
std::string endpoint_request_body(EndpointRole role, const Json& endpoint, const std::string& request_text) {
  const cm::RoleMessages messages{endpoint_system_message(role), cm::python_canonical_json(dynamic_packet(role, request_text))};
  const auto parameters = endpoint.find("parameters");
  return cm::request_body(endpoint["model"].get<std::string>(), messages,
                          parameters == endpoint.end() ? nullptr : &*parameters);
}

}  // namespace strata::model
