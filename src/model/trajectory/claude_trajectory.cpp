#include "strata/model/trajectory/claude_trajectory.hpp"

#include "strata/error.hpp"
#include "strata/model/json/json_document.hpp"

namespace strata::model {
namespace {

const Json kNoClaudeJson;

const Json& claude_field(const Json& object, const char* name) {
  if (!object.is_object()) return kNoClaudeJson;
  const auto found = object.find(name);
  return found == object.end() ? kNoClaudeJson : *found;
}

const std::string& claude_text(const Json& value) {
  static const std::string kEmpty;
  return value.is_string() ? value.get_ref<const std::string&>() : kEmpty;
}

std::optional<double> claude_count(const Json& value) {
  if (!value.is_number() || value.get<double>() < 0) return std::nullopt;
  return value.get<double>();
}

// A tool result's content as text: a string, or the text of its text blocks (other blocks as JSON).
std::string result_text(const Json& content) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) return content.is_null() ? std::string() : content.dump();
  std::string text;
  for (const Json& block : content) {
    if (!text.empty()) text += "\n";
    const Json& part = claude_field(block, "text");
    text += part.is_string() ? part.get<std::string>() : block.dump();
  }
  return text;
}

}  // namespace

ClaudeTrajectory::ClaudeTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets)
    : trajectory_("claude-code", bounds, std::move(secrets)) {
  trajectory_.add_step("user", prompt, 0);
}

void ClaudeTrajectory::add_line(std::string_view line, double at_ms) {
  if (ended_ || line.find_first_not_of(" \t\r") == std::string_view::npos || line[line.find_first_not_of(" \t\r")] != '{') return;
  Json event;
  try {
    event = parse_json(line);
  } catch (const Error&) {
    return;
  }
  const std::string& type = claude_text(claude_field(event, "type"));
  if (type == "system" && claude_text(claude_field(event, "subtype")) == "init") {
    ++turns_;  // a second init: background work's notification started another turn
    trajectory_.set_agent_version(claude_text(claude_field(event, "claude_code_version")));
    trajectory_.set_agent_model(claude_text(claude_field(event, "model")));
    trajectory_.set_session(claude_text(claude_field(event, "session_id")));
  } else if (type == "assistant") {
    assistant(event, at_ms);
  } else if (type == "user") {
    user(event, at_ms);
  } else if (type == "result" && claude_text(claude_field(claude_field(event, "origin"), "kind")) != "task-notification") {
    ended_ = true;  // what follows is background work's, never the run's
  }
}

void ClaudeTrajectory::assistant(const Json& event, double at_ms) {
  const Json& message = claude_field(event, "message");
  const Json& blocks = claude_field(message, "content");
  if (!blocks.is_array()) return;
  const std::string& id = claude_text(claude_field(message, "id"));
  auto found = id.empty() ? message_steps_.end() : message_steps_.find(id);
  std::size_t step;
  if (found != message_steps_.end()) {
    step = found->second;
  } else {
    step = trajectory_.add_step("agent", "", at_ms);
    if (!id.empty()) message_steps_[id] = step;
    trajectory_.set_model(step, claude_text(claude_field(message, "model")));
    trajectory_.set_timestamp(step, claude_text(claude_field(event, "timestamp")));
    if (const std::string& parent = claude_text(claude_field(event, "parent_tool_use_id")); !parent.empty())
      trajectory_.set_extra(step, "parent_tool_call_id", parent);
    if (turns_ > 1) trajectory_.set_extra(step, "turn", turns_);
  }
  for (const Json& block : blocks) {
    const std::string& kind = claude_text(claude_field(block, "type"));
    if (kind == "text") {
      trajectory_.append_message(step, claude_text(claude_field(block, "text")));
    } else if (kind == "thinking") {
      trajectory_.append_reasoning(step, claude_text(claude_field(block, "thinking")));
    } else if (kind == "tool_use" && claude_field(block, "id").is_string()) {
      trajectory_.add_tool_call(step, claude_text(claude_field(block, "id")), claude_text(claude_field(block, "name")), claude_field(block, "input"));
    }
  }
  // Each event of a message repeats its usage: the step keeps the last.
  const Json& usage = claude_field(message, "usage");
  if (usage.is_object()) {
    const auto uncached = claude_count(claude_field(usage, "input_tokens"));
    const auto read = claude_count(claude_field(usage, "cache_read_input_tokens")).value_or(0);
    const auto written = claude_count(claude_field(usage, "cache_creation_input_tokens")).value_or(0);
    trajectory_.set_metrics(step, uncached ? std::optional<double>(*uncached + read + written) : std::nullopt,
                            claude_count(claude_field(usage, "output_tokens")), read);
  }
}

void ClaudeTrajectory::user(const Json& event, double at_ms) {
  const Json& blocks = claude_field(claude_field(event, "message"), "content");
  const std::string& parent = claude_text(claude_field(event, "parent_tool_use_id"));
  if (blocks.is_string()) {  // a prompt given as text
    const std::size_t step = trajectory_.add_step("user", claude_text(blocks), at_ms);
    if (!parent.empty()) trajectory_.set_extra(step, "parent_tool_call_id", parent);
    return;
  }
  if (!blocks.is_array()) return;
  for (const Json& block : blocks) {
    const std::string& kind = claude_text(claude_field(block, "type"));
    if (kind == "tool_result") {
      trajectory_.add_observation(claude_text(claude_field(block, "tool_use_id")), result_text(claude_field(block, "content")));
    } else if (kind == "text" && !parent.empty()) {
      // A sub-agent's prompt (the main loop's tool call gave it).
      const std::size_t step = trajectory_.add_step("user", claude_text(claude_field(block, "text")), at_ms);
      trajectory_.set_extra(step, "parent_tool_call_id", parent);
    }
  }
}

}  // namespace strata::model
