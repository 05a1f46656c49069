#include "strata/model/trajectory/codex_trajectory.hpp"

#include <algorithm>

#include "strata/model/agents/stream_event.hpp"

namespace strata::model {

CodexTrajectory::CodexTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets)
    : trajectory_("codex", bounds, std::move(secrets)) {
  trajectory_.add_step("user", prompt, 0);
}

void CodexTrajectory::add_line(std::string_view line, double at_ms) {
  const std::optional<Json> parsed = stream_event(line);
  if (!parsed) return;
  const Json& event = *parsed;
  const Json& type = event_field(event, "type");
  if (type == "thread.started") trajectory_.set_session(text_or_json(event_field(event, "thread_id")));
  else if (type == "item.completed" && event_field(event, "item").is_object()) completed_item(event["item"], at_ms);
}

void CodexTrajectory::completed_item(const Json& item, double at_ms) {
  const Json& type = event_field(item, "type");
  if (!type.is_string()) return;
  const std::string& kind = type.get_ref<const std::string&>();
  const std::string id = text_or_json(event_field(item, "id"));
  if (kind == "agent_message") {
    trajectory_.add_step("agent", text_or_json(event_field(item, "text")), at_ms);
  } else if (kind == "reasoning") {
    const std::size_t step = trajectory_.add_step("agent", "", at_ms);
    trajectory_.append_reasoning(step, text_or_json(event_field(item, "text")));
  } else if (kind == "command_execution") {
    const std::size_t step = trajectory_.add_step("agent", "", at_ms);
    trajectory_.add_tool_call(step, id, "command_execution", {{"command", event_field(item, "command")}});
    std::string result = text_or_json(event_field(item, "aggregated_output"));
    // An exit code is a small integer; anything else the stream says is shown as it came.
    if (const Json& code = event_field(item, "exit_code"); code.is_number()) {
      const double value = code.get<double>();
      const bool small = value == static_cast<double>(static_cast<int>(std::max(-1e6, std::min(1e6, value))));
      result += "\n[exit code " + (small ? std::to_string(static_cast<int>(value)) : code.dump()) + "]";
    }
    trajectory_.add_observation(id, result);
  } else if (kind == "mcp_tool_call" || kind == "web_search" || kind == "file_search" || kind == "computer") {
    const std::size_t step = trajectory_.add_step("agent", "", at_ms);
    Json arguments = Json::object();
    for (const char* name : {"server", "tool", "arguments", "query"})
      if (!event_field(item, name).is_null()) arguments[name] = event_field(item, name);
    trajectory_.add_tool_call(step, id, kind, arguments);
    trajectory_.add_observation(id, text_or_json(event_field(item, "result")));
  } else if (kind == "file_change") {
    const std::size_t step = trajectory_.add_step("agent", "", at_ms);
    trajectory_.add_tool_call(step, id, "apply_patch", {{"changes", event_field(item, "changes")}});
    trajectory_.add_observation(id, text_or_json(event_field(item, "status")));
  }
}

}  // namespace strata::model
