#include "strata/app/study/execution_workspaces.hpp"

#include "strata/app/study/workspace_preflight.hpp"
#include "strata/app/trajectories/trajectory_keeper.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "strata/error.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/store/private_directory.hpp"
#include "strata/workspace/confinement.hpp"
#include "strata/workspace/tree_copy.hpp"
#include "strata/workspace/workspace_patch.hpp"

namespace strata::app {
namespace {

namespace fs = std::filesystem;
using workspace::WorkspaceMode;

void make_directory(const std::string& path) { store::make_private_directory(path, "the workspace"); }

// An absolute path as the confinement compares it: normal, no trailing '/' ("/a/b/" is "/a/b").
std::string normal_directory(const fs::path& path) {
  std::string text = fs::absolute(path).lexically_normal().string();
  if (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

std::vector<std::string> absolute_entries(const std::string& list) {
  std::vector<std::string> entries;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    const std::string entry = list.substr(start, end - start);
    if (!entry.empty() && entry.front() == '/') entries.push_back(normal_directory(entry));
    start = end + 1;
  }
  return entries;
}

}  // namespace

std::string workspaces_root_for(const std::string& ledger_path) {
  return fs::absolute(ledger_path).lexically_normal().string() + ".workspaces";
}

ExecutionWorkspaces::ExecutionWorkspaces(workspace::WorkspaceSettings settings, WorkspaceTools tools,
                                         const std::string& ledger_path)
    : settings_(std::move(settings)), tools_(std::move(tools)), ledger_path_(ledger_path),
      root_(workspaces_root_for(ledger_path)) {
  tools_.hidden.push_back(root_);
  tools_.kept_out_trees.push_back(root_);
  if (settings_.diff_directory) tools_.kept_out_trees.push_back(normal_directory(*settings_.diff_directory));
}

void ExecutionWorkspaces::sweep_stale() const {
  sweep_stale_probes(ledger_path_);
  std::error_code error;
  if (!fs::is_directory(root_, error)) return;
  for (fs::directory_iterator it(root_, error), end; !error && it != end; it.increment(error)) {
    const std::string path = it->path().string();
    if (workspace::remove_tree(path))
      std::fprintf(stderr, "strata: removed a workspace an interrupted run left: %s\n", path.c_str());
    else
      std::fprintf(stderr, "strata: cannot remove a workspace an interrupted run left (still in use?): %s\n", path.c_str());
  }
}

AttemptWorkspace ExecutionWorkspaces::make(const std::string& name, const std::string& repository,
                                           const std::string& base) const {
  AttemptWorkspace made{root_ + "/" + name, repository, repository, base.empty() ? repository : base};
  make_directory(root_);
  workspace::remove_tree(made.directory);  // an attempt's name is used once per run: a leftover
  make_directory(made.directory);
  try {
    if (settings_.mode == WorkspaceMode::overlay) {
      make_directory(made.directory + "/upper");
      make_directory(made.directory + "/work");
      if (!settings_.confine) made.view = made.base;  // the overlay is mounted over its lower tree
    } else {
      workspace::copy_tree(made.base, made.directory + "/tree");
      if (!settings_.confine) made.view = made.directory + "/tree";  // confined: bound at the repository's path
    }
  } catch (...) {
    workspace::remove_tree(made.directory);
    throw;
  }
  return made;
}

void ExecutionWorkspaces::keep_out(const std::string& directory) {
  const std::string normal = normal_directory(directory);
  tools_.hidden.push_back(normal);
  tools_.kept_out_trees.push_back(normal);
}

// The system read-only, the workspace writable at the repository's path, Strata's files and the
// homes hidden, PATH's directories shown read-only.
workspace::Confinement ExecutionWorkspaces::base_confinement(const exec::ProcessSpec& spec, const AttemptWorkspace& made,
                                                             bool overlay) const {
  workspace::Confinement confinement;
  confinement.bwrap = tools_.bwrap;
  // A copy is bound at the repository's path; an overlay is mounted over its lower tree, which is
  // the repository itself or a prepared layer (then bound at the repository's path too).
  if (!overlay) confinement.workspace = made.directory + "/tree";
  else if (made.base != made.repository) confinement.workspace = made.base;
  confinement.repository = made.repository;
  confinement.hidden = tools_.hidden;
  confinement.kept_out_trees = tools_.kept_out_trees;
  confinement.kept_out_directories = tools_.kept_out_directories;
  // PATH (always passed) is where the child finds its programs: shown read-only.
  for (const auto& variable : spec.env)
    if (variable.rfind("PATH=", 0) == 0)
      for (auto& entry : absolute_entries(variable.substr(5))) confinement.named_read_only.push_back(std::move(entry));
  for (const auto& directory : settings_.shown) confinement.named_read_only.push_back(directory);
  confinement.program = spec.program;
  confinement.network_none = settings_.network_none;
  return confinement;
}

void ExecutionWorkspaces::launch(exec::ProcessSpec& spec, std::vector<std::string> command, workspace::Confinement confinement,
                                 const AttemptWorkspace& made, bool overlay, long max_processes) const {
  std::string program = spec.program;
  if (settings_.confine) {
    command = workspace::bwrap_arguments(confinement, command);
    command.insert(command.begin(), tools_.bwrap);
    program = tools_.bwrap;
  }
  // The launcher gives the provider (or bwrap) a PID namespace that dies with Strata, and for
  // overlay the mount; copy without it (no namespaces here) runs the provider as it is.
  if (!tools_.launcher.empty()) {
    std::vector<std::string> launcher{tools_.launcher, "--parent", std::to_string(::getpid())};
    if (overlay) launcher.insert(launcher.end(), {"--overlay", made.base, made.directory + "/upper", made.directory + "/work"});
    if (max_processes > 0) launcher.insert(launcher.end(), {"--max-processes", std::to_string(max_processes)});
    // Unconfined, a check without the network is kept offline by the launcher instead of bwrap.
    if (!settings_.confine && confinement.network_none) launcher.push_back("--no-network");
    launcher.insert(launcher.end(), {"--view", settings_.confine ? made.directory : made.view, "--"});
    command.insert(command.begin(), launcher.begin(), launcher.end());
    program = tools_.launcher;
  }
  spec.program = program;
  spec.args.assign(command.begin() + 1, command.end());
  spec.working_directory = settings_.confine || !tools_.launcher.empty() ? made.directory : made.view;
}

void ExecutionWorkspaces::wrap(exec::ProcessSpec& spec, const AttemptWorkspace& made, const model::Json& provider,
                               const std::string& trajectory_channel) const {
  std::vector<std::string> command{spec.program};
  command.insert(command.end(), spec.args.begin(), spec.args.end());
  const bool overlay = settings_.mode == WorkspaceMode::overlay;
  workspace::Confinement confinement;
  if (settings_.confine) {
    confinement = base_confinement(spec, made, overlay);
    // A variable the provider's allowlist names explicitly shows the directories it names,
    // writable (an agent's home holds its sessions); HOME passed by default stays hidden.
    for (const auto& name : provider.value("envAllowlist", model::Json::array())) {
      const char* value = std::getenv(model::str(name).c_str());
      if (value == nullptr || model::str(name) == "PATH") continue;
      for (auto& entry : absolute_entries(value)) confinement.named.push_back(std::move(entry));
    }
    if (!trajectory_channel.empty()) confinement.writable_mounts.emplace_back(trajectory_channel, kConfinedTrajectoryChannel);
  }
  launch(spec, std::move(command), std::move(confinement), made, overlay, 0);
}

void ExecutionWorkspaces::wrap_check(exec::ProcessSpec& spec, const AttemptWorkspace& made, const CheckConfinement& check) const {
  std::vector<std::string> command{spec.program};
  command.insert(command.end(), spec.args.begin(), spec.args.end());
  const bool overlay = settings_.mode == WorkspaceMode::overlay;
  workspace::Confinement confinement = base_confinement(spec, made, overlay);
  confinement.network_none = !check.network;
  confinement.read_only_mounts = check.read_only_mounts;
  launch(spec, std::move(command), std::move(confinement), made, overlay, check.max_processes);
}

void ExecutionWorkspaces::wrap_setup(exec::ProcessSpec& spec, const std::string& tree, const std::string& repository,
                                     const CheckConfinement& check) const {
  std::vector<std::string> command{spec.program};
  command.insert(command.end(), spec.args.begin(), spec.args.end());
  // Seen as a copy bound at the repository's path: made.directory + "/tree" is `tree`.
  const std::string holder = fs::path(tree).parent_path().string();
  AttemptWorkspace made{holder, repository, repository, repository};
  workspace::Confinement confinement = base_confinement(spec, made, false);
  confinement.workspace = tree;
  confinement.network_none = !check.network;
  launch(spec, std::move(command), std::move(confinement), made, false, check.max_processes);
}

workspace::TreeChanges ExecutionWorkspaces::changes(const AttemptWorkspace& made) const {
  if (settings_.mode == WorkspaceMode::overlay) return workspace::overlay_changes(made.base, made.directory + "/upper");
  return workspace::copy_changes(made.base, made.directory + "/tree");
}

void ExecutionWorkspaces::keep_patch(const workspace::TreeChanges& changes, const std::string& execution_key) const {
  workspace::write_patch(changes, *settings_.diff_directory + "/" + model::execution_file_stem(execution_key) + ".patch");
}

bool ExecutionWorkspaces::remove(const AttemptWorkspace& made) const {
  if (workspace::remove_tree(made.directory)) return true;
  std::fprintf(stderr, "strata: cannot remove the workspace %s (the next run sweeps it)\n", made.directory.c_str());
  return false;
}

}  // namespace strata::app
