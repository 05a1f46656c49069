// strata: the command-line entry point. Parses the command line, runs the chosen command,
// and maps errors to exit codes: 1 for usage errors, 2 for everything after parsing.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>

#include "command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Strata: sealed study artifacts, bounded provider runs, independent adjudication."};
  app.name("strata");
  app.set_version_flag("-V,--version", STRATA_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'strata <command> --help' for the options of one command.\n"
             "Exit status: 0 success, 1 usage error, 2 invalid input or failed check.");

  strata::cli::Action action;
  strata::cli::add_show_commands(app, action);
  strata::cli::add_run_command(app, action);
  strata::cli::add_adjudicate_command(app, action);
  strata::cli::add_usage_command(app, action);
  strata::cli::add_seal_command(app, action);
  strata::cli::add_verify_command(app, action);
  strata::cli::add_schema_command(app, action);

  const auto usage_error = [](const std::string& message) {
    std::cerr << "strata: " << message << "\n"
              << "Usage: strata <command> [options] <file>...  (run 'strata --help' for the commands)\n";
    return static_cast<int>(strata::ExitCode::usage);
  };
  if (argc > 1 && argv[1][0] != '-') {
    const auto known = app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == argv[1]; });
    if (known.empty()) return usage_error(std::string("unknown command '") + argv[1] + "'");
  }
  try {
    app.parse(argc, argv);
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
