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
#include "strata/workspace/confinement.hpp"
#include "strata/workspace/tree_changes.hpp"
#include "strata/workspace/workspace_settings.hpp"

namespace strata::app {

// One attempt's workspace.
struct AttemptWorkspace {
  std::string directory;   // <ledger>.workspaces/<session>-<attempt>
  std::string repository;  // the repository root (absolute): the view is seen at this path
  std::string view;        // the provider's working directory as Strata starts it
  std::string base;        // the tree the view starts from: the repository, or its prepared layer
};

// What a confined check or set-up (the verifier's, docs/VERIFIER.md) sees beyond the system: no
// allowlisted directory, its network only when allowed, and read-only mounts of its own.
struct CheckConfinement {
  bool network = false;
  long max_processes = 0;  // alive at once, by a pids cgroup (the launcher's --max-processes); 0: none
  std::vector<std::pair<std::string, std::string>> read_only_mounts;  // (source, destination)
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
  // `base` is the tree the workspace starts from: empty for the repository itself, or a prepared
  // layer (the verifier's set-up, seen at the repository's path).
  AttemptWorkspace make(const std::string& name, const std::string& repository, const std::string& base = "") const;

  // Rewrites `spec` (program, args, working directory) to run its provider in `workspace`;
  // `provider` is its config entry (the allowlist names what a confined provider may see);
  // `trajectory_channel`, when not empty, is the attempt's trajectory channel, which a confined
  // provider sees writable at kConfinedTrajectoryChannel.
  void wrap(exec::ProcessSpec& spec, const AttemptWorkspace& workspace, const model::Json& provider,
            const std::string& trajectory_channel = "") const;

  // The same for one of the verifier's checks in the attempt's workspace (after its provider
  // exited): confined (--verify needs --confine), none of the provider's allowlisted directories.
  void wrap_check(exec::ProcessSpec& spec, const AttemptWorkspace& workspace, const CheckConfinement& check) const;

  // A repository's set-up, confined, in `tree` (a copy of the repository) seen at `repository`.
  void wrap_setup(exec::ProcessSpec& spec, const std::string& tree, const std::string& repository,
                  const CheckConfinement& check) const;

  // Directories no provider may see or write (the verifier's prepared layers, hidden checks and
  // outputs): hidden and kept out like Strata's own files.
  void keep_out(const std::string& directory);

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

  // `command` under bwrap (when confined) and the launcher; fills spec's program, args, directory.
  // `max_processes` > 0: the launcher bounds the processes alive at once (when it is used).
  void launch(exec::ProcessSpec& spec, std::vector<std::string> command, workspace::Confinement confinement,
              const AttemptWorkspace& made, bool overlay, long max_processes) const;
  workspace::Confinement base_confinement(const exec::ProcessSpec& spec, const AttemptWorkspace& made, bool overlay) const;
};

// <ledger>.workspaces
std::string workspaces_root_for(const std::string& ledger_path);

}  // namespace strata::app
