#pragma once
// GitHub Copilot CLI's `copilot --output-format json` stream (1.0.102, docs/AGENT_STREAMS.md
// §5.7), read a line at a time as it arrives, for `strata provider copilot` (issue 47). Every line
// must be a JSON event `{type, data, id, timestamp, ...}`. What Strata takes:
//   - assistant.message: the model's text (data.content) and the calls it asks for
//     (data.toolRequests); the answer is the text of the last message that asked for none;
//   - tool.execution_start / tool.execution_complete: the tool calls, their input and output
//     bytes; a call of a tool --available-tools left out completes with success false and
//     "Tool '<name>' does not exist.", a refusal;
//   - session.error: the CLI gave up (it retries failed model calls itself first);
//   - result: the end of the run, with the CLI's exit code.
// The stream carries no token counts. The CLI's OpenTelemetry file exporter does, per model call
// (the chat spans' gen_ai.usage.*): the adapter points COPILOT_OTEL_FILE_EXPORTER_PATH at a file
// of its own and hands it over after the run (add_side_output). The CLI cannot hold the answer to a
// schema: Strata checks it afterwards.
#include <map>
#include <string>

#include "strata/model/agents/agent_stream.hpp"

namespace strata::model {

class CopilotStreamReader final : public AgentStreamReader {
 public:
  CopilotStreamReader() {
    end_event_ = "the result event";
    reports_denials();
  }
  void add_line(std::string_view line, double at_ms) override;
  // The OpenTelemetry file the CLI wrote: the usage of every model call (its chat spans), summed.
  void add_side_output(std::string_view content) override;

 private:
  void assistant_message(const Json& data);
  void tool_started(const Json& data, double at_ms);
  void tool_completed(const Json& data, double at_ms);
  void result(const Json& event);

  std::map<std::string, std::size_t> open_calls_;  // toolCallId -> the bytes of its arguments
  std::string last_answer_;  // the text of the last assistant message that asked for no tool
};

}  // namespace strata::model
