#pragma once
// Pre-flight of --workspace, --confine and --confine-network (issue 26): the flags agree, the
// programs exist, and this kernel and its packages allow the chosen mode (each tried once with
// `true` in a scratch directory beside the ledger, removed at once). Refusals name the flag and
// what to do instead; nothing is launched or recorded.
#include <string>
#include <vector>

#include "strata/app/study/execution_workspaces.hpp"
#include "strata/workspace/workspace_settings.hpp"

namespace strata::app {

struct WorkspacePlaces {
  std::string ledger_path;
  std::vector<std::string> artifact_paths;  // plan, suite, provider and repository configs
  std::vector<std::string> repository_roots;  // every repository of the study (absolute)
  std::string launcher;                     // where strata-workspace-exec should be
  std::string path_variable;                // finds bwrap and true
};

// Removes the probe directories beside the ledger that a killed pre-flight left (their PID is
// gone), naming each on stderr. The run calls it with its sweep of stale workspaces.
void sweep_stale_probes(const std::string& ledger_path);

WorkspaceTools check_workspace_preflight(const workspace::WorkspaceSettings& settings, const WorkspacePlaces& places);

}  // namespace strata::app
