#include "strata/app/study/repository_trees.hpp"

#include <cstdlib>
#include <map>
#include <optional>

#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/exec/child_environment.hpp"
#include "strata/exec/command_lookup.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/workspace/tree_digest.hpp"

namespace strata::app {
namespace {

// git's stdout, or nullopt when it failed.
std::optional<std::string> git(const std::string& program, const std::string& root, std::vector<std::string> args) {
  exec::ProcessSpec spec;
  spec.program = program;
  spec.args = {"-C", root, "--no-optional-locks"};
  spec.args.insert(spec.args.end(), args.begin(), args.end());
  spec.env = exec::allowlisted_environment({});
  spec.env.push_back("GIT_OPTIONAL_LOCKS=0");
  spec.working_directory = root;
  spec.timeout = std::chrono::milliseconds(120000);
  spec.stdout_limit = 64 * 1024;  // a clean tree prints nothing; a dirty one needs no more to say so
  const exec::ProcessResult result = exec::run_process_to_end(std::move(spec));
  if (result.end != exec::ProcessEnd::exited || result.exit_code != 0) return std::nullopt;
  return result.stdout_data;
}

}  // namespace

std::string repository_tree(const std::string& root, const std::string& path_variable) {
  std::string program;
  try {
    program = exec::resolve_command("git", root, path_variable);
  } catch (const Error&) {
    return workspace::files_digest(root);  // no git here: the files themselves
  }
  const auto status = git(program, root, {"status", "--porcelain", "--untracked-files=all", "--", "."});
  if (status && status->empty()) {
    if (const auto head = git(program, root, {"rev-parse", "--verify", "HEAD"}); head && head->size() >= 40)
      return "git:" + head->substr(0, head->find('\n'));
  }
  return workspace::files_digest(root);
}

model::Json workspace_inputs(const RunPreflight& preflight, const workspace::WorkspaceSettings& settings) {
  const char* path = std::getenv("PATH");
  std::map<std::string, std::string> roots;  // repositoryId -> root, each once
  for (const auto& e : preflight.executions)
    if (!e.assisted_unavailable && e.provider != nullptr && !e.provider->contains("endpoint"))
      roots.emplace(model::str(e.recorded["repositoryId"]), e.repository_root);
  model::Json trees = model::Json::object();
  std::map<std::string, std::string> by_root;  // repositories sharing a root are read once
  for (const auto& [id, root] : roots) {
    auto known = by_root.find(root);
    if (known == by_root.end()) known = by_root.emplace(root, repository_tree(root, path ? path : "")).first;
    trees[id] = known->second;
  }
  return {{"mode", workspace::mode_name(settings.mode)},
          {"confine", settings.confine},
          {"network", settings.network_none ? "none" : "default"},
          {"trees", std::move(trees)}};
}

}  // namespace strata::app
