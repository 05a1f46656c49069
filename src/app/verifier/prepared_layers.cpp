#include "strata/app/verifier/prepared_layers.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "strata/app/verifier/verifier_phase.hpp"
#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/private_directory.hpp"
#include "strata/workspace/tree_copy.hpp"
#include "strata/workspace/tree_digest.hpp"

namespace strata::app {
namespace {

namespace fs = std::filesystem;
using model::Json;

constexpr std::size_t kSetupLogBytes = 65536;
constexpr const char* kPartial = ".partial";
constexpr const char* kDigest = ".digest";

using store::make_private_directory;

// An exclusive lock on <layer>.lock for as long as it lives: the other Strata process preparing
// the same key waits here, then finds the layer made.
class KeyLock {
 public:
  explicit KeyLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (fd_ < 0) throw Error(std::string("cannot open the lock: ") + std::strerror(errno), path);
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    std::fprintf(stderr, "strata: another Strata process is setting up this prepared layer; waiting for it: %s\n", path.c_str());
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) throw Error(std::string("cannot lock: ") + std::strerror(errno), path);
  }
  ~KeyLock() { ::close(fd_); }
  KeyLock(const KeyLock&) = delete;
  KeyLock& operator=(const KeyLock&) = delete;

 private:
  int fd_;
};

