#pragma once
// The verifier phase of one execution (docs/VERIFIER.md): each of its task's checks run one after
// another in the execution's workspace, bounded and confined, on the run's event loop.
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "strata/app/study/execution_workspaces.hpp"
#include "strata/model/verifier/verified_record.hpp"
#include "strata/model/verifier/verifier_plan.hpp"

namespace strata::app {

struct VerifierPhase {
  const ExecutionWorkspaces* workspaces = nullptr;
  const AttemptWorkspace* workspace = nullptr;
  const std::vector<model::VerifierCheck>* checks = nullptr;
  const model::RepositoryPreparation* preparation = nullptr;  // hidden checks, or nullptr
  std::chrono::milliseconds kill_grace{2000};
  bool bound_processes = false;  // each check's maxProcesses by a pids cgroup (where one can be made)
  std::function<bool()> stopping;  // the run is being interrupted: run no further check
};

// The checks' environment: PATH (Strata's), HOME=/tmp, TMPDIR=/tmp, LANG=C.UTF-8, and
// STRATA_HIDDEN_CHECKS when `hidden_at` is not empty. Never a provider's variable.
std::vector<std::string> check_environment(const std::string& hidden_at);

// Pass a named VerifierPhase (g++ 12 coroutine parameter bug).
boost::asio::awaitable<model::VerifiedRun> run_verifier_phase(VerifierPhase phase);

}  // namespace strata::app
