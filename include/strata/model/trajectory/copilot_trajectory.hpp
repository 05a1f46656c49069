#pragma once
// Copilot CLI's `--output-format json` stream as an ATIF trajectory (issue 47), read beside
// CopilotStreamReader:
//   - the prompt Strata sent: the first step, source "user" (the stream's user.message, the same
//     text with the CLI's date prefixed, is not kept twice);
//   - each assistant.message (whole; its deltas are not read): one agent step, its content the
//     message, its toolRequests the tool calls, its model;
//   - each tool.execution_complete: the observation of the step that made the call (its result's
//     content, or "error: " and the CLI's message);
//   - session.error: a system step with the CLI's message (it has given up on the model).
// The stream has no per-call usage: the final metrics are the run's, from the CLI's telemetry
// file, as the observation counts them.
#include <string_view>

#include "strata/model/trajectory/atif_trajectory.hpp"

namespace strata::model {

class CopilotTrajectory : public TrajectoryNormaliser {
 public:
  CopilotTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets);
  void add_line(std::string_view line, double at_ms) override;
  Json finish(const AgentTurn& turn) const override { return trajectory_.finish(turn); }

 private:
  AtifTrajectory trajectory_;
};

}  // namespace strata::model
