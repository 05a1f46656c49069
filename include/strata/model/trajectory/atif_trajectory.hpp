#pragma once
// An agent execution's trajectory in ATIF, the Agent Trajectory Interchange Format (Harbor's RFC
// 0001, v1.7), built while the agent's stream is read (issue 45; docs/TRAJECTORIES.md). The
// per-agent normalisers (claude_trajectory, codex_trajectory) feed it; this class keeps the
// format's rules in one place:
//   - steps numbered from 1, each with its source (user, agent, system);
//   - a tool call's result goes to the observation of the step that made the call (ATIF's
//     source_call_id must name a tool_call_id of its step);
//   - every text is redacted (each secret value replaced, wherever it occurs) and bounded, per
//     field and for the whole trajectory; what was cut and redacted is recorded in
//     extra.strata, so a reader knows the trajectory is not the whole stream.
// Pure: text in, JSON out; nothing is read or written here.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/model/agents/agent_stream.hpp"
#include "strata/model/json/json.hpp"

namespace strata::model {

inline constexpr const char* kAtifVersion = "ATIF-v1.7";

struct TrajectoryBounds {
  std::size_t field_bytes = 16 * 1024;        // one message, reasoning, argument set or tool result
  std::size_t total_bytes = 4 * 1024 * 1024;  // every kept text of the trajectory together
};

class AtifTrajectory {
 public:
  // `secrets`: values that must never appear in the trajectory (the empty and very short ones
  // are ignored: they would match everywhere).
  AtifTrajectory(std::string agent_name, TrajectoryBounds bounds, std::vector<std::string> secrets);

  // Names and ids from the stream: redacted and cut at 256 bytes like every id (kept_id).
  void set_agent_version(const std::string& version) { agent_version_ = kept_id(version); }
  void set_agent_model(const std::string& model) { agent_model_ = kept_id(model); }
  void set_session(const std::string& session_id) { session_id_ = kept_id(session_id); }

  // A new step (source "user", "agent" or "system"); its index, for the calls below.
  std::size_t add_step(const char* source, std::string_view message, double at_ms);
  std::size_t step_count() const { return steps_.size(); }
  // More text for a step's message: after a line break, or `separator` (a streamed message's
  // pieces join with none).
  void append_message(std::size_t step, std::string_view text, std::string_view separator = "\n");
  void append_reasoning(std::size_t step, std::string_view text);
  void add_tool_call(std::size_t step, const std::string& call_id, const std::string& function_name, const Json& arguments);
  // The result of a call, on the step that made it; false (and nothing kept) when no step did.
  bool add_observation(const std::string& call_id, std::string_view content);
  // ATIF per-step metrics: prompt_tokens (every input token, cached included), completion_tokens,
  // cached_tokens; absent counts left out.
  void set_metrics(std::size_t step, std::optional<double> prompt, std::optional<double> completion, std::optional<double> cached);
  void set_model(std::size_t step, const std::string& model);
  void set_timestamp(std::size_t step, const std::string& iso_8601);  // when the stream says
  void set_extra(std::size_t step, const char* key, Json value);
  // The step that made a call, if any.
  std::optional<std::size_t> step_of_call(const std::string& call_id) const;

  // The trajectory: final_metrics from the turn's counts (every model call, as the observation's),
  // the bounds and what was cut or redacted in extra.strata.
  Json finish(const AgentTurn& turn) const;

 private:
  // `text` redacted, then bounded: the field's room (`field_used` bytes of it already kept), then
  // the trajectory's.
  std::string kept(std::string_view text, std::size_t field_used = 0);
  Json kept_json(const Json& value);          // every string in it redacted; the whole bounded
  // An id or a name: redacted and cut at 256 bytes, the same text for the same input (a call's
  // id must match its result's), not counted against the trajectory's bound.
  std::string kept_id(std::string_view text);
  std::string redacted(std::string_view text);
  void append_field(std::string& field, std::string_view text, std::string_view separator);

  std::string agent_name_, agent_version_, agent_model_, session_id_;
  TrajectoryBounds bounds_;
  std::vector<std::string> secrets_;
  std::vector<Json> steps_;
  std::map<std::string, std::size_t> call_steps_;  // tool_call_id -> the step that made it
  std::size_t kept_bytes_ = 0, cut_fields_ = 0, cut_bytes_ = 0, redactions_ = 0, unmatched_results_ = 0;
};

// One agent's stream read into a trajectory (claude_trajectory, codex_trajectory,
// gemini_trajectory, opencode_trajectory): fed the lines its stream reader is fed.
class TrajectoryNormaliser {
 public:
  virtual ~TrajectoryNormaliser() = default;
  virtual void add_line(std::string_view line, double at_ms) = 0;
  virtual Json finish(const AgentTurn& turn) const = 0;
};

}  // namespace strata::model
