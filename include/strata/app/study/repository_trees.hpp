#pragma once
// Proof of the same input (issue 26, part 3): the tree of each repository a run's executions
// use, pinned in <ledger>.inputs under "workspace" before the first execution, so a resume whose
// repository changed is refused like any changed input.
#include <string>

#include "strata/app/study/run_preflight.hpp"
#include "strata/model/json/json.hpp"
#include "strata/workspace/workspace_settings.hpp"

namespace strata::app {

// "git:<commit>" when `root` is in a git checkout with nothing changed or untracked under it
// (git status --porcelain, without taking git's optional locks), else "files-sha256:<hex>"
// (workspace/tree_digest). `path_variable` finds git; no git is fine.
std::string repository_tree(const std::string& root, const std::string& path_variable);

// {"mode", "confine", "network", "trees": {<repositoryId>: repository_tree(...)}} for the
// repositories of the executions that start a process.
model::Json workspace_inputs(const RunPreflight& preflight, const workspace::WorkspaceSettings& settings);

}  // namespace strata::app
