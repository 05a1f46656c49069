#include "strata/app/study/workspace_preflight.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/exec/child_environment.hpp"
#include "strata/exec/command_lookup.hpp"
#include "strata/workspace/tree_copy.hpp"

namespace strata::app {
namespace {

namespace fs = std::filesystem;
using workspace::WorkspaceMode;

std::string absolute_directory_of(const std::string& path) {
  return fs::absolute(path).lexically_normal().parent_path().string();
}

// The first line the probe printed on stderr, or how it ended.
std::string why(const exec::ProcessResult& result) {
  std::string line = result.stderr_data.substr(0, result.stderr_data.find('\n'));
  if (!line.empty()) return line;
  if (result.end == exec::ProcessEnd::spawn_failed) return result.spawn_error;
  return "exit status " + std::to_string(result.exit_code);
}

exec::ProcessResult probe(const std::string& program, std::vector<std::string> args, const std::string& directory) {
  exec::ProcessSpec spec;
  spec.program = program;
  spec.args = std::move(args);
  spec.env = exec::allowlisted_environment({});
  spec.working_directory = directory;
  spec.timeout = std::chrono::milliseconds(20000);
  spec.keep_stderr = true;
  spec.stderr_limit = 4096;
  return exec::run_process_to_end(std::move(spec));
}

// "<ledger>.workspace-probe-<pid>-XXXXXX": the PID tells a live probe from one a kill left.
constexpr const char* kProbeInfix = ".workspace-probe-";

// A scratch directory beside the ledger (where the workspaces will be), removed by its destructor.
class Scratch {
 public:
  explicit Scratch(const std::string& ledger_path) {
    // Beside the ledger, or in the nearest directory above it that exists (a new ledger's own
    // directory is made by the run, not by its pre-flight).
    fs::path at = fs::absolute(ledger_path).lexically_normal();
    std::error_code error;
    while (at.has_parent_path() && at.parent_path() != at && !fs::is_directory(at.parent_path(), error))
      at = at.parent_path();
    std::string pattern = at.string() + kProbeInfix + std::to_string(::getpid()) + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      throw Error("--workspace: cannot make a directory beside the ledger", pattern);
    path_ = pattern;
  }
  ~Scratch() { workspace::remove_tree(path_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string missing_launcher(const std::string& mode) {
  return "--workspace " + mode + " needs strata-workspace-exec beside strata, and it is not there (build it: cmake --build)";
}

void check_overlay(const std::string& launcher, const std::string& true_program, const Scratch& scratch) {
  if (::access(launcher.c_str(), X_OK) != 0) throw Error(missing_launcher("overlay"), launcher);
  for (const char* part : {"/lower", "/upper", "/work"}) fs::create_directory(scratch.path() + part);
  const std::string& s = scratch.path();
  const exec::ProcessResult result =
      probe(launcher, {"--overlay", s + "/lower", s + "/upper", s + "/work", "--view", s + "/lower", "--", true_program}, s);
  if (result.end != exec::ProcessEnd::exited || result.exit_code != 0)
    throw Error("--workspace overlay is not available here (" + why(result) +
                "); --workspace copy needs no mount");
}

// copy uses the launcher for its PID namespace where the kernel allows one: true when it does.
bool pid_namespace_available(const std::string& launcher, const std::string& true_program, const Scratch& scratch) {
  if (::access(launcher.c_str(), X_OK) != 0) throw Error(missing_launcher("copy"), launcher);
  const exec::ProcessResult result = probe(launcher, {"--view", scratch.path(), "--", true_program}, scratch.path());
  return result.end == exec::ProcessEnd::exited && result.exit_code == 0;
}

void check_bubblewrap(const std::string& bwrap, const std::string& true_program, bool network_none, const Scratch& scratch) {
  std::vector<std::string> args{"--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"};
  if (network_none) args.push_back("--unshare-net");
  args.push_back("--");
  args.push_back(true_program);
  const exec::ProcessResult result = probe(bwrap, args, scratch.path());
  if (result.end != exec::ProcessEnd::exited || result.exit_code != 0)
    throw Error("--confine is not available here: bubblewrap cannot make its namespaces (" + why(result) + ")");
}

}  // namespace

void sweep_stale_probes(const std::string& ledger_path) {
  const fs::path ledger = fs::absolute(ledger_path).lexically_normal();
  const std::string prefix = ledger.filename().string() + kProbeInfix;
  std::error_code error;
  for (fs::directory_iterator it(ledger.parent_path(), error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const long pid = std::atol(name.c_str() + prefix.size());
    if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)) continue;  // its run is alive
    if (workspace::remove_tree(it->path().string()))
      std::fprintf(stderr, "strata: removed a pre-flight probe an interrupted run left: %s\n", it->path().c_str());
  }
}

WorkspaceTools check_workspace_preflight(const workspace::WorkspaceSettings& settings, const WorkspacePlaces& places) {
  if (settings.network_none && !settings.confine) throw Error("--confine-network none needs --confine");
  if (settings.confine && !settings.isolated()) throw Error("--confine needs --workspace copy or overlay");
  if (settings.diff_directory && !settings.isolated())
    throw Error("--keep-workspace-diff needs --workspace copy or overlay");
  WorkspaceTools tools;
  if (!settings.isolated()) return tools;
  std::string true_program;
  try {
    true_program = exec::resolve_command("true", "/", places.path_variable);
  } catch (const Error&) {
    throw Error("--workspace: the program 'true' (coreutils) is not on PATH; it is what the pre-flight tries");
  }
  const Scratch scratch(places.ledger_path);
  if (settings.mode == WorkspaceMode::overlay) {
    tools.launcher = places.launcher;
    check_overlay(tools.launcher, true_program, scratch);
  } else if (pid_namespace_available(places.launcher, true_program, scratch)) {
    tools.launcher = places.launcher;
  } else {
    std::fprintf(stderr,
                 "strata: --workspace copy without a PID namespace here: a provider's background processes are not stopped "
                 "when it exits, nor when strata is killed\n");
  }
  if (settings.confine) {
    try {
      tools.bwrap = exec::resolve_command("bwrap", "/", places.path_variable);
    } catch (const Error&) {
      throw Error("--confine needs bubblewrap, and bwrap is not on PATH (Debian: apt-get install bubblewrap)");
    }
    check_bubblewrap(tools.bwrap, true_program, settings.network_none, scratch);
    // What a confined provider must not see: home directories, a private TMPDIR, Strata's files.
    tools.hidden = {"/root", "/home"};
    for (const char* name : {"HOME", "TMPDIR"})
      if (const char* value = std::getenv(name); value != nullptr && value[0] == '/')
        tools.hidden.push_back(fs::path(value).lexically_normal().string());
    tools.hidden.push_back(absolute_directory_of(places.ledger_path));
    for (const auto& artifact : places.artifact_paths) tools.hidden.push_back(absolute_directory_of(artifact));
    tools.kept_out_directories.push_back(absolute_directory_of(places.ledger_path));
    for (const auto& artifact : places.artifact_paths) tools.kept_out_directories.push_back(absolute_directory_of(artifact));
    // A repository by the path it is configured at and by the one its links resolve to: either
    // may be what an environment variable names.
    for (const auto& root : places.repository_roots) {
      std::error_code ignored;
      for (const fs::path& path : {fs::path(root), fs::weakly_canonical(root, ignored)}) {
        if (path.empty()) continue;
        tools.kept_out_trees.push_back(path.string());
        tools.kept_out_directories.push_back(path.parent_path().string());
      }
    }
  }
  return tools;
}

}  // namespace strata::app
