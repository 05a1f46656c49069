#pragma once
// `pi --mode json -p`'s stream as an ATIF trajectory (issue 47), read beside PiStreamReader:
//   - the prompt Strata sent: the first step, source "user" (the stream's own copy of it is not
//     kept twice);
//   - each assistant message (its message_end, whole): one agent step, its text blocks the
//     message, its thinking blocks reasoning_content, its toolCall blocks tool calls, its usage the
//     metrics (input with the cache reads and writes, as the observation counts it), its model;
//   - each toolResult message: the observation of the step that made the call;
//   - an attempt that failed (stopReason error, aborted or length, pi retrying it or giving up):
//     a system step saying so, with the error pi gave.
#include <string_view>

#include "strata/model/trajectory/atif_trajectory.hpp"

namespace strata::model {

class PiTrajectory : public TrajectoryNormaliser {
 public:
  PiTrajectory(std::string_view prompt, TrajectoryBounds bounds, std::vector<std::string> secrets);
  void add_line(std::string_view line, double at_ms) override;
  Json finish(const AgentTurn& turn) const override { return trajectory_.finish(turn); }

 private:
  void assistant(const Json& message, double at_ms);

  AtifTrajectory trajectory_;
};

}  // namespace strata::model
