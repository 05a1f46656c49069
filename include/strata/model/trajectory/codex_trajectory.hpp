#pragma once
// `codex exec --json`'s stream as an ATIF trajectory (issue 45), read beside CodexStreamReader:
//   - the prompt Strata sent: the first step, source "user";
//   - each completed item one agent step, in the order they complete: agent_message its message,
//     reasoning its reasoning_content, a tool item (command_execution, mcp_tool_call, web_search,
//     file_search, computer) a tool call whose result (the command's output and exit code, the
//     tool's result) is that step's observation, file_change a tool call "apply_patch" with the
//     changed paths;
//   - no per-step metrics: the stream reports usage once, for the turn (final_metrics).
// Lines that are not JSON objects with a type are skipped: the reader reports them.
#include <string_view>

#include "strata/model/trajectory/atif_trajectory.hpp"

namespace strata::model {

class CodexTrajectory : public TrajectoryNormaliser {
 public:
  CodexTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets);
  void add_line(std::string_view line, double at_ms) override;
  Json finish(const AgentTurn& turn) const override { return trajectory_.finish(turn); }

 private:
  void completed_item(const Json& item, double at_ms);

  AtifTrajectory trajectory_;
};

}  // namespace strata::model
