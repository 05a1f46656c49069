// strata usage report (cm-usage-report): placeholder until the report lands.
#include "command.hpp"

namespace strata::cli {

void add_usage_report_command(CLI::App& usage, Action& action) {
  auto* sub = usage.add_subcommand("report", "Summarise model usage from the global event log (cm-usage-report)");
  sub->allow_extras();
  sub->callback([&action] { action = [] () -> int { throw Error("strata usage report is not available in this build yet"); }; });
}

}  // namespace strata::cli
