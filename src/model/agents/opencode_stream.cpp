#include "strata/model/agents/opencode_stream.hpp"

#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_writer.hpp"

namespace strata::model {

void OpenCodeStreamReader::add_line(std::string_view line, double at_ms) {
  if (!count_line(line)) return;
  const std::optional<Json> parsed = typed_object(line, "an event");
  if (!parsed) return;
  const Json& event = *parsed;
  const std::string& type = str(event["type"]);
  const Json& part = object_member(event, "part");
  if (type == "step_start") {
    step_text_.clear();
    turn_.completed = false;  // a step after a finished one: the run goes on
  } else if (type == "text") {
    const std::size_t bytes = text_bytes(part, "text");
    turn_.agent_message_bytes += bytes;
    if (bytes > 0) step_text_ += str(part["text"]);
  } else if (type == "tool_use") {
    tool_use(part, at_ms);
  } else if (type == "step_finish") {
    step_finish(part);
  } else if (type == "error") {
    // The CLI has given up (it retries failed model calls itself first): whatever came before
    // is not a finished run.
    error_event_ = true;
    turn_.completed = false;
  }
  // reasoning, unknown types: nothing Strata needs
}

// One event per tool call, when it has finished, with its input and output.
void OpenCodeStreamReader::tool_use(const Json& part, double at_ms) {
  ++turn_.tool_events;
  if (!turn_.first_tool_event_ms) turn_.first_tool_event_ms = at_ms;
  const Json& state = object_member(part, "state");
  const std::string& status = text_member(state, "status");
  if (status != "completed" && status != "error") return;
  ++turn_.tool_calls;
  turn_.tool_input_bytes += state.contains("input") ? compact_json(state["input"]).size() : 0;
  turn_.tool_output_bytes += text_bytes(state, "output");
  // A call of a tool the permissions removed comes back as the "invalid" tool.
  if (text_member(part, "tool") == "invalid") count_denial();
  // A sub-agent (issue 36) runs in a session of its own, whose steps are not in this stream
  // (measured with 1.18.33: its calls' tokens appear nowhere in it): said, not under-counted silently.
  if (text_member(part, "tool") == "task") {
    ++turn_.subagent_runs;
    turn_.subagent_usage_unreported = true;
  }
}

void OpenCodeStreamReader::step_finish(const Json& part) {
  // Each step reports its own tokens: input leaves out the cache reads and writes, output the
  // reasoning. Strata's counts include both, as codex's do.
  const Json& tokens = object_member(part, "tokens");
  const Json& cache = object_member(tokens, "cache");
  const auto input = count_member(tokens, "input"), output = count_member(tokens, "output");
  const auto reasoning = count_member(tokens, "reasoning"), read = count_member(cache, "read"), write = count_member(cache, "write");
  if (input) add_count(turn_.input_tokens, *input + read.value_or(0) + write.value_or(0));
  if (output) add_count(turn_.output_tokens, *output + reasoning.value_or(0));
  add_count(turn_.cached_input_tokens, read);
  add_count(turn_.reasoning_output_tokens, reasoning);
  add_count(turn_.cache_creation_input_tokens, write);
  add_count(turn_.cost_usd, count_member(part, "cost"));
  if (text_member(part, "reason") == "stop") {
    turn_.completed = !error_event_;
    turn_.final_message = step_text_.empty() ? std::nullopt : std::optional<std::string>(step_text_);
  }
}

}  // namespace strata::model
