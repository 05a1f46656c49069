#include "strata/model/agents/claude_stream.hpp"

#include <algorithm>
#include <optional>

#include "strata/error.hpp"
#include "strata/model/agents/stream_event.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"

namespace strata::model {
namespace {

const Json* content_blocks(const Json& event) {
  const auto message = event.find("message");
  if (message == event.end() || !message->is_object()) return nullptr;
  const auto content = message->find("content");
  return content != message->end() && content->is_array() ? &*content : nullptr;
}

bool is_block(const Json& block, const char* type) {
  return block.is_object() && block.contains("type") && block["type"].is_string() && str(block["type"]) == type;
}

// A tool result's content: text, or a list of blocks (text blocks by their text).
std::size_t result_bytes(const Json& content) {
  if (content.is_string()) return str(content).size();
  if (!content.is_array()) return content.is_null() ? 0 : content.dump().size();
  std::size_t bytes = 0;
  for (const Json& block : content) {
    const auto text = block.is_object() ? block.find("text") : block.end();
    bytes += is_block(block, "text") && text != block.end() && text->is_string() ? str(*text).size() : block.dump().size();
  }
  return bytes;
}

// A result subtype is named in the failure only when it looks like one (it comes from the stream).
std::string subtype_of(const Json& event) {
  const auto subtype = event.find("subtype");
  if (subtype == event.end() || !subtype->is_string()) return "unknown";
  const std::string& text = str(*subtype);
  const bool identifier = !text.empty() && text.size() <= 64 && text[0] >= 'a' && text[0] <= 'z' &&
                          std::all_of(text.begin(), text.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
  return identifier ? text : "unknown";
}

// One usage object in Strata's terms: input counts the uncached input, the cache reads and the
// cache writes; cached is the reads. No input count when the input is missing. Anthropic's input
// count leaves the cache out (it is added); Qwen Code's holds it.
AgentTurn::Usage stream_usage(const Json& usage, const char* input, const char* read, const char* written, const char* output,
                              bool input_includes_cache = false) {
  AgentTurn::Usage out;
  out.cached_input_tokens = event_count(usage, read).value_or(0);
  // Qwen Code's usage names no cache writes: then none is reported, rather than a count of 0.
  const auto written_count = event_count(usage, written);
  out.cache_creation_input_tokens = input_includes_cache ? written_count : written_count.value_or(0);
  if (const auto input_count = event_count(usage, input))
    out.input_tokens = input_includes_cache ? *input_count : *input_count + *out.cached_input_tokens + *out.cache_creation_input_tokens;
  out.output_tokens = event_count(usage, output);
  return out;
}

// The result's modelUsage summed over its models; nothing when absent or when any model's
// entry lacks its counts (a partial sum would under-count).
std::optional<AgentTurn::Usage> all_models_usage(const Json& model_usage) {
  if (model_usage.empty()) return std::nullopt;
  AgentTurn::Usage sum{0.0, 0.0, 0.0, 0.0};
  for (const auto& [model, usage] : model_usage.items()) {
    if (!usage.is_object()) return std::nullopt;
    const auto one = stream_usage(usage, "inputTokens", "cacheReadInputTokens", "cacheCreationInputTokens", "outputTokens");
    if (!one.input_tokens || !one.output_tokens) return std::nullopt;
    *sum.input_tokens += *one.input_tokens;
    *sum.cached_input_tokens += *one.cached_input_tokens;
    *sum.cache_creation_input_tokens += *one.cache_creation_input_tokens;
    *sum.output_tokens += *one.output_tokens;
  }
  return sum;
}

}  // namespace

// With --json-schema Claude Code adds the StructuredOutput tool: the model calls it with its
// answer. It is how the answer is delivered, not the agent using a tool: not a tool call.
AgentTurn::Usage claude_stream_usage(const Json& usage, const ClaudeStreamDialect& dialect) {
  return stream_usage(usage, "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens",
                      dialect.input_includes_cache);
}

const ClaudeStreamDialect& claude_code_dialect() {
  static const ClaudeStreamDialect dialect{"claude-code", "claude_code_version", "StructuredOutput", "structured_output", {"Agent", "Task"},
                                           false, false};
  return dialect;
}

void ClaudeStreamReader::add_line(std::string_view line, double at_ms) {
  if (!count_line(line)) return;
  if (line[line.find_first_not_of(" \t\r")] != '{') return;  // debug noise, e.g. "[SandboxDebug] ..."
  const std::optional<Json> parsed = typed_object(line, "a message");
  if (!parsed) return;
  Json event = *parsed;
  const std::string& type = str(event["type"]);
  if (turn_.completed) {
    // The run's own result has been read: what follows belongs to background work the run left
    // behind (a task notification ends with a result of its own, "origin":{"kind":
    // "task-notification"}), never to the answer (issue 25).
    if (type == "result") ++turn_.background_results;
    return;
  }
  if (type == "system") system_message(event);
  else if (type == "assistant") assistant_message(event, at_ms);
  else if (type == "user") tool_results(event);
  else if (type == "result") result(event);
  // stream_event, rate_limit_event, ...: nothing Strata needs
}

// The init message lists the tools the agent has under the flags it was given; StructuredOutput
// is the answer's channel, not a tool the agent acts with.
void ClaudeStreamReader::system_message(const Json& event) {
  if (subtype_of(event) != "init" || !event.contains("tools") || !event["tools"].is_array()) return;
  std::size_t tools = 0;
  for (const Json& tool : event["tools"]) tools += !(tool.is_string() && str(tool) == dialect_.structured_output_tool);
  turn_.available_tools = tools;
}

void ClaudeStreamReader::assistant_message(const Json& event, double at_ms) {
  if (event.contains("error") && event["error"].is_string()) error_event_ = true;  // e.g. rate_limit
  const Json* blocks = content_blocks(event);
  if (!blocks) return;
  // A sub-agent's own messages carry the id of the tool use that started it.
  const bool main_loop = !event.contains("parent_tool_use_id") || event["parent_tool_use_id"].is_null();
  for (const Json& block : *blocks) {
    if (is_block(block, "text")) {
      turn_.agent_message_bytes += text_bytes(block, "text");
    } else if (is_block(block, "tool_use") && block.contains("id") && block["id"].is_string()) {
      const std::size_t input_bytes = block.contains("input") ? compact_json(block["input"]).size() : 0;
      const std::string name = block.contains("name") && block["name"].is_string() ? str(block["name"]) : std::string();
      if (name == dialect_.structured_output_tool) {
        turn_.agent_message_bytes += input_bytes;
        continue;
      }
      ++turn_.tool_events;
      if (!turn_.first_tool_event_ms) turn_.first_tool_event_ms = at_ms;
      // A sub-agent the main loop starts (Claude Code 2.1.328 names the tool Agent, earlier
      // versions Task; Qwen Code agent).
      const auto& subagent_tools = dialect_.subagent_tools;
      if (main_loop && std::find(subagent_tools.begin(), subagent_tools.end(), name) != subagent_tools.end()) ++turn_.subagent_runs;
      open_tool_uses_[str(block["id"])] = input_bytes;
    }
  }
}

void ClaudeStreamReader::tool_results(const Json& event) {
  const Json* blocks = content_blocks(event);
  if (!blocks) return;
  for (const Json& block : *blocks) {
    if (!is_block(block, "tool_result") || !block.contains("tool_use_id") || !block["tool_use_id"].is_string()) continue;
    const auto open = open_tool_uses_.find(str(block["tool_use_id"]));
    if (open == open_tool_uses_.end()) continue;  // StructuredOutput's acknowledgement, or a result seen twice
    ++turn_.tool_events;
    ++turn_.tool_calls;
    turn_.tool_input_bytes += open->second;
    turn_.tool_output_bytes += block.contains("content") ? result_bytes(block["content"]) : 0;
    open_tool_uses_.erase(open);
  }
}

void ClaudeStreamReader::result(const Json& event) {
  // A result that a background task's notification produced is not the run's own.
  if (text_member(object_member(event, "origin"), "kind") == "task-notification") {
    ++turn_.background_results;
    return;
  }
  const bool is_error = !event.contains("is_error") || event["is_error"] != false;
  const std::string subtype = subtype_of(event);
  if (is_error || subtype != "success") {
    defect("the agent's run ended in an error (result " + subtype + (is_error ? ", is_error" : "") + ")");
    return;
  }
  turn_.completed = true;
  if (event.contains(dialect_.structured_answer_field) && event[dialect_.structured_answer_field].is_object())
    turn_.final_message = compact_json(event[dialect_.structured_answer_field]);
  else if (event.contains("result") && event["result"].is_string())
    turn_.final_message = str(event["result"]);
  // Claude Code: `usage` is the main loop's own calls; `modelUsage` every call of the run per
  // model, the sub-agents' included (measured with 2.1.328: a foreground sub-agent's two calls are
  // in modelUsage and total_cost_usd, not in usage). Strata's counts are every call; the main
  // loop's are kept apart. Qwen Code: `usage` is every call, its sub-agents' included (measured
  // with 0.24.4), and it has no modelUsage.
  const Json& usage = object_member(event, "usage");
  std::optional<AgentTurn::Usage> from_usage;
  if (!usage.empty()) from_usage = claude_stream_usage(usage, dialect_);
  std::optional<AgentTurn::Usage> all;
  if (dialect_.usage_is_every_call) {
    all = from_usage;
  } else {
    turn_.main_loop = from_usage;
    all = all_models_usage(object_member(event, "modelUsage"));
    if (!all) {
      all = turn_.main_loop;
      // Without modelUsage the sub-agents' calls are not in the counts: said, never silently left out.
      turn_.subagent_usage_unreported = turn_.subagent_runs > 0;
    }
  }
  if (all) {
    // Strata's input count is the uncached input, the cache reads and the cache writes, with the
    // cache reads as its cached part (docs/PROVIDERS.md).
    turn_.input_tokens = all->input_tokens;
    turn_.cached_input_tokens = all->cached_input_tokens;
    turn_.cache_creation_input_tokens = all->cache_creation_input_tokens;
    turn_.output_tokens = all->output_tokens;
  }
  if (const auto cost = count_member(event, "total_cost_usd")) turn_.cost_usd = cost;
  // The tool uses the permission mode refused (e.g. a Bash command that writes, under dontAsk).
  if (event.contains("permission_denials") && event["permission_denials"].is_array())
    turn_.denied_tool_uses = event["permission_denials"].size();
}

}  // namespace strata::model
