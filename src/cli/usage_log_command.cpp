// strata usage log: the CM event-log writer (`cm-log-event`, usage-boundary spec §2.2).
// The flags are parsed here rather than by CLI11 so that every usage error exits 2, as
// the reference's argparse does (CLI11 errors would exit 1 in main()).
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "strata/store/event_log.hpp"

namespace strata::cli {
namespace {

constexpr const char* kFlagsHelp =
    "Flags (as cm-log-event; a value may also be given as --flag=value):\n"
    "  --workflow ID      required, identifier\n"
    "  --event ID         required, identifier (run_start, run_done, model_call, model_usage, ...)\n"
    "  --phase ID         identifier\n"
    "  --runtime ID       required, identifier (codex, claude, unknown, ...)\n"
    "  --project NAME     display name (default: basename of --project-root, or unscoped)\n"
    "  --project-root DIR existing directory, recorded as project_path\n"
    "  --specs-dir DIR    existing directory: enables the authoritative project log\n"
    "  --run-id ID        run id (default: the active run, or a new one)\n"
    "  --at TIMESTAMP     ISO-8601 with a UTC offset (default: now)\n"
    "  --detail TEXT      required, one line, at most 500 characters\n"
    "  --data-json JSON   object of at most 8192 bytes (default {})\n"
    "Log home: $CM_WORKFLOW_LOG_HOME or ~/.cm-workflow/logs.\n"
    "Prints one JSON line. Exit status: 0 written or deduplicated, 1 I/O failure,\n"
    "2 usage, validation or state conflict.";

constexpr int kUsageExit = 2;

// An argument-parser error as argparse prints it: the usage line, then "<prog>: error: ...".
// The usage line comes first so that a parser error never reads like a writer refusal
// ("cm-log-event: <message>"); usage-lifecycle spec §4 relies on that for --status-only.
int usage_error(const std::string& message) {
  const std::string prog = program_name("usage log");
  std::cerr << "usage: " << prog
            << " [-h] --workflow WORKFLOW --event EVENT [--phase PHASE] --runtime RUNTIME [--project PROJECT]"
               " [--project-root PROJECT_ROOT] [--specs-dir SPECS_DIR] [--run-id RUN_ID] [--at AT] --detail DETAIL"
               " [--data-json DATA_JSON]\n"
            << prog << ": error: " << message << "\n";
  return kUsageExit;
}

int run_usage_log(const std::vector<std::string>& argv) {
  store::LogEventArgs args;
  std::optional<std::string> workflow, event, runtime, detail;
  const std::vector<std::pair<std::string, std::optional<std::string>*>> flags = {
      {"--workflow", &workflow},    {"--event", &event},         {"--phase", &args.phase},
      {"--runtime", &runtime},      {"--project", &args.project}, {"--project-root", &args.project_root},
      {"--specs-dir", &args.specs_dir}, {"--run-id", &args.run_id}, {"--at", &args.at},
      {"--detail", &detail},        {"--data-json", &args.data_json}};
  const auto find_flag = [&flags](const std::string& name) -> std::optional<std::string>* {
    for (const auto& [flag, target] : flags)
      if (flag == name) return target;
    return nullptr;
  };

  std::vector<std::string> unknown;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << "Usage: strata usage log --workflow ID --event ID --runtime ID --detail TEXT [flags]\n"
                << kFlagsHelp << "\n";
      return 0;
    }
    const std::size_t equals = arg.find('=');
    const std::string name = arg.compare(0, 2, "--") == 0 ? arg.substr(0, equals) : std::string();
    auto* target = name.empty() ? nullptr : find_flag(name);
    if (target == nullptr) {
      unknown.push_back(arg);
      continue;
    }
    if (equals != std::string::npos) {
      *target = arg.substr(equals + 1);
    } else if (i + 1 < argv.size() && !(find_flag(argv[i + 1].substr(0, argv[i + 1].find('='))) || argv[i + 1] == "--help")) {
      *target = argv[++i];
    } else {
      return usage_error("argument " + name + ": expected one argument");
    }
  }
  std::string missing;
  for (const auto& [flag, value] : {std::pair{"--workflow", &workflow}, std::pair{"--event", &event},
                                    std::pair{"--runtime", &runtime}, std::pair{"--detail", &detail}})
    if (!*value) missing += (missing.empty() ? "" : ", ") + std::string(flag);
  if (!missing.empty()) return usage_error("the following arguments are required: " + missing);
  if (!unknown.empty()) {
    std::string list;
    for (const auto& arg : unknown) list += (list.empty() ? "" : " ") + arg;
    return usage_error("unrecognized arguments: " + list);
  }
  args.workflow = *workflow;
  args.event = *event;
  args.runtime = *runtime;
  args.detail = *detail;

  const store::LogEventOutcome outcome = store::log_event(args);
  if (!outcome.stdout_line.empty()) std::cout << outcome.stdout_line << "\n" << std::flush;
  for (const auto& line : outcome.stderr_lines) std::cerr << program_name("usage log") << ": " << line << "\n";
  return outcome.exit_code;
}

}  // namespace

void add_usage_log_command(CLI::App& usage, Action& action) {
  auto* sub = usage.add_subcommand("log", "Append one event to the CM event log (cm-log-event)");
  // Every argument is handed to run_usage_log unparsed (see the comment at the top).
  sub->prefix_command();
  sub->footer(kFlagsHelp);
  sub->callback([sub, &action] {
    action = [argv = sub->remaining()]() -> int { return run_usage_log(argv); };
  });
}

}  // namespace strata::cli
