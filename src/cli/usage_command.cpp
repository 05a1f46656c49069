// strata usage log|report: the CM event log writer and the usage report (usage-boundary
// spec §2 and §3). The subcommands live in usage_log_command.cpp and usage_report_command.cpp.
#include "command.hpp"

namespace strata::cli {

void add_usage_command(CLI::App& app, Action& action) {
  auto* usage = app.add_subcommand("usage", "The CM model-usage event log and its report");
  usage->require_subcommand(1);
  add_usage_log_command(*usage, action);
  add_usage_report_command(*usage, action);
}

}  // namespace strata::cli
