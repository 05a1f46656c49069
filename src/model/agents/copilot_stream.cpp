#include "strata/model/agents/copilot_stream.hpp"

#include <optional>

#include "strata/error.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"

namespace strata::model {

void CopilotStreamReader::add_line(std::string_view line, double at_ms) {
  if (!count_line(line)) return;
  const std::optional<Json> parsed = typed_object(line, "an event");
  if (!parsed) return;
  const Json& event = *parsed;
  const std::string& type = str(event["type"]);
  const Json& data = object_member(event, "data");
  if (type == "assistant.message") assistant_message(data);
  else if (type == "tool.execution_start") tool_started(data, at_ms);
  else if (type == "tool.execution_complete") tool_completed(data, at_ms);
  else if (type == "session.error") error_event_ = true;
  else if (type == "result") result(event);
  // session.*, user.message, assistant.turn_*, *_delta, model.call_*, assistant.idle: nothing
  // Strata needs (each message arrives whole in assistant.message)
}

void CopilotStreamReader::assistant_message(const Json& data) {
  const std::string& content = text_member(data, "content");
  turn_.agent_message_bytes += content.size();
  const auto requests = data.find("toolRequests");
  const bool asks_for_tools = requests != data.end() && requests->is_array() && !requests->empty();
  if (!asks_for_tools && !content.empty()) last_answer_ = content;
}

void CopilotStreamReader::tool_started(const Json& data, double at_ms) {
  ++turn_.tool_events;
  if (!turn_.first_tool_event_ms) turn_.first_tool_event_ms = at_ms;
  const std::string& id = text_member(data, "toolCallId");
  if (!id.empty()) open_calls_[id] = data.contains("arguments") ? compact_json(data["arguments"]).size() : 0;
  if (text_member(data, "toolName") == "task") ++turn_.subagent_runs;
}

void CopilotStreamReader::tool_completed(const Json& data, double at_ms) {
  ++turn_.tool_events;
  if (!turn_.first_tool_event_ms) turn_.first_tool_event_ms = at_ms;
  const auto open = open_calls_.find(text_member(data, "toolCallId"));
  if (open == open_calls_.end()) return;  // a completion without its start, or seen twice
  ++turn_.tool_calls;
  turn_.tool_input_bytes += open->second;
  open_calls_.erase(open);
  turn_.tool_output_bytes += text_bytes(object_member(data, "result"), "content");
  // A tool --available-tools left out is not offered; a call of it anyway is refused so.
  const std::string& message = text_member(object_member(data, "error"), "message");
  if (data.contains("success") && data["success"] == false && message.starts_with("Tool '") && message.ends_with("' does not exist."))
    count_denial();
}

void CopilotStreamReader::result(const Json& event) {
  const auto exit_code = count_member(event, "exitCode");
  if (exit_code && *exit_code == 0 && !error_event_) {
    turn_.completed = true;
    if (!last_answer_.empty()) turn_.final_message = last_answer_;
  }
}

void CopilotStreamReader::add_side_output(std::string_view content) {
  // One JSON object a line: spans and metrics. A chat span is one model call; its usage counts
  // the prompt with its cache reads (input_tokens) and the completion with its reasoning
  // (output_tokens), as Strata counts them. Lines that do not parse are skipped: the file is the
  // CLI's telemetry, not its answer.
  std::optional<double> input, cached, output, reasoning;
  std::size_t start = 0;
  while (start < content.size()) {
    std::size_t end = content.find('\n', start);
    if (end == std::string_view::npos) end = content.size();
    const std::string_view line = content.substr(start, end - start);
    start = end + 1;
    Json span;
    try {
      span = parse_json(line);
    } catch (const Error&) {
      continue;
    }
    if (!span.is_object() || text_member(span, "type") != "span") continue;
    const Json& attributes = object_member(span, "attributes");
    if (text_member(attributes, "gen_ai.operation.name") != "chat") continue;
    add_count(input, count_member(attributes, "gen_ai.usage.input_tokens"));
    add_count(cached, count_member(attributes, "gen_ai.usage.cache_read.input_tokens"));
    add_count(output, count_member(attributes, "gen_ai.usage.output_tokens"));
    add_count(reasoning, count_member(attributes, "gen_ai.usage.reasoning.output_tokens"));
  }
  if (!input && !output) return;
  turn_.input_tokens = input;
  turn_.cached_input_tokens = cached.value_or(0);
  turn_.output_tokens = output;
  turn_.reasoning_output_tokens = reasoning;
}

}  // namespace strata::model
