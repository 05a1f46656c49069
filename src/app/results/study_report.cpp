#include "strata/app/results/study_report.hpp"

#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "strata/error.hpp"
#include "strata/model/adjudication/adjudicated_result.hpp"
#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/store/run_inputs_record.hpp"

namespace strata::app {
namespace {

using model::Json;
using model::str;
using Arm = std::pair<std::string, std::string>;  // (modelId, scenarioId)

struct CellCounts {
  double observations = 0, success = 0, pending = 0;
};

// What the single read of the ledger gathers beside the metrics.
struct Gathered {
  std::map<std::string, std::set<std::string>> plan_hashes;  // run id -> plan hashes seen
  std::map<std::tuple<std::string, std::string, std::string>, double> adjudicators;  // (actor, method, config hash)
  std::map<std::string, std::string> task_category;
  std::map<std::string, std::map<Arm, CellCounts>> by_task, by_category;
  std::set<std::string> models, scenarios;
  std::set<Arm> arms;
  double decided = 0;

  void add(const Json& o) {
    const Json& task = o["task"];
    const Arm arm{str(task["modelId"]), str(task["scenarioId"])};
    const std::string& task_id = str(task["taskId"]);
    plan_hashes[str(o["runId"])].insert(str(o["planHash"]));
    if (o.contains("adjudication")) {
      const Json& adjudication = o["adjudication"];
      const std::string config = adjudication.contains("configurationHash") ? str(adjudication["configurationHash"]) : "";
      adjudicators[{str(adjudication["actor"]), str(adjudication["method"]), config}] += 1;
    }
    task_category.emplace(task_id, str(task["category"]));
    const std::string result = model::adjudicated_result(o);
    for (auto* cells : {&by_task[task_id][arm], &by_category[str(task["category"])][arm]}) {
      cells->observations += 1;
      cells->success += result == "success" ? 1 : 0;
      cells->pending += result == "pending" ? 1 : 0;
    }
    decided += result == "pending" ? 0 : 1;
    models.insert(arm.first);
    scenarios.insert(arm.second);
    arms.insert(arm);
  }
};

Json string_or_null(const std::optional<Json>& record, const char* member) {
  return record && record->contains(member) ? (*record)[member] : Json(nullptr);
}

// The provenance of each run: its plan hash(es) from the observations, and what the run was
// started with from <ledger>.inputs when Strata wrote one (a reference ledger has none).
Json runs_header(const std::string& ledger_path, const Gathered& gathered) {
  Json runs = Json::array();
  for (const auto& [run_id, plans] : gathered.plan_hashes) {
    const std::optional<Json> inputs = store::read_run_inputs(ledger_path, run_id);
    Json plan_hashes = Json::array();
    for (const auto& hash : plans) plan_hashes.push_back(hash);
    runs.push_back({{"runId", run_id},
                    {"planHashes", plan_hashes},
                    {"taskSuiteHash", string_or_null(inputs, "taskSuiteHash")},
                    {"providerConfigHash", string_or_null(inputs, "providerConfigHash")},
                    {"repositoryConfigHash", string_or_null(inputs, "repositoryConfigHash")}});
  }
  return runs;
}

Json artifact_header(const std::optional<Json>& artifact, const std::string& path) {
  if (!artifact) return nullptr;
  return {{"path", path}, {"title", artifact->value("title", "")}, {"hash", str((*artifact)["contentHash"])}};
}

// The suite given must be the one every run recorded (when a run recorded one), and must hold
// every task observed: a report must not describe one suite under another's name.
void check_suite(const ReportRequest& request, const Json& runs, const Gathered& gathered) {
  if (!request.suite) return;
  const std::string& hash = str((*request.suite)["contentHash"]);
  for (const auto& run : runs) {
    if (!run["taskSuiteHash"].is_null() && str(run["taskSuiteHash"]) != hash)
      throw Error("Task suite " + request.suite_path + " (" + hash.substr(0, 12) + "…) is not the suite run " +
                  str(run["runId"]) + " was started with (" + str(run["taskSuiteHash"]).substr(0, 12) + "…).");
  }
  std::set<std::string> suite_tasks;
  for (const auto& task : (*request.suite)["tasks"]) suite_tasks.insert(str(task["id"]));
  for (const auto& [task_id, cells] : gathered.by_task)
    if (suite_tasks.count(task_id) == 0)
      throw Error("Task suite " + request.suite_path + " has no task " + task_id + ", which the ledger observed.");
}

// The arms a complete study has: a plan runs every model it names in every scenario it names
// (study-v1 §3.1), so each observed model x observed scenario. (Not the suite's: a plan may
// choose some of the suite's scenarios.)
std::vector<Arm> expected_arms(const Gathered& gathered) {
  std::vector<Arm> arms;
  for (const auto& model_id : gathered.models)
    for (const auto& scenario_id : gathered.scenarios) arms.emplace_back(model_id, scenario_id);
  return arms;
}

Json heat_map(const Gathered& gathered) {
  const bool by_task = gathered.by_task.size() <= kMaxHeatMapTasks;
  const auto& rows = by_task ? gathered.by_task : gathered.by_category;
  Json arms = Json::array();
  for (const auto& arm : gathered.arms) arms.push_back({{"modelId", arm.first}, {"scenarioId", arm.second}});
  Json out_rows = Json::array();
  for (const auto& [row_id, cells] : rows) {
    Json row_cells = Json::array();
    for (const auto& arm : gathered.arms) {
      const auto cell = cells.find(arm);
      if (cell == cells.end()) {
        row_cells.push_back(nullptr);
        continue;
      }
      const CellCounts& counts = cell->second;
      const double decided = counts.observations - counts.pending;
      row_cells.push_back({{"observations", counts.observations},
                           {"success", counts.success},
                           {"pending", counts.pending},
                           {"successRate", decided > 0 ? Json(counts.success / decided) : Json(nullptr)}});
    }
    Json row = {{"id", row_id}, {"cells", std::move(row_cells)}};
    if (by_task) row["category"] = gathered.task_category.at(row_id);
    out_rows.push_back(std::move(row));
  }
  return {{"rowsAre", by_task ? "task" : "category"},
          {"tasks", static_cast<double>(gathered.by_task.size())},
          {"arms", std::move(arms)},
          {"rows", std::move(out_rows)}};
}

}  // namespace

Json report_data(const store::LedgerSource& ledger, const ReportRequest& request) {
  Gathered gathered;
  Json metrics = metrics_report(ledger, request.metrics, [&gathered](const Json& observation) { gathered.add(observation); });
  const std::string& path = request.metrics.ledger_path;
  if (gathered.decided == 0)
    throw Error("Every adjudication of the " + model::ecmascript_number(metrics["observations"].get<double>()) +
                " observations selected in " + path +
                " is pending: there is no result to report yet (run strata adjudicate first).");

  const Json runs = runs_header(path, gathered);
  check_suite(request, runs, gathered);
  Json missing = Json::array();
  std::string missing_text;
  for (const auto& arm : expected_arms(gathered)) {
    if (gathered.arms.count(arm)) continue;
    missing.push_back({{"modelId", arm.first}, {"scenarioId", arm.second}});
    missing_text += (missing_text.empty() ? "" : ", ") + arm.first + " / " + arm.second;
  }
  if (!missing.empty() && !request.allow_missing_arms)
    throw Error("Ledger " + path + " has no observations for arm" + (missing.size() > 1 ? "s " : " ") + missing_text +
                ": finish the run (strata run resumes it), choose runs with --run-id, or report without " +
                (missing.size() > 1 ? "them" : "it") + " with --allow-missing-arms.");

  Json adjudicators = Json::array();
  for (const auto& [key, count] : gathered.adjudicators) {
    const auto& [actor, method, config] = key;
    adjudicators.push_back({{"actor", actor},
                            {"method", method},
                            {"configurationHash", config.empty() ? Json(nullptr) : Json(config)},
                            {"observations", count}});
  }
  Json header = {{"ledger", path},
                 {"ledgerHash", ledger.content_hash()},
                 {"ledgerVersion", ledger.ledger_version()},
                 {"strataVersion", request.strata_version},
                 {"runs", runs},
                 {"suite", artifact_header(request.suite, request.suite_path)},
                 {"protocol", artifact_header(request.protocol, request.protocol_path)},
                 {"adjudicators", std::move(adjudicators)}};
  return {{"header", std::move(header)},
          {"metrics", std::move(metrics)},
          {"missingArms", std::move(missing)},
          {"heatMap", heat_map(gathered)}};
}

}  // namespace strata::app
