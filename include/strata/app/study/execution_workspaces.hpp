#pragma once
// The workspaces of one ledger's executions (issue 26, docs/WORKSPACES.md): where each attempt's
// writable view of its repository is made, how its provider is started in it, what it changed,
// and its removal. They live in <ledger>.workspaces/, one directory per attempt, owned by the run
// that holds the ledger's lock; whatever a killed run left there is swept by the next one.
// Everything here but wrap() blocks on the file system: the run calls it on a thread pool.
#include <string>
#include <vector>

#include "strata/exec/process_spec.hpp"
#include "strata/model/json/json.hpp"
#include "strata/workspace/tree_changes.hpp"
#include "strata/workspace/workspace_settings.hpp"

namespace strata::app {

// One attempt's workspace.
struct AttemptWorkspace {
  std::string directory;   // <ledger>.workspaces/<session>-<attempt>
  std::string repository;  // the repository root (absolute): the view is seen at this path
  std::string view;        // the provider's working directory as Strata starts it
};

// The programs and places a confined or overlaid provider needs, found at pre-flight.
struct WorkspaceTools {
  std::string launcher;  // strata-workspace-exec (overlay)
  std::string bwrap;     // bwrap (--confine)
  std::vector<std::string> hidden;  // what --confine hides: homes, Strata's files' directories
  // What --confine never shows writable, whatever a provider's environment names
  // (workspace::Confinement): the workspaces, the diffs and the repositories' trees; the ledger's
  // and the configs' directories and those holding the repositories.
  std::vector<std::string> kept_out_trees;
  std::vector<std::string> kept_out_directories;
};

class ExecutionWorkspaces {
 public:
  ExecutionWorkspaces(workspace::WorkspaceSettings settings, WorkspaceTools tools, const std::string& ledger_path);

  const workspace::WorkspaceSettings& settings() const { return settings_; }

  // Removes whatever an interrupted run left in <ledger>.workspaces/ (and its pre-flight probes
  // beside the ledger), naming each on stderr.
  void sweep_stale() const;

  // Makes the workspace of one attempt. Throws strata::Error (ENOSPC, permissions) after
  // removing whatever it made.
  AttemptWorkspace make(const std::string& name, const std::string& repository) const;

  // Rewrites `spec` (program, args, working directory) to run its provider in `workspace`;
  // `provider` is its config entry (the allowlist names what a confined provider may see).
  void wrap(exec::ProcessSpec& spec, const AttemptWorkspace& workspace, const model::Json& provider) const;

  // What the attempt changed, relative to its repository.
  workspace::TreeChanges changes(const AttemptWorkspace& workspace) const;

  // --keep-workspace-diff: writes `changes` as <dir>/<execution key>.patch.
  void keep_patch(const workspace::TreeChanges& changes, const std::string& execution_key) const;

  // Removes the workspace; false (and a line on stderr) when some of it could not be removed.
  bool remove(const AttemptWorkspace& workspace) const;

 private:
  workspace::WorkspaceSettings settings_;
  WorkspaceTools tools_;
  std::string ledger_path_;
  std::string root_;  // <ledger>.workspaces
};

// <ledger>.workspaces
std::string workspaces_root_for(const std::string& ledger_path);

}  // namespace strata::app
