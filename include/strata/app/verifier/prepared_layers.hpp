#pragma once
// The prepared layers of `strata run --verify` (docs/VERIFIER.md "Prepared environments"): a
// repository's set-up run once per tree, confined, into <ledger>.prepared/<key>/, which every
// execution's workspace of that repository starts from. A key is the tree's digest and the
// set-up's text; one Strata process at a time sets a key up (two shards on one machine make it
// once); a layer half made when killed is never used; a layer changed on disk since it was made is
// named and made again. Everything here blocks on processes or the file system: the run calls it
// before its loop.
#include <map>
#include <optional>
#include <set>
#include <string>

#include "strata/app/study/execution_workspaces.hpp"
#include "strata/model/json/json.hpp"
#include "strata/model/verifier/verifier_plan.hpp"

namespace strata::app {

class PreparedLayers {
 public:
  // `root`: <ledger>.prepared; `log_directory`: where each set-up's bounded log is kept (beside
  // the diffs, or <ledger>.verifier); `bound_processes`: a pids cgroup can bound the set-up.
  PreparedLayers(std::string root, std::string log_directory, bool bound_processes);

  const std::string& root() const { return root_; }

  // The key of a repository's layer, from its tree (the workspace record's) and its set-up.
  std::string key_for(const std::string& repository_id, const model::Json& tree, const std::string& setup);

  // Sets up the layer of each repository in `repositories` (id -> root) that has a key and no
  // layer yet, once per key. A set-up that fails makes no layer and marks the repository failed
  // (its executions are recorded unavailable, setup-failed). `recorded` (the inputs record the
  // run started with, or null) tells a removed layer from a new one in the line on stderr.
  void prepare(const ExecutionWorkspaces& workspaces, const std::map<std::string, std::string>& repositories,
               const model::VerifierPlan& plan, const model::Json* recorded);

  // The tree a repository's workspaces start from: its layer, or "" (the repository).
  std::string base_of(const std::string& repository_id) const;
  bool failed(const std::string& repository_id) const { return failed_.count(repository_id) != 0; }

 private:
  std::string root_, log_directory_;
  bool bound_processes_ = false;
  std::map<std::string, std::string> keys_;    // repositoryId -> key
  std::map<std::string, std::string> layers_;  // repositoryId -> its layer, once made
  std::set<std::string> failed_;

  // Whether the layer at `layer` is as it was made (its files' digest against the one kept beside it).
  bool intact(const std::string& repository_id, const std::string& layer) const;
  // Runs the set-up into `layer`; "" when it made the layer, else why not.
  std::string set_up(const ExecutionWorkspaces& workspaces, const std::string& repository_id, const std::string& repository_root,
                     const model::RepositoryPreparation& preparation, const std::string& layer) const;
};

}  // namespace strata::app
