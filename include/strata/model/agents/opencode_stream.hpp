#pragma once
// The event stream of `opencode run --format json` (OpenCode 1.18.33, docs/AGENT_STREAMS.md §5),
// read a line at a time as it arrives, for `strata provider opencode` (issue 25). Every line
// must be a JSON event. The stream has no end-of-run event: the run is complete when its last
// step finished with reason "stop" and no error followed. The CLI cannot hold the answer to a
// schema: the answer is the text of that last step, checked by Strata afterwards.
#include <string>

#include "strata/model/agents/agent_stream.hpp"

namespace strata::model {

class OpenCodeStreamReader final : public AgentStreamReader {
 public:
  OpenCodeStreamReader() {
    end_event_ = "a step that finished with reason stop";
    reports_denials();
  }
  void add_line(std::string_view line, double at_ms) override;

 private:
  void tool_use(const Json& part, double at_ms);
  void step_finish(const Json& part);

  std::string step_text_;  // the text parts of the current step
};

}  // namespace strata::model
