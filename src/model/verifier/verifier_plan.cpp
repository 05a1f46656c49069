#include "strata/model/verifier/verifier_plan.hpp"

#include <set>

#include "strata/error.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::model {
namespace {

// A path inside the repository: relative, no "." or ".." component, no empty one.
bool stays_inside(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

const RepositoryPreparation* VerifierPlan::preparation(const std::string& repository_id) const {
  const auto found = repositories.find(repository_id);
  return found == repositories.end() ? nullptr : &found->second;
}

VerifierPlan verifier_plan(const Json* config, const std::string& config_directory, const Json& suite,
                           const Json& repository_config) {
  VerifierPlan plan;
  const Json defaults = config != nullptr ? config->value("defaults", Json::object()) : Json::object();
  const long long timeout = defaults.value("timeoutMs", kDefaultCheckTimeoutMs);
  const std::size_t output = defaults.value("maxOutputBytes", kDefaultCheckOutputBytes);
  const long processes = defaults.value("maxProcesses", kDefaultCheckProcesses);
  for (const auto& task : suite["tasks"]) {
    auto& checks = plan.checks_by_task[str(task["id"])];
    for (const auto& check : task["acceptanceChecks"])
      checks.push_back(VerifierCheck{str(check["id"]), str(check["command"]), timeout, output, processes, false, {}});
  }
  if (config == nullptr) return plan;
  plan.config_hash = str((*config)["contentHash"]);
  for (const auto& entry : config->value("checks", Json::array())) {
    const std::string task_id = str(entry["taskId"]), check_id = str(entry["checkId"]);
    const auto task = plan.checks_by_task.find(task_id);
    if (task == plan.checks_by_task.end())
      throw Error("verifier-config check " + task_id + "/" + check_id + ": the suite has no task " + task_id + ".");
    VerifierCheck* check = nullptr;
    for (auto& candidate : task->second)
      if (candidate.id == check_id) check = &candidate;
    if (check == nullptr)
      throw Error("verifier-config check " + task_id + "/" + check_id + ": task " + task_id + " has no acceptance check " +
                  check_id + ".");
    if (entry.contains("command")) check->command = str(entry["command"]);
    check->timeout_ms = entry.value("timeoutMs", check->timeout_ms);
    check->max_output_bytes = entry.value("maxOutputBytes", check->max_output_bytes);
    check->max_processes = entry.value("maxProcesses", check->max_processes);
    check->network = entry.value("network", false);
    if (entry.contains("stdoutContains")) check->rule.stdout_contains = str(entry["stdoutContains"]);
    if (entry.contains("jsonResult")) check->rule.json_result = str(entry["jsonResult"]);
  }
  std::set<std::string> known;
  for (const auto& repository : repository_config["repositories"]) known.insert(str(repository["id"]));
  for (const auto& entry : config->value("repositories", Json::array())) {
    const std::string id = str(entry["repositoryId"]);
    if (known.count(id) == 0)
      throw Error("verifier-config repository " + id + ": the repository config has no repository " + id + ".");
    RepositoryPreparation preparation;
    if (entry.contains("setup")) preparation.setup = str(entry["setup"]);
    preparation.setup_timeout_ms = entry.value("setupTimeoutMs", kDefaultSetupTimeoutMs);
    preparation.setup_network = entry.value("setupNetwork", false);
    if (entry.contains("hiddenChecks")) {
      const Json& hidden = entry["hiddenChecks"];
      const std::string directory = str(hidden["directory"]);
      preparation.mount_at = str(hidden["mountAt"]);
      if (!stays_inside(preparation.mount_at))
        throw Error("verifier-config repository " + id + ": hiddenChecks.mountAt " + preparation.mount_at +
                    " must be a relative path inside the repository (no '.', '..' or empty part).");
      preparation.hidden_directory = directory.front() == '/' ? directory : config_directory + "/" + directory;
    }
    plan.repositories[id] = std::move(preparation);
  }
  return plan;
}

}  // namespace strata::model
