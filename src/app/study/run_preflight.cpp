#include "strata/app/study/run_preflight.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "strata/error.hpp"
#include "strata/exec/command_lookup.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/provider_request.hpp"
#include "strata/model/study/sampling.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::app {
namespace {

using model::Json;

using model::str;

std::vector<std::string> sorted_ids(const Json& array, const char* key = nullptr) {
  std::vector<std::string> ids;
  for (const auto& element : array) ids.push_back(str(key ? element[key] : element));
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Repository id -> absolute root, after checking coverage and that each root exists.
std::map<std::string, std::string> repository_roots(const Json& repositories, const Json& suite) {
  namespace fs = std::filesystem;
  if (sorted_ids(repositories["repositories"], "id") != sorted_ids(suite["population"]))
    throw Error("Study repository config must contain exactly one root for every task-suite population id.");
  std::map<std::string, std::string> roots;
  for (const auto& repository : repositories["repositories"]) {
    std::error_code ec;
    const fs::path root = fs::absolute(str(repository["root"]), ec).lexically_normal();
    if (ec || !fs::is_directory(root, ec))
      throw Error("Study repository " + str(repository["id"]) + " is not available at the configured root.");
    std::string text = root.string();
    if (text.size() > 1 && text.back() == '/') text.pop_back();
    roots[str(repository["id"])] = text;
  }
  return roots;
}

PlannedExecution plan_execution(const Json& cell, const StudyInputs& inputs, const RunPreflight& preflight,
                                const std::map<std::string, std::string>& roots, const std::string& path_variable) {
  PlannedExecution planned;
  const auto root = roots.find(str(cell["repositoryId"]));
  if (root == roots.end()) throw Error("No repository root is configured for " + str(cell["repositoryId"]) + ".");
  planned.repository_root = root->second;
  const std::string& scenario = str(cell["scenarioId"]);
  planned.task = model::find_task(inputs.suite, str(cell["taskId"]));
  if (!preflight.assisted_arm.ready && scenario == "registry-assisted") {
    planned.assisted_unavailable = true;
    planned.recorded = planned.task ? model::recorded_task(cell, *planned.task) : cell;
    return planned;
  }
  planned.provider = model::find_provider(inputs.providers, str(cell["modelId"]), scenario);
  if (planned.provider == nullptr)
    throw Error("No provider CLI is configured for model " + str(cell["modelId"]) + " and scenario " + scenario + ".");
  if (planned.provider->contains("command"))  // an endpoint provider has none (Strata extension)
    planned.command_path = exec::resolve_command(str((*planned.provider)["command"]), planned.repository_root, path_variable);
  if (planned.task == nullptr) throw Error("Task " + str(cell["taskId"]) + " is not present in the task suite.");
  planned.recorded = model::recorded_task(cell, *planned.task);
  planned.request = model::compact_json(model::provider_request(planned.recorded, *planned.task));
  if (static_cast<double>(planned.request.size()) > (*planned.provider)["maxInputBytes"].get<double>())
    throw Error("Provider CLI input limit " + model::compact_json((*planned.provider)["maxInputBytes"]) +
                " bytes exceeded for " + str(cell["taskId"]) + ".");
  return planned;
}

}  // namespace

void check_plan_matches_suite(const Json& plan, const Json& suite) {
  if (plan["taskSuiteHash"] != suite["contentHash"])
    throw Error("Run plan taskSuiteHash does not match the supplied task suite.");
  if (sorted_ids(plan["models"], "id") != sorted_ids(suite["modelIds"]))
    throw Error("Run plan model ids do not match the task suite.");
  if (sorted_ids(plan["scenarios"], "id") != sorted_ids(suite["scenarioIds"]))
    throw Error("Run plan scenario ids do not match the task suite.");
  if (sorted_ids(plan["taskIds"]) != sorted_ids(suite["tasks"], "id"))
    throw Error("Run plan task ids do not match the task suite.");
}

RunPreflight prepare_run(const StudyInputs& inputs, const std::string& path_variable) {
  // Re-validate the inputs the CLI parsed (a library caller may pass unchecked values).
  model::check_semantics(model::ArtifactKind::task_suite, inputs.suite, true);
  model::check_semantics(model::ArtifactKind::provider_config, inputs.providers, true);
  model::check_semantics(model::ArtifactKind::repository_config, inputs.repositories, true);
  const std::vector<Json> selection = model::select_executions(inputs.suite, inputs.plan["sampling"]);
  check_plan_matches_suite(inputs.plan, inputs.suite);
  const auto roots = repository_roots(inputs.repositories, inputs.suite);
  RunPreflight preflight;
  preflight.assisted_arm = model::assess_assisted_arm(inputs.plan, inputs.suite, inputs.providers);
  preflight.executions.reserve(selection.size());
  for (const auto& cell : selection)
    preflight.executions.push_back(plan_execution(cell, inputs, preflight, roots, path_variable));
  preflight.selected = preflight.executions.size();
  for (const auto& [id, root] : roots) preflight.repository_roots.push_back(root);
  return preflight;
}

void restrict_to_shard(RunPreflight& preflight, const model::Shard& shard) {
  std::vector<PlannedExecution> kept;
  kept.reserve(preflight.executions.size() / shard.count + 1);
  for (std::size_t k = 0; k < preflight.executions.size(); ++k)
    if (shard.holds(k)) kept.push_back(std::move(preflight.executions[k]));
  preflight.executions = std::move(kept);
  preflight.shard = shard;
}

void require_pricing_for_cost_limit(const StudyInputs& inputs, const RunPreflight& preflight) {
  const Json& entries = inputs.providers["providers"];
  std::vector<std::string> unpriced;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Json& entry = entries[i];
    if (entry.contains("pricing")) continue;
    const bool used = std::any_of(preflight.executions.begin(), preflight.executions.end(),
                                  [&entry](const PlannedExecution& e) { return e.provider == &entry; });
    if (!used) continue;
    std::string scenarios;
    for (const auto& id : entry["scenarioIds"]) scenarios += (scenarios.empty() ? "" : ", ") + str(id);
    unpriced.push_back("providers[" + std::to_string(i) + "] (" + str(entry["modelId"]) + ": " + scenarios + ")");
  }
  if (unpriced.empty()) return;
  std::string list;
  for (const auto& name : unpriced) list += (list.empty() ? "" : "; ") + name;
  throw Error("--max-cost-usd needs pricing on every provider entry the plan uses; without pricing: " + list + ".");
}

}  // namespace strata::app
