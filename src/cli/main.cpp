// strata: the command-line entry point. Parses the command line, runs the chosen command,
// and maps errors to exit codes: 1 for usage errors, 2 for everything after parsing.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <csignal>
#include <filesystem>
#include <string>
#include <vector>
#include <exception>
#include <iostream>

#include "command.hpp"

namespace {

// The reference tool names this binary answers to (installed as symlinks), and the
// strata command each one stands for.
std::vector<std::string> drop_in_command(const std::string& invoked_as) {
  if (invoked_as == "cm-openai-compatible-call") return {"call"};
  if (invoked_as == "cm-log-event") return {"usage", "log"};
  if (invoked_as == "cm-usage-report") return {"usage", "report"};
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) a write must fail with EFBIG and be reported like any
  // other write error, not kill the process halfway through a write (SIGXFSZ).
  std::signal(SIGXFSZ, SIG_IGN);
  const std::string invoked_as = std::filesystem::path(argv[0]).filename().string();
  const std::vector<std::string> drop_in = drop_in_command(invoked_as);
  std::vector<std::string> arguments(argv + 1, argv + argc);
  if (!drop_in.empty()) {
    strata::cli::set_drop_in_name(invoked_as);
    arguments.insert(arguments.begin(), drop_in.begin(), drop_in.end());
  }
  // The boundary commands keep the reference's argparse convention: usage errors exit 2.
  const bool boundary_command = !arguments.empty() && (arguments[0] == "call" || arguments[0] == "usage");
  CLI::App app{"Strata: sealed study artifacts, bounded provider runs, independent adjudication."};
  app.name("strata");
  app.set_version_flag("-V,--version", STRATA_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'strata <command> --help' for the options of one command.\n"
             "Exit status: 0 success, 1 usage error, 2 invalid input or failed check.");

  strata::cli::Action action;
  strata::cli::add_show_commands(app, action);
  strata::cli::add_plan_command(app, action);
  strata::cli::add_run_command(app, action);
  strata::cli::add_adjudicate_command(app, action);
  strata::cli::add_export_command(app, action);
  strata::cli::add_metrics_command(app, action);
  strata::cli::add_report_command(app, action);
  strata::cli::add_provider_command(app, action);
  strata::cli::add_usage_command(app, action);
  strata::cli::add_call_command(app, action);
  strata::cli::add_trajectory_command(app, action);
  strata::cli::add_view_command(app, action);
  strata::cli::add_seal_command(app, action);
  strata::cli::add_verify_command(app, action);
  strata::cli::add_schema_command(app, action);

  const auto usage_error = [&](const std::string& message) {
    std::cerr << (drop_in.empty() ? std::string("strata") : invoked_as) << ": " << message << "\n"
              << "Usage: strata <command> [options] <file>...  (run 'strata --help' for the commands)\n";
    return boundary_command ? 2 : static_cast<int>(strata::ExitCode::usage);
  };
  if (!arguments.empty() && arguments[0][0] != '-') {
    const auto known = app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == arguments[0]; });
    if (known.empty()) return usage_error("unknown command '" + arguments[0] + "'");
  }
  try {
    std::reverse(arguments.begin(), arguments.end());  // CLI11 takes the arguments last-first
    app.parse(arguments);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion&) {
    std::cout << "strata " << STRATA_VERSION << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    return usage_error(e.what());
  }

  try {
    return action ? action() : 0;
  } catch (const strata::Error& e) {
    std::cerr << "strata: " << e.describe() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "strata: " << e.what() << "\n";
    return static_cast<int>(strata::ExitCode::failure);
  }
}
