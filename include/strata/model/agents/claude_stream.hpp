#pragma once
// The message stream of `claude -p --output-format stream-json --verbose` (docs/AGENT_STREAMS.md
// §2), read a line at a time as it arrives, for `strata provider claude` (issue 16). As the
// Claude Agent SDK does, a line that does not start with `{` is the CLI's debug noise and is
// skipped; a `{` line that does not parse is a defect.
#include <map>
#include <string>

#include "strata/model/agents/agent_stream.hpp"

namespace strata::model {

class ClaudeStreamReader final : public AgentStreamReader {
 public:
  ClaudeStreamReader() { end_event_ = "the result event"; }
  void add_line(std::string_view line, double at_ms) override;

 private:
  void assistant_message(const Json& event, double at_ms);
  void tool_results(const Json& event);
  void system_message(const Json& event);
  void result(const Json& event);

  // tool_use id -> the bytes of its input, until its tool_result arrives (then it is completed).
  std::map<std::string, std::size_t> open_tool_uses_;
};

}  // namespace strata::model
