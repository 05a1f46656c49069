#pragma once
// The message stream of `claude -p --output-format stream-json --verbose` (docs/AGENT_STREAMS.md
// §2), read a line at a time as it arrives, for `strata provider claude` (issue 16). As the
// Claude Agent SDK does, a line that does not start with `{` is the CLI's debug noise and is
// skipped; a `{` line that does not parse is a defect.
//
// Qwen Code's stream-json has the same shape (its SDK follows Claude Code's): the dialect names
// what differs (model/agents/qwen_stream.hpp).
#include <map>
#include <string>
#include <vector>

#include "strata/model/agents/agent_stream.hpp"

namespace strata::model {

// What differs between the CLIs that write Claude Code's stream-json.
struct ClaudeStreamDialect {
  const char* agent_name;               // the trajectory's agent.name
  const char* version_field;            // the init event's member holding the CLI's version
  const char* structured_output_tool;   // the tool the model answers with under --json-schema
  const char* structured_answer_field;  // the result's member holding that answer
  std::vector<std::string> subagent_tools;  // the tools that start a sub-agent
  // Claude Code's input_tokens leave out the cache reads and writes (the Messages API's); Qwen
  // Code's include them (its prompt token count, whatever the model API).
  bool input_includes_cache;
  // The result's usage: Claude Code's is the main loop's calls (modelUsage has every call);
  // Qwen Code's is every call, its sub-agents' included.
  bool usage_is_every_call;
};

const ClaudeStreamDialect& claude_code_dialect();

// One `usage` object of the stream (an assistant message's or the result's: input_tokens,
// cache_read_input_tokens, cache_creation_input_tokens, output_tokens) in Strata's terms, as the
// dialect counts it: input with the cache reads and writes, cached the reads. The reader and the
// trajectory's per-step metrics both count with it.
AgentTurn::Usage claude_stream_usage(const Json& usage, const ClaudeStreamDialect& dialect);

class ClaudeStreamReader final : public AgentStreamReader {
 public:
  explicit ClaudeStreamReader(const ClaudeStreamDialect& dialect = claude_code_dialect()) : dialect_(dialect) {
    end_event_ = "the result event";
  }
  void add_line(std::string_view line, double at_ms) override;

 private:
  void assistant_message(const Json& event, double at_ms);
  void tool_results(const Json& event);
  void system_message(const Json& event);
  void result(const Json& event);

  const ClaudeStreamDialect& dialect_;
  // tool_use id -> the bytes of its input, until its tool_result arrives (then it is completed).
  std::map<std::string, std::size_t> open_tool_uses_;
};

}  // namespace strata::model
