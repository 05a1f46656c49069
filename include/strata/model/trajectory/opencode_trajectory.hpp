#pragma once
// `opencode run --format json`'s stream as an ATIF trajectory (issue 45), read beside
// OpenCodeStreamReader:
//   - the prompt Strata sent: the first step, source "user" (the stream does not echo it);
//   - each step (step_start ... step_finish) one agent step: its text parts the message, its
//     reasoning parts reasoning_content, each finished tool part a tool call with its output as
//     the step's observation, step_finish's tokens the metrics (input with the cache reads and
//     writes, output with the reasoning, as the observation counts them);
//   - a sub-agent (`task`) runs in a session of its own that this stream does not show: its
//     report is the task call's result.
#include <optional>

#include "strata/model/trajectory/atif_trajectory.hpp"

namespace strata::model {

class OpenCodeTrajectory : public TrajectoryNormaliser {
 public:
  OpenCodeTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets);
  void add_line(std::string_view line, double at_ms) override;
  Json finish(const AgentTurn& turn) const override { return trajectory_.finish(turn); }

 private:
  std::size_t current_step(double at_ms);

  AtifTrajectory trajectory_;
  std::optional<std::size_t> step_;
};

}  // namespace strata::model
