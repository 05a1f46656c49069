// Cross-member rules of spec §1 that a shape cannot express. First failure wins.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::model {
namespace {


// The first element whose `key` member (or the element itself) repeats, or nullptr.
const Json* first_duplicate(const Json& array, const char* key = nullptr) {
  std::set<std::string> seen;
  for (const auto& element : array)
    if (!seen.insert(str(key ? element[key] : element)).second) return &element;
  return nullptr;
}

void require_unique(const Json& array, const char* key, const std::string& message) {
  if (first_duplicate(array, key)) throw Error(message);
}

void check_provider_config(const Json& config, bool on_parse) {
  if (!on_parse) return;  // upstream runs the mapping check on parse only
  std::set<std::string> seen;
  for (const auto& provider : config["providers"])
    for (const auto& scenario : provider["scenarioIds"]) {
      const std::string mapping = str(provider["modelId"]) + ":" + str(scenario);
      if (!seen.insert(mapping).second) throw Error("Duplicate study provider mapping for " + mapping + ".");
    }
}

void check_repository_config(const Json& config) {
  require_unique(config["repositories"], "id", "Study repository config contains duplicate repository ids.");
}

void check_task(const Json& suite, const Json& task) {
  const std::string& id = str(task["id"]);
  if (task["budget"]["maxTokens"].get<double>() > suite["maxTokensPerTask"].get<double>() ||
      task["budget"]["maxRuntimeMs"].get<double>() > suite["maxRuntimeMsPerTask"].get<double>())
    throw Error("Task " + id + " exceeds the suite budget.");
  if (task["variantGroup"] != task["id"]) throw Error("Task " + id + " must own its variant group.");
  require_unique(task["acceptanceChecks"], "id", "Duplicate acceptance check for " + id + " id.");
  require_unique(task["evidenceRequirements"], "id", "Duplicate evidence requirement for " + id + " id.");
  require_unique(task["variants"], "id", "Duplicate variant for " + id + " id.");
  if (task["variants"][0]["label"] == task["variants"][1]["label"])
    throw Error("Task " + id + " variants must be distinguishable.");
}

void check_task_suite(const Json& suite) {
  require_unique(suite["population"], nullptr, "Duplicate population id.");
  require_unique(suite["modelIds"], nullptr, "Duplicate model id.");
  require_unique(suite["scenarioIds"], nullptr, "Duplicate scenario id.");
  require_unique(suite["tasks"], "id", "Duplicate task id.");
  const auto& tasks = suite["tasks"];
  const std::size_t expected = suite["population"].size() * 4;
  if (tasks.size() != expected)
    throw Error("The controlled task suite must contain exactly " + std::to_string(expected) + " tasks; received " +
                std::to_string(tasks.size()) + ".");
  for (const auto& repository : suite["population"]) {
    std::set<std::string> categories;
    std::size_t count = 0;
    for (const auto& task : tasks)
      if (task["repositoryId"] == repository) {
        ++count;
        categories.insert(str(task["category"]));
      }
    if (count != 4) throw Error("Repository " + str(repository) + " must contain exactly four tasks.");
    if (categories.size() != 4)
      throw Error("Repository " + str(repository) +
                  " must cover discovery, architecture, documentation, and implementation.");
  }
  for (const auto& task : tasks) check_task(suite, task);
}

void check_run_plan(const Json& plan) {
  require_unique(plan["models"], "id", "Duplicate model id.");
  require_unique(plan["scenarios"], "id", "Duplicate scenario id.");
  require_unique(plan["taskIds"], nullptr, "Duplicate task id.");
  if (plan["models"][0]["role"] == plan["models"][1]["role"])
    throw Error("The run plan requires one low-cost and one reference model.");
  // Three distinct ids out of three possible names: all three scenarios are present.
  const auto& sampling = plan["sampling"];
  std::size_t sampled_scenarios = 3;
  if (sampling["strategy"] == "pairwise-task-strata") {
    const auto& ids = sampling["scenarioIds"];
    if (ids.size() != 2 || ids[0] == ids[1]) throw Error("Pairwise sampling requires exactly two scenarios.");
    sampled_scenarios = 2;
  }
  const double strata = 2.0 * static_cast<double>(sampled_scenarios);
  const double size = sampling["sampleSize"].get<double>();
  if (size > static_cast<double>(plan["taskIds"].size()) * strata || std::fmod(size, strata) != 0)
    throw Error("Sampling must be a positive balanced subset of the task strata.");
}

void check_observation(const Json& observation) {
  const auto& task = observation["task"];
  if (task["modelId"] != observation["model"]["id"])
    throw Error("Observation task model " + str(task["modelId"]) + " does not match model " +
                str(observation["model"]["id"]) + ".");
  if (task["scenarioId"] != observation["scenario"]["id"])
    throw Error("Observation task scenario " + str(task["scenarioId"]) + " does not match scenario " +
                str(observation["scenario"]["id"]) + ".");
}

void check_ledger(const Json& ledger) {
  if (const Json* duplicate = first_duplicate(ledger["observations"], "contentHash"))
    throw Error("Duplicate observation id.", "$.observations (contentHash " + str((*duplicate)["contentHash"]) + ")");
}

std::set<std::string> ids_of(const Json& array) {
  std::set<std::string> ids;
  for (const auto& element : array) ids.insert(str(element["id"]));
  return ids;
}

void check_protocol(const Json& protocol) {
  for (const char* list : {"repositories", "models", "scenarios", "metrics", "outcomes"})
    if (const Json* duplicate = first_duplicate(protocol[list], "id"))
      throw Error("Duplicate protocol " + std::string(list) + " id " + str((*duplicate)["id"]) + ".");
  Json all_checks = Json::array();
  for (const auto& outcome : protocol["outcomes"])
    for (const auto& check : outcome["checks"]) all_checks.push_back(check);
  if (const Json* duplicate = first_duplicate(all_checks, "id"))
    throw Error("Duplicate protocol outcome check id " + str((*duplicate)["id"]) + ".");
  const auto models = ids_of(protocol["models"]);
  for (const auto& scenario : protocol["scenarios"]) {
    for (const auto& model : scenario["modelIds"])
      if (!models.count(str(model)))
        throw Error("Protocol scenario " + str(scenario["id"]) + " references unknown model " + str(model) + ".");
    const bool registry_source = scenario["source"] == "doc-bridge-registry-agent";
    const bool configured = scenario.value("registryAgent", "none") == "configured";
    if (registry_source != configured)
      throw Error("Protocol scenario " + str(scenario["id"]) +
                  " must configure a registry agent exactly when its source is doc-bridge-registry-agent.");
  }
  const auto metrics = ids_of(protocol["metrics"]);
  for (const auto& target : protocol["stopping"]["targets"])
    if (!metrics.count(str(target["metricId"])))
      throw Error("Protocol stopping target references unknown metric " + str(target["metricId"]) + ".");
}

// One entry per check and per repository: two would leave which one applies to chance.
void check_verifier_config(const Json& config) {
  std::set<std::string> seen;
  for (const auto& check : config.value("checks", Json::array()))
    if (!seen.insert(str(check["taskId"]) + "/" + str(check["checkId"])).second)
      throw Error("Duplicate verifier-config check " + str(check["taskId"]) + "/" + str(check["checkId"]) + ".");
  seen.clear();
  for (const auto& repository : config.value("repositories", Json::array()))
    if (!seen.insert(str(repository["repositoryId"])).second)
      throw Error("Duplicate verifier-config repository " + str(repository["repositoryId"]) + ".");
}

}  // namespace

void check_semantics(ArtifactKind kind, const Json& artifact, bool on_parse) {
  switch (kind) {
    case ArtifactKind::provider_config: check_provider_config(artifact, on_parse); break;
    case ArtifactKind::repository_config: check_repository_config(artifact); break;
    case ArtifactKind::task_suite: check_task_suite(artifact); break;
    case ArtifactKind::run_plan: check_run_plan(artifact); break;
    case ArtifactKind::observation:
      if (!on_parse) check_observation(artifact);
      break;
    case ArtifactKind::ledger: check_ledger(artifact); break;
    case ArtifactKind::protocol: check_protocol(artifact); break;
    case ArtifactKind::verifier_config: check_verifier_config(artifact); break;
  }
}

}  // namespace strata::model
