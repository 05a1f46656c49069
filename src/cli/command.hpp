#pragma once
// Shared plumbing of the CLI: each command file registers a CLI11 subcommand and sets
// the action main() runs after parsing.
#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json.hpp"
#include "strata/store/ledger_source.hpp"

namespace strata::cli {

using Action = std::function<int()>;

void add_show_commands(CLI::App& app, Action& action);
void add_plan_command(CLI::App& app, Action& action);
void add_ledger_merge_command(CLI::App& ledger, Action& action);  // ledger_merge_command.cpp, under `ledger`
void add_seal_command(CLI::App& app, Action& action);
void add_verify_command(CLI::App& app, Action& action);
void add_schema_command(CLI::App& app, Action& action);
void add_run_command(CLI::App& app, Action& action);
void add_adjudicate_command(CLI::App& app, Action& action);
void add_export_command(CLI::App& app, Action& action);
void add_metrics_command(CLI::App& app, Action& action);
void add_report_command(CLI::App& app, Action& action);
void add_provider_command(CLI::App& app, Action& action);
void add_usage_command(CLI::App& app, Action& action);
void add_usage_log_command(CLI::App& usage, Action& action);     // usage_log_command.cpp
void add_usage_report_command(CLI::App& usage, Action& action);  // usage_report_command.cpp

void add_call_command(CLI::App& app, Action& action);
void add_trajectory_command(CLI::App& app, Action& action);
void add_view_command(CLI::App& app, Action& action);

// The name messages carry: "strata <command>", or the drop-in name the binary was
// invoked as (cm-openai-compatible-call, cm-log-event, cm-usage-report).
std::string program_name(const std::string& command);
void set_drop_in_name(const std::string& name);

// --text / --json flags; JSON is the default.
struct OutputFormat {
  bool text = false;
  bool json = false;
};
void add_format_flags(CLI::App& command, OutputFormat& format);

// JSON.stringify(payload, null, 2) + "\n" on stdout.
void print_json(const model::Json& payload);
// print_json(payload) with the value of `member` (an object member of `payload`, any value)
// replaced by the JSON document in the open file `fd` (named `path`), as written by
// store::write_sealed_ledger (pretty_json + "\n"), copied a piece at a time.
void print_json_with_file(const model::Json& payload, const std::string& member, int fd, const std::string& path);
// The lines joined by "\n" plus a final "\n" on stdout.
void print_lines(const std::vector<std::string>& lines);

// --jobs as requested, or lowered (with a note on stderr) to what the open-file limit allows.
int jobs_within_limits(int requested);

// An error from a file's content, located at the file ("plan.json: $.budget: ...").
Error at_file(const std::string& path, const Error& error);

// Reads and parses (verifies) an artifact file of a known kind.
model::Json load_artifact(model::ArtifactKind kind, const std::string& path);

// A verified ledger, read an observation at a time when it can be (store::LedgerSource); loaded
// whole otherwise (a pipe, an unusual member order), which also reports the exact problem.
std::unique_ptr<store::LedgerSource> open_ledger(const std::string& path);

// A JSON number as ECMAScript prints it.
std::string number_text(const model::Json& value);

}  // namespace strata::cli
