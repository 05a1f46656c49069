#pragma once
// The event stream of `gemini -p "" --output-format stream-json` (Gemini CLI 0.61.0,
// docs/AGENT_STREAMS.md §4), read a line at a time as it arrives, for `strata provider gemini`
// (issue 25). Every line must be a JSON event. The CLI cannot hold the answer to a schema: the
// answer is the assistant's text after its last tool event, checked by Strata afterwards.
#include <map>
#include <string>

#include "strata/model/agents/agent_stream.hpp"

namespace strata::model {

class GeminiStreamReader final : public AgentStreamReader {
 public:
  GeminiStreamReader() {
    end_event_ = "the result event";
    reports_denials();
  }
  void add_line(std::string_view line, double at_ms) override;

 private:
  void tool_result(const Json& event);
  void result(const Json& event);

  std::string text_;  // the assistant's text since the last tool event (its deltas joined)
  std::map<std::string, std::size_t> open_tool_uses_;  // tool_id -> the bytes of its parameters
};

}  // namespace strata::model
