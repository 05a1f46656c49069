#pragma once
// What Strata takes from a coding agent's event stream (docs/AGENT_STREAMS.md §3), whichever CLI
// wrote it: the usage, the tool calls, byte and time telemetry, the final message, and whether
// the run failed. The readers (codex_stream, claude_stream) are pure: lines and their arrival
// times in, this summary out. They never keep the text of a tool's input or output, only its
// size; they keep the final message (the structured answer) and nothing else the model wrote.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::model {

struct AgentTurn {
  std::optional<std::string> final_message;  // the structured answer, as JSON text
  // Usage, as the adapter reports it: input_tokens counts every input token, cached ones included.
  std::optional<double> input_tokens, cached_input_tokens, output_tokens;
  std::optional<double> reasoning_output_tokens;      // codex only (part of output_tokens)
  std::optional<double> cache_creation_input_tokens;  // claude only (part of input_tokens)
  std::optional<double> cost_usd;                     // what the CLI says the run cost (claude)
  // The counts above cover every model call of the run, sub-agents' included, where the stream
  // reports them (issue 36). The main loop's own usage, when the stream gives it apart (claude:
  // the result's `usage`; the counts above are its `modelUsage`, summed over models).
  struct Usage {
    std::optional<double> input_tokens, cached_input_tokens, cache_creation_input_tokens, output_tokens;
  };
  std::optional<Usage> main_loop;
  std::size_t subagent_runs = 0;           // sub-agents the main loop started (claude's Agent/Task tool uses)
  bool subagent_usage_unreported = false;  // sub-agents ran and the stream's counts may leave them out
  std::size_t tool_calls = 0;         // tool uses that completed
  std::size_t tool_events = 0;        // events of those tool uses (started, updated, completed, results)
  std::size_t tool_input_bytes = 0;   // what the completed tool uses were given
  std::size_t tool_output_bytes = 0;  // what they returned
  std::size_t agent_message_bytes = 0;
  std::size_t lines = 0, stream_bytes = 0;
  std::optional<double> first_tool_event_ms;  // arrival time of the first tool event
  // What the agent was allowed and refused (issue 25): the tools its own start-up event listed
  // (a count: the names are not kept), and the tool uses its permission mode or sandbox denied.
  std::optional<std::size_t> available_tools;
  std::optional<std::size_t> denied_tool_uses;  // when the stream reports them
  std::size_t background_results = 0;  // end-of-run events of background tasks, after the run's own
  bool completed = false;                     // the stream's own end-of-run event arrived, and said success
};

class AgentStreamReader {
 public:
  virtual ~AgentStreamReader() = default;
  // One line of stdout (without its newline), `at_ms` after the agent started.
  virtual void add_line(std::string_view line, double at_ms) = 0;
  // What the CLI wrote beside its stream for the adapter to read after the run (Copilot CLI's
  // telemetry file, which holds its token counts); the others write none.
  virtual void add_side_output(std::string_view /*content*/) {}
  // A line longer than the caller keeps (its bytes are not held): a defect of the stream.
  void add_overlong_line(std::size_t bytes);

  // The summary so far.
  const AgentTurn& turn() const { return turn_; }

  // Why the stream, once it has ended, does not hold a usable answer (nullopt: it does). The
  // reason names the kind of event or defect, never text from the stream, which may quote the
  // prompt or the repository.
  std::optional<std::string> failure() const;

 protected:
  // Counts the line; false when it is blank (a blank line carries nothing).
  bool count_line(std::string_view line);
  // The line as a JSON object with a string "type"; otherwise records the defect (the line is not
  // JSON, or not `what`: "an event", "a message") and gives nothing.
  std::optional<Json> typed_object(std::string_view line, const char* what);
  // Records the first defect only: later ones are usually its consequences.
  void defect(std::string why);
  // The size of a member holding text (or, for other JSON, of its serialisation); 0 when absent.
  static std::size_t text_bytes(const Json& object, const char* member);
  // A member holding text, or "" when it is absent or not text; a member holding an object, or
  // an empty object. The stream is outside input: a member of another type carries nothing.
  static const std::string& text_member(const Json& object, const char* member);
  static const Json& object_member(const Json& object, const char* member);
  // A usage count: a non-negative number, else nothing.
  static std::optional<double> count_member(const Json& object, const char* member);
  // Adds a count to a sum that has none until a count arrives (a stream reporting usage per step).
  static void add_count(std::optional<double>& sum, std::optional<double> count);
  // For the CLIs whose stream shows the tool uses they refused: the count starts at 0, and each
  // refusal adds one.
  void reports_denials() { turn_.denied_tool_uses = 0; }
  void count_denial() { ++*turn_.denied_tool_uses; }

  AgentTurn turn_;
  bool error_event_ = false;  // the CLI reported an error; fatal only if the run did not complete
  const char* end_event_ = "the end-of-run event";  // named when the stream ends without it

 private:
  std::optional<std::string> defect_;
};

}  // namespace strata::model
