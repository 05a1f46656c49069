#include "strata/model/agents/pi_stream.hpp"

#include <optional>

#include "strata/model/agents/stream_event.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_writer.hpp"

namespace strata::model {
namespace {

// The text of a content list: its text blocks, joined.
std::string joined_text(const Json& content) {
  std::string text;
  if (!content.is_array()) return text;
  for (const Json& block : content)
    if (block.is_object() && block.contains("type") && block["type"] == "text" && block.contains("text") && block["text"].is_string())
      text += str(block["text"]);
  return text;
}

}  // namespace

AgentTurn::Usage pi_message_usage(const Json& usage) {
  AgentTurn::Usage out;
  const auto input = event_count(usage, "input");
  const auto read = event_count(usage, "cacheRead"), written = event_count(usage, "cacheWrite");
  if (input) out.input_tokens = *input + read.value_or(0) + written.value_or(0);
  out.cached_input_tokens = read;
  out.cache_creation_input_tokens = written;
  out.output_tokens = event_count(usage, "output");
  return out;
}

void PiStreamReader::add_line(std::string_view line, double at_ms) {
  if (!count_line(line)) return;
  const std::optional<Json> parsed = typed_object(line, "an event");
  if (!parsed) return;
  const Json& event = *parsed;
  const std::string& type = str(event["type"]);
  if (type == "message_end") {
    const Json& message = object_member(event, "message");
    if (text_member(message, "role") == "assistant") assistant_message(message);
  } else if (type == "tool_execution_start") {
    tool_started(event, at_ms);
  } else if (type == "tool_execution_end") {
    tool_ended(event, at_ms);
  }
  // session, agent_start/end, turn_start/end, message_start/update, auto_retry_*, compaction_*:
  // nothing Strata needs (message_end carries each message whole)
}

void PiStreamReader::assistant_message(const Json& message) {
  const Json& usage = object_member(message, "usage");
  const AgentTurn::Usage counts = pi_message_usage(usage);
  add_count(turn_.input_tokens, counts.input_tokens);
  add_count(turn_.output_tokens, counts.output_tokens);
  add_count(turn_.cached_input_tokens, counts.cached_input_tokens);
  add_count(turn_.cache_creation_input_tokens, counts.cache_creation_input_tokens);
  add_count(turn_.cost_usd, count_member(object_member(usage, "cost"), "total"));
  const std::string text = message.contains("content") ? joined_text(message["content"]) : std::string();
  turn_.agent_message_bytes += text.size();
  const std::string& stop = text_member(message, "stopReason");
  if (stop == "stop") {
    // The run's answer (a retried attempt that succeeds clears the earlier attempt's error).
    turn_.completed = true;
    error_event_ = false;
    turn_.final_message = text.empty() ? std::nullopt : std::optional<std::string>(text);
  } else {
    turn_.completed = false;
    turn_.final_message.reset();
    if (stop != "toolUse") error_event_ = true;  // error, aborted, length: this attempt failed
  }
}

void PiStreamReader::tool_started(const Json& event, double at_ms) {
  ++turn_.tool_events;
  if (!turn_.first_tool_event_ms) turn_.first_tool_event_ms = at_ms;
  const std::string& id = text_member(event, "toolCallId");
  if (!id.empty()) open_calls_[id] = event.contains("args") ? compact_json(event["args"]).size() : 0;
}

void PiStreamReader::tool_ended(const Json& event, double at_ms) {
  ++turn_.tool_events;
  if (!turn_.first_tool_event_ms) turn_.first_tool_event_ms = at_ms;
  const auto open = open_calls_.find(text_member(event, "toolCallId"));
  if (open == open_calls_.end()) return;  // an end without its start, or seen twice
  ++turn_.tool_calls;
  turn_.tool_input_bytes += open->second;
  open_calls_.erase(open);
  const Json& result = object_member(event, "result");
  const std::string output = result.contains("content") ? joined_text(result["content"]) : std::string();
  turn_.tool_output_bytes += output.size();
  // A tool the --tools allowlist left out is not offered; a call of it anyway is refused so.
  if (event.contains("isError") && event["isError"] == true && output == "Tool " + text_member(event, "toolName") + " not found")
    count_denial();
}

}  // namespace strata::model