// The last non-empty line of a set-up's output, bounded: what the failure line shows of it.
std::string last_line(const std::string& text) {
  std::size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  const std::size_t start = end == 0 ? 0 : text.rfind('\n', end - 1);
  const std::size_t from = start == std::string::npos || end == 0 ? 0 : start + 1;
  std::string line = text.substr(from, end - from);
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

// Adds one set-up's entry to its repository's log: the log keeps every set-up of that
// repository for this ledger (or these diffs), so how often a set-up ran is read from it.
void append_to_log(const std::string& path, const std::string& entry) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw Error(std::string("cannot open the log: ") + std::strerror(errno), path);
  for (std::size_t done = 0; done < entry.size();) {
    const ssize_t n = ::write(fd, entry.data() + done, entry.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw Error(std::string("cannot write the log: ") + std::strerror(error), path);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

std::string read_small_file(const std::string& path) {
  std::string text;
  if (FILE* file = std::fopen(path.c_str(), "re")) {
    char buffer[256];
    const std::size_t n = std::fread(buffer, 1, sizeof buffer, file);
    text.assign(buffer, n);
    std::fclose(file);
  }
  return text;
}

}  // namespace

PreparedLayers::PreparedLayers(std::string root, std::string log_directory, bool bound_processes)
    : root_(std::move(root)), log_directory_(std::move(log_directory)), bound_processes_(bound_processes) {}

std::string PreparedLayers::key_for(const std::string& repository_id, const Json& tree, const std::string& setup) {
  // The layer is the set-up's result on that tree: a new commit or a new set-up, a new layer.
  const Json identity = {{"tree", tree}, {"setup", setup}};
  return keys_[repository_id] = model::content_hash(identity).substr(0, 32);
}

bool PreparedLayers::intact(const std::string& repository_id, const std::string& layer) const {
  const std::string kept = read_small_file(layer + kDigest);
  const std::string now = workspace::files_digest(layer);
  if (kept == now) return true;
  std::fprintf(stderr, "strata: the prepared layer of repository %s changed on disk since it was made (%s -> %s): setting it up again\n",
               repository_id.c_str(), kept.empty() ? "no digest kept" : kept.c_str(), now.c_str());
  return false;
}

std::string PreparedLayers::set_up(const ExecutionWorkspaces& workspaces, const std::string& repository_id,
                                   const std::string& repository_root, const model::RepositoryPreparation& preparation,
                                   const std::string& layer) const {
  const std::string partial = layer + kPartial;
  const std::string tree = partial + "/tree";
  const auto started = std::chrono::steady_clock::now();
  std::string failure, output;
  try {
    make_private_directory(partial);
    workspace::copy_tree(repository_root, tree);
    exec::ProcessSpec spec;
    spec.program = "/bin/sh";
    // Its stdout joins its stderr, which is kept (bounded) and never stops it: a chatty
    // `npm ci` is not a failed one.
    spec.args = {"-c", "exec 1>&2\n" + *preparation.setup};
    spec.env = check_environment("");
    spec.timeout = std::chrono::milliseconds(preparation.setup_timeout_ms);
    spec.stderr_limit = kSetupLogBytes;
    spec.keep_stderr = true;
    CheckConfinement confinement;
    confinement.network = preparation.setup_network;
    confinement.max_processes = bound_processes_ ? model::kDefaultSetupProcesses : 0;
    workspaces.wrap_setup(spec, tree, repository_root, confinement);
    const exec::ProcessResult result = exec::run_process_to_end(std::move(spec));
    output = result.stderr_data;
    if (result.end == exec::ProcessEnd::timed_out) failure = "timed out after " + std::to_string(preparation.setup_timeout_ms) + " ms";
    else if (result.end == exec::ProcessEnd::spawn_failed) failure = "could not start: " + result.spawn_error;
    else if (result.end == exec::ProcessEnd::signaled) failure = "killed by signal " + std::to_string(result.term_signal);
    else if (result.end != exec::ProcessEnd::exited || result.exit_code != 0) failure = "exit " + std::to_string(result.exit_code);
    if (!failure.empty() && !last_line(output).empty()) failure += ": " + last_line(output);
    if (failure.empty()) {
      // Its digest beside it first, then the layer in place at once: a kill before the rename
      // leaves only a partial (swept under the lock), after it a layer with its digest.
      store::write_file_atomically(layer + kDigest, workspace::files_digest(tree));
      if (::rename(tree.c_str(), layer.c_str()) != 0) failure = std::string("cannot keep the layer: ") + std::strerror(errno);
    }
  } catch (const Error& error) {
    failure = error.describe();
  }
  workspace::remove_tree(partial);
  // The set-up's own log, beside the diffs (or the verifier's outputs): one entry per set-up,
  // its output (bounded) and how it ended.
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  const std::string log = log_directory_ + "/setup-" + repository_id + ".log";
  try {
    make_private_directory(log_directory_);
    if (!output.empty() && output.back() != '\n') output += '\n';
    append_to_log(log, "# strata: the set-up of repository " + repository_id + " into " + layer + ": " +
                           (failure.empty() ? std::string("made") : "failed (" + failure + ")") + " after " +
                           std::to_string(took) + " ms; its output (stdout and stderr, at most " +
                           std::to_string(kSetupLogBytes) + " bytes) follows\n" + output);
  } catch (const Error& error) {
    std::fprintf(stderr, "strata: the set-up log of repository %s: %s\n", repository_id.c_str(), error.describe().c_str());
  }
  if (!failure.empty()) failure += "; its log: " + log;
  return failure;
}

void PreparedLayers::prepare(const ExecutionWorkspaces& workspaces, const std::map<std::string, std::string>& repositories,
                             const model::VerifierPlan& plan, const Json* recorded) {
  std::map<std::string, bool> made;  // key -> set up (true) or failed (false), each key once
  for (const auto& [id, root] : repositories) {
    const auto key = keys_.find(id);
    if (key == keys_.end()) continue;
    const std::string layer = root_ + "/" + key->second;
    if (const auto done = made.find(key->second); done != made.end()) {
      if (done->second) layers_[id] = layer;
      else failed_.insert(id);
      continue;
    }
    make_private_directory(root_);
    const KeyLock lock(layer + ".lock");
    workspace::remove_tree(layer + kPartial);  // a set-up killed half way (the lock is ours: no one is making it)
    std::error_code ignored;
    if (fs::is_directory(layer, ignored)) {
      if (intact(id, layer)) {
        layers_[id] = layer;
        made[key->second] = true;
        continue;
      }
      workspace::remove_tree(layer);
    } else {
      const bool removed = recorded != nullptr && recorded->contains("verifier") &&
                           (*recorded)["verifier"].value("preparedLayers", Json::object()).value(id, "") == key->second;
      std::fprintf(stderr, "strata: %s the prepared layer of repository %s (its set-up, once per tree): %s\n",
                   removed ? "the layer was removed; setting up again" : "setting up", id.c_str(), layer.c_str());
    }
    const std::string failure = set_up(workspaces, id, root, *plan.preparation(id), layer);
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

std::string PreparedLayers::base_of(const std::string& repository_id) const {
  const auto found = layers_.find(repository_id);
  return found == layers_.end() ? std::string() : found->second;
}

}  // namespace strata::app
