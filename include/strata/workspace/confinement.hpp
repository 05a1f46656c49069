#pragma once
// --confine: the bubblewrap command line that runs one provider (docs/WORKSPACES.md). The
// provider sees the system read-only, its workspace writable at the repository's own path, its
// own /tmp, /proc and /dev, no home directory and none of Strata's files, and only what its
// allowlisted environment names beyond that. What the environment names never opens Strata's
// files or the repositories' real trees (issue 33, part 0): a named directory is not shown
// writable when it is one of them, and one that holds one has it masked again after its bind.
#include <string>
#include <utility>
#include <vector>

namespace strata::workspace {

struct Confinement {
  std::string bwrap;                    // resolved path of bwrap
  std::string workspace;                // the execution's writable tree (a copy), or empty: the
                                        // view is already mounted at `repository` (overlay)
  std::string repository;               // where the provider sees it, and its working directory
  std::vector<std::string> hidden;      // directories replaced by an empty tmpfs (homes, Strata's)
  std::vector<std::string> named;       // directories the allowlisted environment names: bound writable
  // Never writable, whatever `named` holds:
  std::vector<std::string> kept_out_trees;        // nothing inside: the workspaces, the diffs, every
                                                  // repository's real tree
  std::vector<std::string> kept_out_directories;  // their own entries: the ledger's directory (its
                                                  // journal, inputs, receipts), the configs', and
                                                  // the directory holding each repository
  std::vector<std::string> named_read_only;  // PATH entries and --confine-show: bound read-only
  std::string program;                  // the provider program: bound read-only where hidden
  // (source, destination) bound read-only after the workspace: the verifier's hidden checks.
  std::vector<std::pair<std::string, std::string>> read_only_mounts;
  // (source, destination) bound writable last: the attempt's trajectory channel, seen in its own
  // /tmp (app/trajectories/trajectory_keeper.hpp).
  std::vector<std::pair<std::string, std::string>> writable_mounts;
  bool network_none = false;
};

// argv (without the leading bwrap path) to run `program args...` under `confinement`.
std::vector<std::string> bwrap_arguments(const Confinement& confinement, const std::vector<std::string>& program_args);

}  // namespace strata::workspace
