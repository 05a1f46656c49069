#pragma once
// The event stream of `codex exec --json` (docs/AGENT_STREAMS.md §1), read a line at a time as
// it arrives, for `strata provider codex` (issue 16). Every line must be a JSON event, as the
// Codex SDK requires.
#include "strata/model/agents/agent_stream.hpp"

namespace strata::model {

class CodexStreamReader final : public AgentStreamReader {
 public:
  CodexStreamReader() { end_event_ = "turn.completed"; }
  void add_line(std::string_view line, double at_ms) override;
};

}  // namespace strata::model
