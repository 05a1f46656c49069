#pragma once
// The event stream of `pi --mode json -p` (pi 0.73.1, @mariozechner/pi-coding-agent;
// docs/AGENT_STREAMS.md §5.6), read a line at a time as it arrives, for `strata provider pi`
// (issue 47). Every line must be a JSON event. What Strata takes:
//   - each assistant message's `message_end`: its usage (input leaves out the cache reads and
//     writes, output includes the reasoning; cost.total is pi's own price for the call), and its
//     stopReason: "stop" ends the run with the message's text as the answer, "toolUse" goes on,
//     "error", "aborted" or "length" is a failed attempt;
//   - tool_execution_start / tool_execution_end: the tool calls, their input and output bytes; a
//     call of a tool the allowlist left out comes back "Tool <name> not found", a refusal;
//   - pi retries a failed model call itself: auto_retry_start follows the failed attempt's
//     agent_end, and a later attempt's "stop" completes the run.
// The stream has no end-of-run event (agent_end also ends each failed attempt) and pi exits 0
// when it gave up: the run is complete when its last assistant message stopped with "stop". The
// CLI cannot hold the answer to a schema: Strata checks it afterwards.
#include <map>
#include <string>

#include "strata/model/agents/agent_stream.hpp"

namespace strata::model {

// An assistant message's `usage` in Strata's terms: input with the cache reads and writes added
// back, cached the reads, the cache writes, output (reasoning included). The reader
// and the trajectory's per-step metrics both count with it.
AgentTurn::Usage pi_message_usage(const Json& usage);

class PiStreamReader final : public AgentStreamReader {
 public:
  PiStreamReader() {
    end_event_ = "an assistant message that stopped with reason stop";
    reports_denials();
  }
  void add_line(std::string_view line, double at_ms) override;

 private:
  void assistant_message(const Json& message);
  void tool_started(const Json& event, double at_ms);
  void tool_ended(const Json& event, double at_ms);

  // toolCallId -> the bytes of its arguments, until its end arrives.
  std::map<std::string, std::size_t> open_calls_;
};

}  // namespace strata::model
