#pragma once
// The verifier of one `strata run --verify` (docs/VERIFIER.md): what it runs (the plan), where it
// keeps what it found (the output files, outside the ledger), the prepared layers each
// repository's executions start from, and what of it goes into <ledger>.inputs. Everything here
// blocks on processes or the file system: the run calls it before its loop or on a thread pool.
#include <map>
#include <optional>
#include <set>
#include <string>

#include "strata/app/study/execution_workspaces.hpp"
#include "strata/app/verifier/prepared_layers.hpp"
#include "strata/model/json/json.hpp"
#include "strata/model/verifier/verified_record.hpp"
#include "strata/model/verifier/verifier_plan.hpp"

namespace strata::app {

class StudyVerifier {
 public:
  // `prepared_directory`: where the prepared layers live (--prepared-dir; <ledger>.prepared when none).
  StudyVerifier(model::VerifierPlan plan, const std::string& ledger_path, std::optional<std::string> diff_directory,
                std::optional<std::string> prepared_directory = std::nullopt);

  const model::VerifierPlan& plan() const { return plan_; }

  // Whether a check's process bound (maxProcesses) can be kept here: a writable pids cgroup v1
  // hierarchy (../shared/notes/toolchain.md §5a). Without one, a check's processes are bounded
  // by its PID namespace and its time limit only (said once on stderr at the start).
  bool processes_bounded() const { return processes_bounded_; }

  // What no provider may see: the prepared layers, the outputs and every hidden check directory.
  std::vector<std::string> private_directories() const;

  // Throws strata::Error naming a hidden check directory that is not one.
  void check_hidden_directories() const;

  // {"config": <hash>|"defaults", "preparedLayers": {repositoryId: key}, "hiddenChecks":
  // {repositoryId: digest}} for <ledger>.inputs; `trees` is the workspace record's
  // {repositoryId: tree}. Keeps the layers' keys for prepare().
  model::Json inputs(const model::Json& trees);

  // The prepared layers of the repositories in `repositories` (id -> root) that have a set-up
  // (app/verifier/prepared_layers); `recorded` is the inputs record the run started with, or null.
  void prepare(const ExecutionWorkspaces& workspaces, const std::map<std::string, std::string>& repositories,
               const model::Json* recorded);

  // The tree a repository's workspaces start from: its prepared layer, or "" (the repository).
  std::string base_of(const std::string& repository_id) const { return layers_.base_of(repository_id); }
  bool setup_failed(const std::string& repository_id) const { return layers_.failed(repository_id); }

  // Writes the execution's verifier output file, atomically.
  void write_output(const std::string& execution_key, const model::VerifiedRun& run) const;

 private:
  model::VerifierPlan plan_;
  std::string output_root_;  // <ledger>.verifier
  std::optional<std::string> diff_directory_;
  bool processes_bounded_ = false;
  PreparedLayers layers_;
};

}  // namespace strata::app
