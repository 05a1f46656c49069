#include "strata/model/agents/gemini_stream.hpp"

#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_writer.hpp"

namespace strata::model {
namespace {

// The refusals of the CLI's own read-only setting: a tool it did not register in headless mode
// (write_file, replace, run_shell_command), or one its policy denied.
bool is_denial_type(const std::string& error_type) { return error_type == "tool_not_registered" || error_type == "policy_violation"; }

}  // namespace

void GeminiStreamReader::add_line(std::string_view line, double at_ms) {
  if (!count_line(line)) return;
  const std::optional<Json> parsed = typed_object(line, "an event");
  if (!parsed || turn_.completed) return;  // nothing after the run's result is the run's
  const Json& event = *parsed;
  const std::string& type = str(event["type"]);
  if (type == "message" && text_member(event, "role") == "assistant") {
    const std::string& text = text_member(event, "content");
    text_ += text;  // with "delta": true the text comes in pieces
    turn_.agent_message_bytes += text.size();
  } else if (type == "tool_use") {
    ++turn_.tool_events;
    if (!turn_.first_tool_event_ms) turn_.first_tool_event_ms = at_ms;
    const auto parameters = event.find("parameters");
    open_tool_uses_[text_member(event, "tool_id")] = parameters == event.end() ? 0 : compact_json(*parameters).size();
    // A sub-agent (issue 36). Its calls are in the result's stats (measured with 0.61.0: a
    // sub-agent's two calls counted with the main loop's), so the counts stay whole.
    if (text_member(event, "tool_name") == "invoke_agent") ++turn_.subagent_runs;
    text_.clear();  // what came before a tool call was narration, not the answer
  } else if (type == "tool_result") {
    tool_result(event);
  } else if (type == "error") {
    if (text_member(event, "severity") != "warning") error_event_ = true;  // the result says whether the run survived it
  } else if (type == "result") {
    result(event);
  }
  // init, the user's message, unknown types: nothing Strata needs
}

void GeminiStreamReader::tool_result(const Json& event) {
  ++turn_.tool_events;
  text_.clear();
  const auto open = open_tool_uses_.find(text_member(event, "tool_id"));
  if (open == open_tool_uses_.end()) return;
  ++turn_.tool_calls;
  turn_.tool_input_bytes += open->second;
  // "output" is the CLI's display of the result (read_file shows ""), not what the model got:
  // the only size the stream has.
  turn_.tool_output_bytes += text_bytes(event, "output");
  if (is_denial_type(text_member(object_member(event, "error"), "type"))) count_denial();
  open_tool_uses_.erase(open);
}

void GeminiStreamReader::result(const Json& event) {
  if (text_member(event, "status") != "success") {
    defect("the agent's run ended in an error (result " + std::string(text_member(event, "status") == "error" ? "error" : "unknown") + ")");
    return;
  }
  turn_.completed = true;
  if (!text_.empty()) turn_.final_message = text_;
  const auto stats = event.find("stats");
  if (stats == event.end() || !stats->is_object()) return;
  // input_tokens counts every prompt token, the cached ones ("cached") included; output_tokens
  // leaves the thoughts out, which total_tokens has: Strata's output count includes them, as
  // codex's does, with the thoughts as reasoningOutputTokens.
  turn_.input_tokens = count_member(*stats, "input_tokens");
  turn_.cached_input_tokens = count_member(*stats, "cached");
  const auto output = count_member(*stats, "output_tokens");
  const auto total = count_member(*stats, "total_tokens");
  if (output && total && turn_.input_tokens && *total >= *turn_.input_tokens + *output) {
    turn_.reasoning_output_tokens = *total - *turn_.input_tokens - *output;
    turn_.output_tokens = *total - *turn_.input_tokens;
  } else {
    turn_.output_tokens = output;
  }
}

}  // namespace strata::model
