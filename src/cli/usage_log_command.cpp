// strata usage log (cm-log-event): placeholder until the event-log writer lands.
#include "command.hpp"

namespace strata::cli {

void add_usage_log_command(CLI::App& usage, Action& action) {
  auto* sub = usage.add_subcommand("log", "Append one event to the CM event log (cm-log-event)");
  sub->allow_extras();
  sub->callback([&action] { action = [] () -> int { throw Error("strata usage log is not available in this build yet"); }; });
}

}  // namespace strata::cli
