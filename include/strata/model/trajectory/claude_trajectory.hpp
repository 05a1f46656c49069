#pragma once
// Claude Code's `-p --output-format stream-json` stream as an ATIF trajectory (issue 45), read
// line by line beside ClaudeStreamReader (which keeps the counts; this keeps the steps):
//   - the prompt Strata sent: the first step, source "user";
//   - each assistant message (its content blocks arrive as separate events with one message id):
//     one agent step, its text as the message, its thinking as reasoning_content, its tool_use
//     blocks as tool_calls, its usage as metrics (input with the cache reads and writes, as the
//     observation counts it), its model as model_name;
//   - each tool_result: the observation of the step that made the call;
//   - a sub-agent's messages (parent_tool_use_id set) are steps too, marked with
//     extra.parent_tool_call_id, and its prompt a user step so marked;
//   - a turn that background work's notification starts before the run's result (a second init
//     event): its agent steps marked extra.turn = 2, 3, ...; after the run's own result, nothing.
// Lines that are not JSON objects with a type are skipped: the reader reports them. Qwen Code's
// stream is read the same, with its dialect (model/agents/qwen_stream.hpp).
#include <map>
#include <string>
#include <string_view>

#include "strata/model/agents/claude_stream.hpp"
#include "strata/model/trajectory/atif_trajectory.hpp"

namespace strata::model {

class ClaudeTrajectory : public TrajectoryNormaliser {
 public:
  ClaudeTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets,
                   const ClaudeStreamDialect& dialect = claude_code_dialect());
  void add_line(std::string_view line, double at_ms) override;
  Json finish(const AgentTurn& turn) const override { return trajectory_.finish(turn); }

 private:
  void assistant(const Json& event, double at_ms);
  void user(const Json& event, double at_ms);

  const ClaudeStreamDialect& dialect_;
  AtifTrajectory trajectory_;
  std::map<std::string, std::size_t> message_steps_;  // assistant message id -> its step
  int turns_ = 0;  // init events seen: a turn after the first is background work's (extra.turn)
  bool ended_ = false;
};

}  // namespace strata::model
