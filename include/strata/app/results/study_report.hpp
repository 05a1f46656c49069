#pragma once
// `strata report`: everything the HTML or Markdown report shows, gathered in one read of the
// ledger (docs/METRICS.md, "Report"): the metrics of `strata metrics` (arms, paired comparison,
// an optional comparison of rounds or runs), the provenance header, and the task x arm outcomes.
// Rendering is report/; this file decides what is reported and refuses what cannot be.
#include <optional>
#include <string>

#include "strata/app/results/study_metrics.hpp"
#include "strata/model/json/json.hpp"
#include "strata/store/ledger_source.hpp"

namespace strata::app {

struct ReportRequest {
  MetricsRequest metrics;
  std::optional<model::Json> suite;  // the verified task suite (--suite)
  std::string suite_path;
  std::optional<model::Json> protocol;  // the verified protocol (--protocol); metrics.targets come from it
  std::string protocol_path;
  bool allow_missing_arms = false;
  std::string strata_version;
};

// At most this many tasks get a row of their own in the heat map; beyond, rows are categories.
inline constexpr std::size_t kMaxHeatMapTasks = 60;

// {"header", "metrics" (metrics_report), "missingArms", "heatMap"}. Throws strata::Error for
// anything metrics_report refuses, and when every adjudication selected is pending, when an arm
// (each observed model x each observed scenario) has no observation (unless
// allow_missing_arms), or when the suite is not the one a run was started with or lacks a task.
model::Json report_data(const store::LedgerSource& ledger, const ReportRequest& request);

}  // namespace strata::app
