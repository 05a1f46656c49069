#include "strata/model/trajectory/gemini_trajectory.hpp"

#include "strata/model/agents/stream_event.hpp"

namespace strata::model {

GeminiTrajectory::GeminiTrajectory(TrajectoryBounds bounds, std::vector<std::string> secrets)
    : trajectory_("gemini-cli", bounds, std::move(secrets)) {}

std::size_t GeminiTrajectory::agent_step(const Json& event, double at_ms) {
  if (!agent_step_) {
    agent_step_ = trajectory_.add_step("agent", "", at_ms);
    trajectory_.set_timestamp(*agent_step_, event_text(event, "timestamp"));
    called_ = false;
  }
  return *agent_step_;
}

void GeminiTrajectory::add_line(std::string_view line, double at_ms) {
  if (ended_) return;
  const std::optional<Json> parsed = stream_event(line);
  if (!parsed) return;
  const Json& event = *parsed;
  const std::string& type = event_text(event, "type");
  if (type == "init") {
    trajectory_.set_session(event_text(event, "session_id"));
    trajectory_.set_agent_model(event_text(event, "model"));
  } else if (type == "message" && event_text(event, "role") == "user") {
    const std::size_t step = trajectory_.add_step("user", event_text(event, "content"), at_ms);
    trajectory_.set_timestamp(step, event_text(event, "timestamp"));
    agent_step_.reset();
  } else if (type == "message" && event_text(event, "role") == "assistant") {
    if (called_) agent_step_.reset();  // text after a tool call: the next step
    const std::size_t step = agent_step(event, at_ms);
    // The pieces of one message are one text: joined as they came, without separators.
    trajectory_.append_message(step, event_text(event, "content"), "");
  } else if (type == "tool_use") {
    const std::size_t step = agent_step(event, at_ms);
    trajectory_.add_tool_call(step, event_text(event, "tool_id"), event_text(event, "tool_name"), event_field(event, "parameters"));
    called_ = true;
  } else if (type == "tool_result") {
    // The stream carries a tool's output only for some tools (measured with 0.61.0: read_file's
    // result has its status and no output); then the status is what the result says.
    const Json& error = event_field(event, "error");
    std::string content = error.is_object() ? "error: " + event_text(error, "message") : event_text(event, "output");
    if (content.empty() && !event_text(event, "status").empty()) content = "(" + event_text(event, "status") + "; no output in the stream)";
    trajectory_.add_observation(event_text(event, "tool_id"), content);
  } else if (type == "result") {
    ended_ = true;
  }
}

}  // namespace strata::model
