// strata export <ledger> [--format csv|jsonl] [-o FILE] [--run-id ID]...: one row per observation.
#include <cstdio>
#include <memory>

#include "command.hpp"
#include "strata/app/results/ledger_export.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/ledger_source.hpp"

namespace strata::cli {
namespace {

using model::Json;

struct ExportOptions {
  std::string ledger, format = "csv", output;
  std::vector<std::string> run_ids;
  OutputFormat summary_format;
};

void write_stdout(std::string_view piece) {
  if (std::fwrite(piece.data(), 1, piece.size(), stdout) != piece.size())
    throw Error("cannot write the export to standard output");
}

int export_ledger(const ExportOptions& options) {
  const app::ExportFormat format = options.format == "jsonl" ? app::ExportFormat::jsonl : app::ExportFormat::csv;
  const std::unique_ptr<store::LedgerSource> ledger = open_ledger(options.ledger);
  const std::vector<std::size_t> selection = app::select_observations(*ledger, options.run_ids, options.ledger);
  if (options.output.empty()) {
    app::export_observations(*ledger, selection, format, write_stdout);
    if (std::fflush(stdout) != 0) throw Error("cannot write the export to standard output");
    return 0;
  }
  std::size_t rows = 0;
  // Written aside and renamed into place: a failure leaves no partial file (and an earlier
  // export at that path as it was).
  store::write_file_atomically(options.output, [&](const store::PieceWriter& write) {
    rows = app::export_observations(*ledger, selection, format, write);
  });
  if (options.summary_format.text) {
    print_lines({"Exported: " + std::to_string(rows) + " observation(s)", "Format: " + options.format, "Output: " + options.output});
  } else {
    print_json(Json{{"ok", true}, {"rows", static_cast<double>(rows)}, {"format", options.format}, {"output", options.output}});
  }
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<ExportOptions>();
  auto* sub = app.add_subcommand("export", "Write a ledger's observations as CSV or JSON Lines, one row per observation");
  sub->add_option("ledger", options->ledger, "The observation ledger (verified before anything is written)")->required();
  sub->add_option("--format", options->format, "csv (RFC 4180, CRLF) or jsonl (one JSON object a line); default csv")
      ->check(CLI::IsMember({"csv", "jsonl"}));
  sub->add_option("-o,--output", options->output, "Write to this file (atomically) instead of standard output");
  sub->add_option("--run-id", options->run_ids, "Only observations of this run (repeat for several)");
  add_format_flags(*sub, options->summary_format);
  sub->footer(
      "Columns (docs/METRICS.md): run, round, task identity, execution status and error code, tokens by kind,\n"
      "cost, duration, context, evidence, outcomes, the adjudication and the adjudicated result, then (CSV) one\n"
      "column \"measurements.<name>\" per measurement name in the selection, or (JSON Lines) a \"measurements\"\n"
      "object. Absent values are empty (CSV) or null (JSON Lines). With -o a summary goes to standard output\n"
      "(--text for lines); without it, the rows do. Exit 0 on success, 2 on an invalid ledger or unknown run id.");
  sub->callback([options, &action] { action = [options] { return export_ledger(*options); }; });
}

}  // namespace strata::cli
