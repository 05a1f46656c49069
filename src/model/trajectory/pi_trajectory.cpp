#include "strata/model/trajectory/pi_trajectory.hpp"

#include "strata/model/agents/pi_stream.hpp"
#include "strata/model/agents/stream_event.hpp"

namespace strata::model {
namespace {

// A content list's text blocks, one per line.
std::string text_lines(const Json& content) {
  if (!content.is_array()) return text_or_json(content);
  std::string text;
  for (const Json& block : content) {
    if (event_text(block, "type") != "text") continue;
    if (!text.empty()) text += "\n";
    text += event_text(block, "text");
  }
  return text;
}

}  // namespace

PiTrajectory::PiTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets)
    : trajectory_("pi", bounds, std::move(secrets)) {
  trajectory_.add_step("user", prompt, 0);
}

void PiTrajectory::add_line(std::string_view line, double at_ms) {
  const std::optional<Json> parsed = stream_event(line);
  if (!parsed) return;
  const Json& event = *parsed;
  const std::string& type = event_text(event, "type");
  if (type == "session") {
    trajectory_.set_session(event_text(event, "id"));
  } else if (type == "message_end") {
    const Json& message = event_field(event, "message");
    const std::string& role = event_text(message, "role");
    if (role == "assistant") assistant(message, at_ms);
    else if (role == "toolResult") trajectory_.add_observation(event_text(message, "toolCallId"), text_lines(event_field(message, "content")));
  }
}

void PiTrajectory::assistant(const Json& message, double at_ms) {
  const std::string& stop = event_text(message, "stopReason");
  const Json& blocks = event_field(message, "content");
  if (stop != "stop" && stop != "toolUse" && (!blocks.is_array() || blocks.empty())) {
    const std::string& error = event_text(message, "errorMessage");
    trajectory_.add_step("system", "model call failed (stopReason " + stop + ")" + (error.empty() ? "" : ": " + error), at_ms);
    return;
  }
  const std::size_t step = trajectory_.add_step("agent", "", at_ms);
  trajectory_.set_model(step, event_text(message, "model"));
  trajectory_.set_agent_model(event_text(message, "model"));
  if (blocks.is_array()) {
    for (const Json& block : blocks) {
      const std::string& kind = event_text(block, "type");
      if (kind == "text") trajectory_.append_message(step, event_text(block, "text"));
      else if (kind == "thinking") trajectory_.append_reasoning(step, event_text(block, "thinking"));
      else if (kind == "toolCall") trajectory_.add_tool_call(step, event_text(block, "id"), event_text(block, "name"), event_field(block, "arguments"));
    }
  }
  const Json& usage = event_field(message, "usage");
  if (usage.is_object()) {
    const AgentTurn::Usage counts = pi_message_usage(usage);  // as the reader counts it
    trajectory_.set_metrics(step, counts.input_tokens, counts.output_tokens, counts.cached_input_tokens.value_or(0));
  }
}

}  // namespace strata::model
