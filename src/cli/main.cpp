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
  app.set_version_flag("-V,--version", std::string("strata ") + STRATA_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'strata <command> --help' for the options of one command.\n"
             "Exit status: 0 success, 1 usage error, 2 invalid input or failed check.");

  strata::cli::Action action;
  strata::cli::add_show_commands(app, action);
  strata::cli::add_seal_command(app, action);
  strata::cli::add_verify_command(app, action);
  strata::cli::add_schema_command(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "strata: " << e.what() << "\n" << "Run 'strata --help' for usage.\n";
    return static_cast<int>(strata::ExitCode::usage);
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
