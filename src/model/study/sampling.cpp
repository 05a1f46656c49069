#include "strata/model/study/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "strata/error.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::model {
namespace {

using KeyedCell = std::pair<std::string, Json>;


void sort_by_key(std::vector<KeyedCell>& cells) {
  std::stable_sort(cells.begin(), cells.end(), [](const KeyedCell& a, const KeyedCell& b) { return a.first < b.first; });
}

std::vector<std::string> strings(const Json& array) {
  std::vector<std::string> out;
  for (const auto& v : array) out.push_back(str(v));
  return out;
}

// Steps 1-3: every cell of the sampled scenarios, variants balanced per task, in key order.
std::vector<Json> ordered_matrix(const Json& suite, const std::vector<std::string>& scenarios) {
  const std::string& seed = str(suite["ordering"]["seed"]);
  const auto replicates = static_cast<std::size_t>(suite["replicatesPerTask"].get<double>());
  std::vector<KeyedCell> all;
  for (const auto& task : suite["tasks"]) {
    std::vector<KeyedCell> cells;
    for (const auto& scenario : scenarios)
      for (const auto& model : suite["modelIds"])
        for (std::size_t replicate = 0; replicate < replicates; ++replicate) {
          Json cell = {{"taskId", task["id"]},       {"repositoryId", task["repositoryId"]},
                       {"category", task["category"]}, {"scenarioId", scenario},
                       {"modelId", model},             {"replicate", static_cast<double>(replicate)}};
          std::string key = ordering_key(cell, seed);
          cells.emplace_back(std::move(key), std::move(cell));
        }
    sort_by_key(cells);
    for (std::size_t i = 0; i < cells.size(); ++i) {
      Json& cell = cells[i].second;
      cell["variantId"] = task["variants"][i % 2]["id"];
      all.emplace_back(ordering_key(cell, seed), std::move(cell));
    }
  }
  sort_by_key(all);
  std::vector<Json> ordered;
  ordered.reserve(all.size());
  for (auto& [key, cell] : all) ordered.push_back(std::move(cell));
  return ordered;
}

std::vector<Json> pairwise(const Json& suite, const std::vector<Json>& ordered, std::size_t size, std::size_t strata) {
  const std::string& seed = str(suite["ordering"]["seed"]);
  std::vector<std::pair<std::string, std::string>> tasks;  // (key, taskId)
  for (const auto& task : suite["tasks"]) {
    const Json only_id = {{"taskId", task["id"]}};
    tasks.emplace_back(ordering_key(only_id, seed), str(task["id"]));
  }
  std::stable_sort(tasks.begin(), tasks.end());
  std::set<std::string> chosen;
  for (std::size_t i = 0; i < size / strata && i < tasks.size(); ++i) chosen.insert(tasks[i].second);
  std::vector<Json> out;
  for (const auto& cell : ordered)
    if (out.size() < size && chosen.count(str(cell["taskId"])) && cell["replicate"].get<double>() == 0)
      out.push_back(cell);
  return out;
}

std::vector<Json> balanced(const Json& suite, const std::vector<Json>& ordered, std::size_t size) {
  const auto& tasks = suite["tasks"];
  std::vector<Json> out;
  for (std::size_t i = 0; i < size; ++i) {
    if (i >= tasks.size()) throw Error("Unable to select a balanced execution for task " + std::to_string(i) + ".");
    const Json& task_id = tasks[i]["id"];
    const Json& scenario = suite["scenarioIds"][(i / 2) % 3];
    const Json& model = suite["modelIds"][i % 2];
    auto it = std::find_if(ordered.begin(), ordered.end(), [&](const Json& cell) {
      return cell["taskId"] == task_id && cell["scenarioId"] == scenario && cell["modelId"] == model &&
             cell["replicate"].get<double>() == 0;
    });
    if (it == ordered.end()) throw Error("Unable to select a balanced execution for task " + str(task_id) + ".");
    out.push_back(*it);
  }
  return out;
}

}  // namespace

std::string ordering_key(const Json& object, const std::string& seed) {
  Json keyed = {{"seed", seed}};
  for (const auto& [name, value] : object.items()) keyed[name] = value;
  return sha256_hex(canonical_json(keyed));
}

std::vector<Json> full_matrix(const Json& suite) { return ordered_matrix(suite, strings(suite["scenarioIds"])); }

std::vector<Json> select_executions(const Json& suite, const Json& sampling) {
  const bool is_pairwise = sampling["strategy"] == "pairwise-task-strata";
  std::vector<std::string> scenarios = strings(suite["scenarioIds"]);
  if (is_pairwise) {
    scenarios = strings(sampling["scenarioIds"]);
    if (scenarios.size() != 2) throw Error("Pairwise sampling requires exactly two scenarios.");
  }
  const std::vector<Json> ordered = ordered_matrix(suite, scenarios);
  // Step 4: no sample size, or exactly the whole matrix, runs every cell in key order, whatever
  // the strategy (a balanced plan could otherwise never run more than one cell per task).
  if (!sampling.contains("sampleSize") || sampling["sampleSize"].get<double>() == static_cast<double>(ordered.size()))
    return ordered;
  const std::size_t strata = 2 * scenarios.size();
  const std::size_t max_size = suite["tasks"].size() * strata;
  const double requested = sampling["sampleSize"].get<double>();
  if (std::trunc(requested) != requested || requested < 1 || requested > static_cast<double>(max_size))
    throw Error("Sample size must be an integer between 1 and " + std::to_string(max_size) + ".");
  const auto size = static_cast<std::size_t>(requested);
  if (size % strata != 0)
    throw Error("Sample size must be divisible by the " + std::to_string(strata) + " model/scenario strata.");
  return is_pairwise ? pairwise(suite, ordered, size, strata) : balanced(suite, ordered, size);
}

}  // namespace strata::model
