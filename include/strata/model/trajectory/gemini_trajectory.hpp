#pragma once
// Gemini CLI's `--output-format stream-json` stream as an ATIF trajectory (issue 45), read beside
// GeminiStreamReader:
//   - each user message of the stream a user step (the stream echoes the prompt as the CLI got
//     it: Strata's request with the answer's instructions after it);
//   - the assistant's text (it arrives in pieces, "delta": true) the message of an agent step;
//     a tool_use a tool call of the current agent step, and its tool_result (its output, or its
//     error) that step's observation; text after a tool call opens the next agent step;
//   - no per-step metrics: the stream reports usage once, in the result (final_metrics).
#include <optional>

#include "strata/model/trajectory/atif_trajectory.hpp"

namespace strata::model {

class GeminiTrajectory : public TrajectoryNormaliser {
 public:
  GeminiTrajectory(TrajectoryBounds bounds, std::vector<std::string> secrets);
  void add_line(std::string_view line, double at_ms) override;
  Json finish(const AgentTurn& turn) const override { return trajectory_.finish(turn); }

 private:
  std::size_t agent_step(const Json& event, double at_ms);  // the current agent step, or a new one

  AtifTrajectory trajectory_;
  std::optional<std::size_t> agent_step_;  // the agent step text and calls go to
  bool called_ = false;                    // the current agent step has made a tool call
  bool ended_ = false;
};

}  // namespace strata::model
