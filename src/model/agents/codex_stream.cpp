#include "strata/model/agents/codex_stream.hpp"

#include <set>

#include "strata/error.hpp"
#include "strata/model/json/json_access.hpp"  // str
#include "strata/model/json/json_document.hpp"

namespace strata::model {
namespace {

// The item types that are the agent acting through a tool (docs/AGENT_STREAMS.md §1.3).
// file_search and computer are not emitted by the versions read, but count if they appear.
bool is_tool_item(const std::string& type) {
  static const std::set<std::string> tools{"command_execution", "mcp_tool_call", "web_search", "file_search", "computer"};
  return tools.count(type) > 0;
}

}  // namespace

void CodexStreamReader::add_line(std::string_view line, double at_ms) {
  if (!count_line(line)) return;
  const std::optional<Json> parsed = typed_object(line, "an event");
  if (!parsed) return;
  Json event = *parsed;
  const std::string& type = str(event["type"]);
  if (type == "turn.failed") {
    defect("the turn failed (turn.failed)");
  } else if (type == "error") {
    error_event_ = true;  // retries report errors too; only an error the turn did not survive counts
  } else if (type == "turn.completed") {
    turn_.completed = true;
    if (event.contains("usage") && event["usage"].is_object()) {
      const Json& usage = event["usage"];
      turn_.input_tokens = count_member(usage, "input_tokens");
      turn_.cached_input_tokens = count_member(usage, "cached_input_tokens");
      turn_.output_tokens = count_member(usage, "output_tokens");
      turn_.reasoning_output_tokens = count_member(usage, "reasoning_output_tokens");
    }
  } else if (type == "item.started" || type == "item.updated" || type == "item.completed") {
    if (!event.contains("item") || !event["item"].is_object() || !event["item"].contains("type") || !event["item"]["type"].is_string())
      return;  // an item event Strata does not understand carries nothing it needs
    const Json& item = event["item"];
    const std::string& item_type = str(item["type"]);
    const bool completed = type == "item.completed";
    if (is_tool_item(item_type)) {
      ++turn_.tool_events;
      if (!turn_.first_tool_event_ms) turn_.first_tool_event_ms = at_ms;
      if (completed) {
        ++turn_.tool_calls;
        turn_.tool_input_bytes += text_bytes(item, "command") + text_bytes(item, "arguments") + text_bytes(item, "query");
        turn_.tool_output_bytes += text_bytes(item, "aggregated_output") + text_bytes(item, "result");
      }
    } else if (item_type == "agent_message" && completed && item.contains("text") && item["text"].is_string()) {
      turn_.final_message = str(item["text"]);
      turn_.agent_message_bytes += turn_.final_message->size();
    }
  }
}

}  // namespace strata::model
