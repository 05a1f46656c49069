#include "strata/model/trajectory/claude_trajectory.hpp"

#include "strata/model/agents/stream_event.hpp"

namespace strata::model {
namespace {

// A tool result's content as text: a string, or the text of its text blocks (other blocks as JSON).
std::string result_text(const Json& content) {
  if (!content.is_array()) return text_or_json(content);
  std::string text;
  for (const Json& block : content) {
    if (!text.empty()) text += "\n";
    const Json& part = event_field(block, "text");
    text += part.is_string() ? part.get<std::string>() : block.dump();
  }
  return text;
}

}  // namespace

ClaudeTrajectory::ClaudeTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets,
                                   const ClaudeStreamDialect& dialect)
    : dialect_(dialect), trajectory_(dialect.agent_name, bounds, std::move(secrets)) {
  trajectory_.add_step("user", prompt, 0);
}

void ClaudeTrajectory::add_line(std::string_view line, double at_ms) {
  if (ended_) return;
  const std::optional<Json> parsed = stream_event(line);
  if (!parsed) return;
  const Json& event = *parsed;
  const std::string& type = event_text(event, "type");
  if (type == "system" && event_text(event, "subtype") == "init") {
    ++turns_;  // a second init: background work's notification started another turn
    trajectory_.set_agent_version(event_text(event, dialect_.version_field));
    trajectory_.set_agent_model(event_text(event, "model"));
    trajectory_.set_session(event_text(event, "session_id"));
  } else if (type == "assistant") {
    assistant(event, at_ms);
  } else if (type == "user") {
    user(event, at_ms);
  } else if (type == "result" && event_text(event_field(event, "origin"), "kind") != "task-notification") {
    ended_ = true;  // what follows is background work's, never the run's
  }
}

void ClaudeTrajectory::assistant(const Json& event, double at_ms) {
  const Json& message = event_field(event, "message");
  const Json& blocks = event_field(message, "content");
  if (!blocks.is_array()) return;
  const std::string& id = event_text(message, "id");
  auto found = id.empty() ? message_steps_.end() : message_steps_.find(id);
  std::size_t step;
  if (found != message_steps_.end()) {
    step = found->second;
  } else {
    step = trajectory_.add_step("agent", "", at_ms);
    if (!id.empty()) message_steps_[id] = step;
    trajectory_.set_model(step, event_text(message, "model"));
    trajectory_.set_timestamp(step, event_text(event, "timestamp"));
    if (const std::string& parent = event_text(event, "parent_tool_use_id"); !parent.empty())
      trajectory_.set_extra(step, "parent_tool_call_id", parent);
    if (turns_ > 1) trajectory_.set_extra(step, "turn", turns_);
  }
  for (const Json& block : blocks) {
    const std::string& kind = event_text(block, "type");
    if (kind == "text") {
      trajectory_.append_message(step, event_text(block, "text"));
    } else if (kind == "thinking") {
      trajectory_.append_reasoning(step, event_text(block, "thinking"));
    } else if (kind == "tool_use" && event_field(block, "id").is_string()) {
      trajectory_.add_tool_call(step, event_text(block, "id"), event_text(block, "name"), event_field(block, "input"));
    }
  }
  // Each event of a message repeats its usage: the step keeps the last.
  const Json& usage = event_field(message, "usage");
  if (usage.is_object()) {
    const AgentTurn::Usage counts = claude_stream_usage(usage, dialect_);  // as the reader counts it
    trajectory_.set_metrics(step, counts.input_tokens, counts.output_tokens, counts.cached_input_tokens);
  }
}

void ClaudeTrajectory::user(const Json& event, double at_ms) {
  const Json& blocks = event_field(event_field(event, "message"), "content");
  const std::string& parent = event_text(event, "parent_tool_use_id");
  if (blocks.is_string()) {  // a prompt given as text
    const std::size_t step = trajectory_.add_step("user", text_or_json(blocks), at_ms);
    if (!parent.empty()) trajectory_.set_extra(step, "parent_tool_call_id", parent);
    return;
  }
  if (!blocks.is_array()) return;
  for (const Json& block : blocks) {
    const std::string& kind = event_text(block, "type");
    if (kind == "tool_result") {
      trajectory_.add_observation(event_text(block, "tool_use_id"), result_text(event_field(block, "content")));
    } else if (kind == "text" && !parent.empty()) {
      // A sub-agent's prompt (the main loop's tool call gave it).
      const std::size_t step = trajectory_.add_step("user", event_text(block, "text"), at_ms);
      trajectory_.set_extra(step, "parent_tool_call_id", parent);
    }
  }
}

}  // namespace strata::model
