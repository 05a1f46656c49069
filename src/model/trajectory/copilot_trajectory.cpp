#include "strata/model/trajectory/copilot_trajectory.hpp"

#include "strata/model/agents/stream_event.hpp"

namespace strata::model {

CopilotTrajectory::CopilotTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets)
    : trajectory_("copilot-cli", bounds, std::move(secrets)) {
  trajectory_.add_step("user", prompt, 0);
}

void CopilotTrajectory::add_line(std::string_view line, double at_ms) {
  const std::optional<Json> parsed = stream_event(line);
  if (!parsed) return;
  const Json& event = *parsed;
  const std::string& type = event_text(event, "type");
  const Json& data = event_field(event, "data");
  if (type == "assistant.message") {
    const std::size_t step = trajectory_.add_step("agent", event_text(data, "content"), at_ms);
    trajectory_.set_model(step, event_text(data, "model"));
    trajectory_.set_agent_model(event_text(data, "model"));
    const Json& requests = event_field(data, "toolRequests");
    if (requests.is_array())
      for (const Json& request : requests)
        trajectory_.add_tool_call(step, event_text(request, "toolCallId"), event_text(request, "name"), event_field(request, "arguments"));
  } else if (type == "tool.execution_complete") {
    const std::string& call = event_text(data, "toolCallId");
    if (event_field(data, "success") == false)
      trajectory_.add_observation(call, "error: " + event_text(event_field(data, "error"), "message"));
    else
      trajectory_.add_observation(call, text_or_json(event_field(event_field(data, "result"), "content")));
  } else if (type == "session.error") {
    trajectory_.add_step("system", "the agent gave up: " + event_text(data, "message"), at_ms);
  } else if (type == "result") {
    trajectory_.set_session(event_text(event, "sessionId"));
  }
}

}  // namespace strata::model
