#include "strata/model/trajectory/opencode_trajectory.hpp"

#include "strata/model/agents/stream_event.hpp"

namespace strata::model {

OpenCodeTrajectory::OpenCodeTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets)
    : trajectory_("opencode", bounds, std::move(secrets)) {
  trajectory_.add_step("user", prompt, 0);
}

std::size_t OpenCodeTrajectory::current_step(double at_ms) {
  if (!step_) step_ = trajectory_.add_step("agent", "", at_ms);
  return *step_;
}

void OpenCodeTrajectory::add_line(std::string_view line, double at_ms) {
  const std::optional<Json> parsed = stream_event(line);
  if (!parsed) return;
  const Json& event = *parsed;
  const std::string type = text_or_json(event_field(event, "type"));
  const Json& part = event_field(event, "part");
  if (type == "step_start") {
    step_ = trajectory_.add_step("agent", "", at_ms);
    if (const std::string session = text_or_json(event_field(event, "sessionID")); !session.empty()) trajectory_.set_session(session);
  } else if (type == "text") {
    trajectory_.append_message(current_step(at_ms), text_or_json(event_field(part, "text")));
  } else if (type == "reasoning") {
    trajectory_.append_reasoning(current_step(at_ms), text_or_json(event_field(part, "text")));
  } else if (type == "tool_use") {
    const Json& state = event_field(part, "state");
    const std::string call = text_or_json(event_field(part, "callID"));
    trajectory_.add_tool_call(current_step(at_ms), call, text_or_json(event_field(part, "tool")), event_field(state, "input"));
    const std::string status = text_or_json(event_field(state, "status"));
    trajectory_.add_observation(call, status == "error" ? "error: " + text_or_json(event_field(state, "error")) : text_or_json(event_field(state, "output")));
  } else if (type == "step_finish") {
    const Json& tokens = event_field(part, "tokens");
    const Json& cache = event_field(tokens, "cache");
    const auto input = event_count(tokens, "input"), output = event_count(tokens, "output");
    const double read = event_count(cache, "read").value_or(0), written = event_count(cache, "write").value_or(0);
    const double reasoning = event_count(tokens, "reasoning").value_or(0);
    trajectory_.set_metrics(current_step(at_ms), input ? std::optional<double>(*input + read + written) : std::nullopt,
                            output ? std::optional<double>(*output + reasoning) : std::nullopt, read);
    step_.reset();
  }
}

}  // namespace strata::model
