#include "strata/app/verifier/study_verifier.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "strata/error.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/private_directory.hpp"
#include "strata/workspace/tree_digest.hpp"

namespace strata::app {
namespace {

namespace fs = std::filesystem;
using model::Json;

constexpr const char* kPidsCgroups = "/sys/fs/cgroup/pids";

using store::make_private_directory;

std::string absolute(const std::string& path) { return fs::absolute(path).lexically_normal().string(); }

}  // namespace

StudyVerifier::StudyVerifier(model::VerifierPlan plan, const std::string& ledger_path, std::optional<std::string> diff_directory,
                             std::optional<std::string> prepared_directory)
    : plan_(std::move(plan)),
      output_root_(absolute(ledger_path) + ".verifier"),
      diff_directory_(std::move(diff_directory)),
      processes_bounded_(::access(kPidsCgroups, W_OK) == 0),
      layers_(prepared_directory ? absolute(*prepared_directory) : absolute(ledger_path) + ".prepared",
              diff_directory_ ? *diff_directory_ : output_root_, processes_bounded_) {
  if (!processes_bounded_)
    std::fprintf(stderr, "strata: --verify: no writable pids cgroup (%s): a check's processes are bounded by its PID namespace "
                 "and its time limit only, not by maxProcesses\n", kPidsCgroups);
}

std::vector<std::string> StudyVerifier::private_directories() const {
  std::vector<std::string> directories{layers_.root(), output_root_};
  for (const auto& [id, preparation] : plan_.repositories)
    if (preparation.hidden_directory) directories.push_back(fs::absolute(*preparation.hidden_directory).lexically_normal().string());
  return directories;
}

void StudyVerifier::check_hidden_directories() const {
  for (const auto& [id, preparation] : plan_.repositories)
    if (preparation.hidden_directory && !fs::is_directory(*preparation.hidden_directory))
      throw Error("verifier-config repository " + id + ": hiddenChecks.directory is not a directory", *preparation.hidden_directory);
}

Json StudyVerifier::inputs(const Json& trees) {
  Json layers = Json::object(), hidden = Json::object();
  for (const auto& [id, preparation] : plan_.repositories) {
    if (preparation.setup && trees.contains(id)) layers[id] = layers_.key_for(id, trees[id], *preparation.setup);
    if (preparation.hidden_directory) hidden[id] = workspace::files_digest(*preparation.hidden_directory);
  }
  return {{"config", plan_.config_hash.value_or("defaults")}, {"preparedLayers", layers}, {"hiddenChecks", hidden}};
}

void StudyVerifier::prepare(const ExecutionWorkspaces& workspaces, const std::map<std::string, std::string>& repositories,
                            const Json* recorded) {
  layers_.prepare(workspaces, repositories, plan_, recorded);
}

void StudyVerifier::write_output(const std::string& execution_key, const model::VerifiedRun& run) const {
  std::string path;
  if (diff_directory_) {
    path = *diff_directory_ + "/" + model::execution_file_stem(execution_key) + ".verifier.json";
  } else {
    make_private_directory(output_root_);
    path = output_root_ + "/" + model::execution_file_stem(execution_key) + ".json";
  }
  store::write_file_atomically(path, model::compact_json(model::verifier_output(execution_key, run)) + "\n");
}

}  // namespace strata::app
