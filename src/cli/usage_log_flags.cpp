#include "usage_log_flags.hpp"

#include <cstdio>

namespace strata::cli {

const char* const kUsageLogHelp =
    "Usage log (docs/ENDPOINTS.md): with --usage-log-project-root and --usage-log-specs-dir or --usage-log-run-id,\n"
    "every attempt of an endpoint provider or adjudicator writes a model_call claim to the CM event log before its\n"
    "request and a model_usage event after it, each attempt with a call id of its own (log home:\n"
    "$CM_WORKFLOW_LOG_HOME or ~/.cm-workflow/logs; no key, prompt or answer is logged). A claim that cannot be\n"
    "written stops the command before that request is sent (exit 2); a usage event that cannot be written is\n"
    "reported on stderr, the outcome is kept, and the exit status is 3. Without these options nothing is logged.\n";

void add_usage_log_flags(CLI::App& command, UsageLogFlags& flags) {
  command.add_option("--usage-log-project-root", flags.project_root,
                     "The project directory recorded with each event (turns the usage log on)")
      ->group("Usage log");
  command.add_option("--usage-log-specs-dir", flags.specs_dir,
                     "The specs directory holding the authoritative project log")
      ->group("Usage log");
  command.add_option("--usage-log-run-id", flags.run_id,
                     "The CM run id the events belong to (required without --usage-log-specs-dir)")
      ->group("Usage log");
}

std::unique_ptr<app::EndpointUsageLog> open_usage_log(const UsageLogFlags& flags) {
  auto settings = app::usage_log_settings(flags.project_root, flags.specs_dir, flags.run_id);
  if (!settings) return nullptr;
  return std::make_unique<app::EndpointUsageLog>(std::move(*settings));
}

model::Json usage_log_summary(const app::EndpointUsageLog& log) {
  const auto& counts = log.counts();
  return model::Json{{"log", log.log_description()},
                     {"claims", counts.claims},
                     {"usageEvents", counts.usage_events},
                     {"unrecordedUsageEvents", counts.unrecorded}};
}

std::vector<std::string> usage_log_lines(const app::EndpointUsageLog& log) {
  const auto& counts = log.counts();
  const auto count = [](double n) { return std::to_string(static_cast<long long>(n)); };
  return {"Usage log: " + log.log_description(),
          "Usage log events: " + count(counts.claims) + " claims, " + count(counts.usage_events) + " usage events, " +
              count(counts.unrecorded) + " usage events not recorded"};
}

int usage_log_status(const app::EndpointUsageLog* log, int status) {
  if (log == nullptr || log->counts().unrecorded == 0) return status;
  std::fprintf(stderr,
               "strata: usage log: %.0f usage event(s) could not be recorded in %s; their claims stay unresolved "
               "(the outcomes are kept; do not repeat those calls to repair the log)\n",
               log->counts().unrecorded, log->log_description().c_str());
  return status == 0 ? 3 : status;
}

}  // namespace strata::cli
