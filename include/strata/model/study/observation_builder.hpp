#pragma once
// Building an observation from the last attempt of an execution (spec §3.7), the
// deterministic rubric (§4.1), and the unavailable-arm record (§3.11). Pure functions:
// the caller supplies the clock reading and everything the process produced.
#include <optional>
#include <string>

#include "strata/model/json/json.hpp"
#include "strata/model/verifier/verified_record.hpp"

namespace strata::model {

// What the runner saw of one attempt, after the outcome rules of §3.5.
struct AttemptRecord {
  std::string status;  // completed, failed, timed-out, unavailable, invalid-output, budget-exceeded
  std::optional<double> exit_code;
  std::optional<std::string> signal;
  double duration_ms = 0;
  std::string stdout_text;  // kept stdout, well-formed UTF-8
  double stderr_bytes = 0;
  std::string stderr_hash;
  std::optional<std::string> error_code;
  // Token usage the caller measured itself (an endpoint's usage object): it replaces the
  // counts in the response, with tokenMethod "provider".
  struct Usage {
    double input_tokens = 0, output_tokens = 0;
    std::optional<double> cached_input_tokens;
  };
  std::optional<Usage> measured_usage;
  // What the execution changed in its own workspace (--workspace copy|overlay, issue 26): the
  // measurements workspaceChangedFiles and workspaceChangedBytes. Counts only, never a path.
  struct WorkspaceChange {
    double files = 0, bytes = 0;
  };
  std::optional<WorkspaceChange> workspace_change;
  // The acceptance checks Strata ran itself (--verify, docs/VERIFIER.md): the verified
  // measurements, beside the agent's own claim.
  std::optional<VerifiedRun> verification;
  // Whether Strata kept the attempt's trajectory (--keep-trajectories, docs/TRAJECTORIES.md): the
  // measurement trajectoryKept, 1 or 0.
  std::optional<bool> trajectory_kept;
};

struct ObservationInputs {
  const Json* plan = nullptr;      // the parsed run plan
  const Json* provider = nullptr;  // its provider entry (pricing), or nullptr
  Json recorded_task;              // §1.5 with difficulty
  std::string request;             // the stdin request text
  std::optional<std::string> round;
  std::string observed_at;  // YYYY-MM-DDTHH:MM:SS.sssZ
  // Library callers may supply the context token count and its method (§3.7 step 2);
  // otherwise ceil(contextBytes / 4) is recorded as an estimate.
  std::optional<double> context_tokens;
  std::optional<std::string> context_token_method;
};

// DOC_BRIDGE_STUDY_SESSION_ID without the attempt suffix: 32 hex of hash({runId, execution}).
std::string session_id(const std::string& run_id, const Json& recorded_task);

// The six-field execution key of the skip rule (§3.10).
std::string execution_key(const Json& task);

// An execution key as a file name's stem (':' and '/' become '-'): the workspace patch and the
// verifier's output of one execution share it, so each sits beside the other.
std::string execution_file_stem(const std::string& execution_key);

// The sealed observation with adjudication pending. Throws strata::Error when the
// result would not be a valid observation (e.g. token counts without a method).
Json build_observation(const ObservationInputs& inputs, const AttemptRecord& attempt);

// build_observation + apply_deterministic_rubric with a single seal (what `strata run` records).
Json build_judged_observation(const ObservationInputs& inputs, const AttemptRecord& attempt, const Json& task);

// The observation re-sealed with the deterministic rubric's adjudication (§4.1).
Json apply_deterministic_rubric(Json observation, const Json& task);

// The outcome rule of §4.1 on its inputs.
std::string rubric_outcome(bool blocked, bool incorrect, double passed, double checks, double present,
                           double requirements);

// An unavailable registry-assisted execution recorded without a process (§3.11).
Json unavailable_arm_observation(const ObservationInputs& inputs, const std::string& reason);

}  // namespace strata::model
