#pragma once
// The event stream of `codex exec --json` (docs/AGENT_STREAMS.md §1), read a line at a time as
// it arrives, for `strata provider codex` (issue 16): usage, tool calls, the byte and time
// telemetry, the final message, and whether the run failed. Pure: lines and their arrival times
// in, a summary out. Never keeps the text of a tool's input or output, only its size; keeps the
// final message (the structured answer) and nothing else the model wrote.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace strata::model {

struct CodexTurn {
  std::optional<std::string> final_message;  // text of the last completed agent_message
  std::optional<double> input_tokens, cached_input_tokens, output_tokens, reasoning_output_tokens;  // turn.completed usage
  std::size_t tool_calls = 0;         // completed command, MCP, web-search, file-search and computer items
  std::size_t tool_events = 0;        // started/updated/completed events of those items
  std::size_t tool_input_bytes = 0;   // command lines, MCP arguments, search queries (completed items)
  std::size_t tool_output_bytes = 0;  // command output, MCP results (completed items)
  std::size_t agent_message_bytes = 0;
  std::size_t lines = 0, stream_bytes = 0;
  std::optional<double> first_tool_event_ms;  // arrival time of the first tool event
  bool turn_completed = false;
};

class CodexStreamReader {
 public:
  // One line of stdout (without its newline), `at_ms` after the agent started.
  void add_line(std::string_view line, double at_ms);
  // A line longer than the caller keeps (its bytes are not held): a defect of the stream.
  void add_overlong_line(std::size_t bytes);

  // The summary so far.
  const CodexTurn& turn() const { return turn_; }

  // Why the stream, once it has ended, does not hold a usable answer (nullopt: it does). The
  // reason names the kind of event or defect, never text from the stream, which may quote the
  // prompt or the repository.
  std::optional<std::string> failure() const;

 private:
  CodexTurn turn_;
  std::optional<std::string> defect_;  // the first malformed line, turn.failed, ...
  bool error_event_ = false;
};

}  // namespace strata::model
