#include "strata/app/trajectories/trajectory_keeper.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "strata/error.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/private_directory.hpp"
#include "strata/store/untrusted_file.hpp"
#include "strata/workspace/tree_copy.hpp"

namespace strata::app {
namespace {

namespace fs = std::filesystem;

constexpr const char* kChannelFile = "trajectory.json";

// Is `text` an ATIF trajectory as far as a reader needs it: an object naming an ATIF v1 schema,
// with its steps? (The adapters' own output is checked against the whole schema in the tests.)
bool looks_like_atif(const std::string& text) {
  try {
    const model::Json parsed = model::parse_json(text);
    if (!parsed.is_object()) return false;
    const auto version = parsed.find("schema_version");
    const auto steps = parsed.find("steps");
    return version != parsed.end() && version->is_string() && version->get<std::string>().rfind("ATIF-v1.", 0) == 0 &&
           steps != parsed.end() && steps->is_array();
  } catch (const Error&) {
    return false;
  }
}

// The channel's file, or nullopt (said why on stderr) when there is none worth keeping. What the
// provider left is not trusted (store/untrusted_file).
std::optional<std::string> channel_text(const std::string& path, const std::string& execution_key) {
  const store::UntrustedFile file = store::read_untrusted_file(path, TrajectoryKeeper::kMaxFileBytes);
  const char* refused = nullptr;
  switch (file.refused) {
    case store::UntrustedFileRefusal::missing: return std::nullopt;  // the provider wrote none (not an agent adapter, or it failed early)
    case store::UntrustedFileRefusal::symbolic_link: refused = "a symbolic link"; break;
    case store::UntrustedFileRefusal::not_regular: refused = "not a regular file"; break;
    case store::UntrustedFileRefusal::too_large: refused = "larger than 16 MiB"; break;
    case store::UntrustedFileRefusal::none:
      if (!looks_like_atif(*file.text)) refused = "not an ATIF trajectory";
      break;
  }
  if (refused == nullptr) return file.text;
  std::fprintf(stderr, "strata: execution %s: its trajectory was not kept: %s\n", execution_key.c_str(), refused);
  return std::nullopt;
}

}  // namespace

TrajectoryKeeper::TrajectoryKeeper(const std::string& directory, const std::string& incoming_root, std::string suffix)
    : directory_(fs::absolute(directory).lexically_normal().string()),
      incoming_root_(fs::absolute(incoming_root).lexically_normal().string()),
      suffix_(std::move(suffix)) {
  if (fs::exists(directory_) && !fs::is_directory(directory_)) throw Error("--keep-trajectories: not a directory", directory_);
  store::make_private_directory(directory_);
  store::make_private_directory(incoming_root_);
  if (!fs::is_directory(incoming_root_)) throw Error("--keep-trajectories: the channels' place is not a directory", incoming_root_);
}

std::string TrajectoryKeeper::open_channel(const std::string& attempt) const {
  const std::string channel = incoming_root_ + "/" + attempt;
  workspace::remove_tree(channel);
  store::make_private_directory(channel);
  return channel;
}

std::string TrajectoryKeeper::file_in(const std::string& channel) { return channel + "/" + kChannelFile; }

bool TrajectoryKeeper::keep(const std::string& attempt, const std::string& execution_key) const {
  const std::string channel = incoming_root_ + "/" + attempt;
  const std::string kept = path_for(execution_key);
  const std::optional<std::string> text = channel_text(file_in(channel), execution_key);
  if (text) store::write_file_atomically(kept, *text);
  else if (::unlink(kept.c_str()) != 0 && errno != ENOENT)  // an earlier run's, of an attempt that ran again
    throw Error(std::string("cannot remove the trajectory: ") + std::strerror(errno), kept);
  close_channel(attempt);
  return text.has_value();
}

void TrajectoryKeeper::close_channel(const std::string& attempt) const {
  if (!workspace::remove_tree(incoming_root_ + "/" + attempt))
    std::fprintf(stderr, "strata: cannot remove %s/%s (the next run sweeps it)\n", incoming_root_.c_str(), attempt.c_str());
}

void TrajectoryKeeper::sweep(const std::vector<std::string>& unrecorded_keys) const {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(incoming_root_, error))
    if (!workspace::remove_tree(entry.path().string())) throw Error("cannot remove what an interrupted run left", entry.path().string());
  for (const auto& key : unrecorded_keys) {
    const std::string path = path_for(key);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      throw Error(std::string("cannot remove a trajectory without its observation: ") + std::strerror(errno), path);
  }
}

std::string TrajectoryKeeper::path_for(const std::string& execution_key) const {
  return directory_ + "/" + model::execution_file_stem(execution_key) + suffix_;
}

}  // namespace strata::app
