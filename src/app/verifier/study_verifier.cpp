#include "strata/app/verifier/study_verifier.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "strata/app/verifier/verifier_phase.hpp"
#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/workspace/tree_copy.hpp"
#include "strata/workspace/tree_digest.hpp"

namespace strata::app {
namespace {

namespace fs = std::filesystem;
using model::Json;

constexpr std::size_t kSetupOutputBytes = 65536;
constexpr const char* kPartial = ".partial";
constexpr const char* kPidsCgroups = "/sys/fs/cgroup/pids";

void make_private_directory(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error(std::string("cannot make the directory: ") + std::strerror(errno), path);
}

// The last non-empty line of a set-up's stderr, bounded: what the failure line shows of it.
std::string last_line(const std::string& text) {
  std::string line;
  std::size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  const std::size_t start = text.rfind('\n', end == 0 ? 0 : end - 1);
  line = text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

std::string file_name_of(const std::string& execution_key) {
  std::string file = execution_key;
  for (char& c : file)
    if (c == ':' || c == '/') c = '-';
  return file;
}

}  // namespace

StudyVerifier::StudyVerifier(model::VerifierPlan plan, const std::string& ledger_path, std::optional<std::string> diff_directory)
    : plan_(std::move(plan)), diff_directory_(std::move(diff_directory)) {
  const std::string ledger = fs::absolute(ledger_path).lexically_normal().string();
  prepared_root_ = ledger + ".prepared";
  output_root_ = ledger + ".verifier";
  processes_bounded_ = ::access(kPidsCgroups, W_OK) == 0;
  if (!processes_bounded_)
    std::fprintf(stderr, "strata: --verify: no writable pids cgroup (%s): a check's processes are bounded by its PID namespace "
                 "and its time limit only, not by maxProcesses\n", kPidsCgroups);
}

std::vector<std::string> StudyVerifier::private_directories() const {
  std::vector<std::string> directories{prepared_root_, output_root_};
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
    if (preparation.setup && trees.contains(id)) {
      // The layer is the set-up's result on that tree: a new commit or a new set-up, a new layer.
      const Json identity = {{"tree", trees[id]}, {"setup", *preparation.setup}};
      layer_keys_[id] = model::content_hash(identity).substr(0, 32);
      layers[id] = layer_keys_[id];
    }
    if (preparation.hidden_directory) hidden[id] = workspace::files_digest(*preparation.hidden_directory);
  }
  return {{"config", plan_.config_hash.value_or("defaults")}, {"preparedLayers", layers}, {"hiddenChecks", hidden}};
}

void StudyVerifier::prepare(const ExecutionWorkspaces& workspaces, const std::map<std::string, std::string>& repositories,
                            const Json* recorded) {
  std::error_code ignored;
  // What an interrupted set-up left.
  if (fs::is_directory(prepared_root_, ignored))
    for (fs::directory_iterator it(prepared_root_, ignored), end; !ignored && it != end; it.increment(ignored))
      if (it->path().extension() == kPartial) workspace::remove_tree(it->path().string());
  std::map<std::string, bool> made;  // key -> set up (true) or failed (false), each key once
  for (const auto& [id, root] : repositories) {
    const auto key = layer_keys_.find(id);
    if (key == layer_keys_.end()) continue;
    const std::string layer = prepared_root_ + "/" + key->second;
    if (const auto done = made.find(key->second); done != made.end()) {
      if (done->second) layers_[id] = layer;
      else failed_.insert(id);
      continue;
    }
    if (fs::is_directory(layer, ignored)) {
      layers_[id] = layer;
      made[key->second] = true;
      continue;
    }
    const bool rebuilt = recorded != nullptr && recorded->contains("verifier") &&
                         (*recorded)["verifier"].value("preparedLayers", Json::object()).value(id, "") == key->second;
    std::fprintf(stderr, "strata: %s the prepared layer of repository %s (its set-up, once per tree): %s\n",
                 rebuilt ? "the layer was removed; setting up again" : "setting up", id.c_str(), layer.c_str());
    const model::RepositoryPreparation& preparation = *plan_.preparation(id);
    make_private_directory(prepared_root_);
    const std::string partial = layer + kPartial;
    workspace::remove_tree(partial);
    make_private_directory(partial);
    const std::string tree = partial + "/tree";
    std::string failure;
    try {
      workspace::copy_tree(root, tree);
      exec::ProcessSpec spec;
      spec.program = "/bin/sh";
      spec.args = {"-c", *preparation.setup};
      spec.env = check_environment("");
      spec.timeout = std::chrono::milliseconds(preparation.setup_timeout_ms);
      spec.stdout_limit = kSetupOutputBytes;
      spec.stderr_limit = kSetupOutputBytes;
      spec.keep_stderr = true;
      CheckConfinement confinement;
      confinement.network = preparation.setup_network;
      confinement.max_processes = processes_bounded_ ? model::kDefaultSetupProcesses : 0;
      workspaces.wrap_setup(spec, tree, root, confinement);
      const exec::ProcessResult result = exec::run_process_to_end(std::move(spec));
      if (result.end == exec::ProcessEnd::timed_out) failure = "timed out after " + std::to_string(preparation.setup_timeout_ms) + " ms";
      else if (result.end == exec::ProcessEnd::output_limit) failure = "printed more than 65536 bytes";
      else if (result.end == exec::ProcessEnd::spawn_failed) failure = "could not start: " + result.spawn_error;
      else if (result.end == exec::ProcessEnd::signaled) failure = "killed by signal " + std::to_string(result.term_signal);
      else if (result.exit_code != 0) failure = "exit " + std::to_string(result.exit_code);
      if (!failure.empty() && !last_line(result.stderr_data).empty()) failure += ": " + last_line(result.stderr_data);
      // The layer is the tree alone, in place at once: a kill before this leaves only a partial.
      if (failure.empty() && ::rename(tree.c_str(), layer.c_str()) != 0)
        failure = std::string("cannot keep the layer: ") + std::strerror(errno);
    } catch (const Error& error) {
      failure = error.describe();
    }
    workspace::remove_tree(partial);
    made[key->second] = failure.empty();
    if (failure.empty()) {
      layers_[id] = layer;
    } else {
      failed_.insert(id);
      std::fprintf(stderr, "strata: the set-up of repository %s failed (%s): its executions are recorded unavailable (setup-failed)\n",
                   id.c_str(), failure.c_str());
    }
  }
}

std::string StudyVerifier::base_of(const std::string& repository_id) const {
  const auto found = layers_.find(repository_id);
  return found == layers_.end() ? std::string() : found->second;
}

void StudyVerifier::write_output(const std::string& execution_key, const model::VerifiedRun& run) const {
  std::string path;
  if (diff_directory_) {
    path = *diff_directory_ + "/" + file_name_of(execution_key) + ".verifier.json";
  } else {
    make_private_directory(output_root_);
    path = output_root_ + "/" + file_name_of(execution_key) + ".json";
  }
  store::write_file_atomically(path, model::compact_json(model::verifier_output(execution_key, run)) + "\n");
}

}  // namespace strata::app
