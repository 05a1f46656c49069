#pragma once
// `strata run` after its pre-flight (spec §3.6-3.10): runs the selected executions as
// bounded processes, many at once on one io_context, records each completed observation
// durably in the journal, folds the journal into the ledger, and resumes idempotently.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "strata/app/study/endpoint_caller.hpp"
#include "strata/app/study/run_preflight.hpp"
#include "strata/engine/spend_budget.hpp"
#include "strata/model/study/assisted_arm.hpp"

namespace strata::app {

class ExecutionWorkspaces;
class StudyVerifier;
class TrajectoryKeeper;

struct RunSettings {
  std::string ledger_path;
  std::optional<std::string> round;
  int jobs = 4;
  std::chrono::milliseconds kill_grace{2000};
  bool progress = false;  // a progress line on stderr
  EndpointCaller* endpoints = nullptr;  // for endpoint providers (not owned)
  engine::SpendLimits limits;           // --max-tokens, --max-cost-usd: what this invocation may spend
  bool accept_changed_inputs = false;   // --accept-changed-inputs: resume even if <ledger>.inputs differs
  const ExecutionWorkspaces* workspaces = nullptr;  // --workspace copy|overlay (not owned); nullptr: none
  StudyVerifier* verifier = nullptr;  // --verify (not owned, needs workspaces); nullptr: no verifier phase
  const TrajectoryKeeper* trajectories = nullptr;  // --keep-trajectories (not owned); nullptr: none kept
};

struct RunOutcome {
  bool interrupted = false;  // SIGINT/SIGTERM: completed work kept, exit 130
  bool budget_reached = false;  // an execution was not launched for lack of budget: exit 4
  engine::Spend spent;          // by this invocation (worst cases where usage was not reported)
  engine::Spend run_total;      // reported by every observation of the run in the ledger
  // <ledger>.inputs: "recorded" (a new run), "unchanged", "changed" (accepted: `input_changes`)
  // or "unrecorded" (a resumed run with no record: nothing to compare, recorded now).
  std::string inputs_check;
  std::vector<std::string> input_changes;
  double planned = 0, executed = 0, skipped = 0;
  std::string ledger_path;  // absolute
  std::string ledger_hash;
  // How the ledger's observations were learnt: "verified-record" (<ledger>.verified described
  // the file: none read) or "full" (read and verified).
  std::string ledger_read;
  model::AssistedArm assisted_arm;
};

// Throws strata::Error (after keeping every completed observation) on a fatal problem.
RunOutcome run_study(const StudyInputs& inputs, const RunPreflight& preflight, const RunSettings& settings);

}  // namespace strata::app
