// The lifecycle section of the usage report (see the header).
#include "strata/app/cm/usage_report_lifecycle.hpp"

#include "strata/app/cm/usage_report.hpp"
#include "strata/model/cm/lifecycle_state.hpp"

namespace strata::app {

std::optional<RunLifecycleReport> run_lifecycle(const std::string& run_id, bool done, const std::vector<JsonlRow>& rows,
                                                bool unreadable_lines) {
  model::lifecycle::RunLifecycle state;
  for (const JsonlRow& row : rows) {
    const auto run = row.value.find("run_id");
    if (run != row.value.end() && run->is_string() && run->get_ref<const std::string&>() == run_id)
      state.read_row(row.value);
  }
  RunLifecycleReport report;
  report.run_id = run_id;
  report.done = done;
  report.unverifiable = unreadable_lines || state.resources_unverifiable || state.test_run_unverifiable;
  if (!report.unverifiable) {
    for (const auto& [id, resource] : state.resources.all())
      if (resource.phase != "released") report.open_resources.push_back({id, resource.kind, resource.phase});
    report.test_run_active = state.test_run.active;
    report.open_cases.assign(state.test_run.open_cases.begin(), state.test_run.open_cases.end());
  }
  if (!report.unverifiable && report.open_resources.empty() && !report.test_run_active && report.open_cases.empty())
    return std::nullopt;
  return report;
}

std::string lifecycle_json(const std::vector<RunLifecycleReport>& runs) {
  model::Json array = model::Json::array();
  for (const RunLifecycleReport& run : runs) {
    model::Json entry = model::Json::object();
    entry["run_id"] = run.run_id;
    entry["status"] = run.done ? "done" : "running";
    entry["state"] = run.unverifiable ? "unverifiable" : "open";
    model::Json resources = model::Json::array();
    for (const OpenResource& resource : run.open_resources)
      resources.push_back({{"resource_id", resource.resource_id}, {"resource_kind", resource.resource_kind}, {"phase", resource.phase}});
    entry["open_resources"] = std::move(resources);
    entry["test_run_active"] = run.test_run_active;
    entry["open_cases"] = run.open_cases;
    array.push_back(std::move(entry));
  }
  return array.dump(-1, ' ', false, model::Json::error_handler_t::replace);
}

std::vector<std::string> lifecycle_text(const std::vector<RunLifecycleReport>& runs) {
  std::vector<std::string> lines;
  for (const RunLifecycleReport& run : runs) {
    std::string line = "- lifecycle: " + run.run_id + " (" + (run.done ? "done" : "running") + ")";
    if (run.unverifiable) {
      lines.push_back(line + " | state cannot be verified");
      continue;
    }
    if (!run.open_resources.empty()) {
      line += " | open resources: ";
      for (std::size_t i = 0; i < run.open_resources.size(); ++i) {
        const OpenResource& r = run.open_resources[i];
        line += (i == 0 ? "" : ", ") + r.resource_id + " (" + r.resource_kind + (r.phase == "acquired" ? "" : ", " + r.phase) + ")";
      }
    }
    if (run.test_run_active || !run.open_cases.empty()) {
      line += " | incomplete test_run:";
      if (run.test_run_active) line += " active invocation";
      if (!run.open_cases.empty()) {
        line += std::string(run.test_run_active ? ";" : "") + " open cases: ";
        for (std::size_t i = 0; i < run.open_cases.size(); ++i) line += (i == 0 ? "" : ", ") + run.open_cases[i];
      }
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace strata::app
