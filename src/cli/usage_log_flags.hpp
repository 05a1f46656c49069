#pragma once
// The usage-log options of `strata run` and `strata adjudicate` (docs/ENDPOINTS.md, "Usage
// log"): where their endpoint calls are claimed and recorded in the CM event log.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "strata/app/endpoints/endpoint_usage_log.hpp"
#include "strata/model/json/json.hpp"

namespace strata::cli {

struct UsageLogFlags {
  std::string project_root, specs_dir, run_id;
};

// --usage-log-project-root, --usage-log-specs-dir, --usage-log-run-id (group "Usage log").
void add_usage_log_flags(CLI::App& command, UsageLogFlags& flags);

// The footer paragraph that explains them.
extern const char* const kUsageLogHelp;

// nullptr when no usage-log option is given; throws strata::Error for a bad combination or
// value (before anything runs).
std::unique_ptr<app::EndpointUsageLog> open_usage_log(const UsageLogFlags& flags);

// {"log", "claims", "usageEvents", "unrecordedUsageEvents"} and the same as text lines.
model::Json usage_log_summary(const app::EndpointUsageLog& log);
std::vector<std::string> usage_log_lines(const app::EndpointUsageLog& log);

// `status`, or 3 (with a line on stderr) when a finished command left usage events unrecorded.
int usage_log_status(const app::EndpointUsageLog* log, int status);

}  // namespace strata::cli
