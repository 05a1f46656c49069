// strata report <ledger> -o FILE [--format html|md] [--suite S] [--protocol P] [--run-id ID]...
// [--baseline-round R1 --current-round R2 | --baseline-run-id A --current-run-id B] [--allow-missing-arms]
#include <filesystem>
#include <memory>

#include "command.hpp"
#include "selection_flags.hpp"
#include "strata/app/results/study_report.hpp"
#include "strata/error.hpp"
#include "strata/report/report_parts.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/ledger_source.hpp"

namespace strata::cli {
namespace {

using model::Json;

struct StudyReportOptions {
  std::string ledger, output, format = "html", suite, protocol;
  SelectionFlags selection;
  bool allow_missing_arms = false;
  OutputFormat print;
};

// Everything is computed before the first byte is written, and each file is written atomically,
// so a refused report leaves no file behind and a failed write leaves the old one.
std::vector<std::string> write_report(const StudyReportOptions& options, const Json& data) {
  if (options.format == "html") {
    store::write_file_atomically(options.output, report::html_report(data));
    return {options.output};
  }
  const std::filesystem::path output(options.output);
  const report::MarkdownReport markdown = report::markdown_report(data, output.stem().string());
  std::vector<std::string> written;
  for (const auto& [name, svg] : markdown.svg_files) {
    written.push_back((output.parent_path() / name).string());
    store::write_file_atomically(written.back(), svg);
  }
  store::write_file_atomically(options.output, markdown.markdown);
  written.insert(written.begin(), options.output);
  return written;
}

int report_command(const StudyReportOptions& options) {
  app::ReportRequest request;
  request.metrics = metrics_request(options.ledger, options.selection);
  if (!options.suite.empty()) {
    request.suite = load_artifact(model::ArtifactKind::task_suite, options.suite);
    request.suite_path = options.suite;
  }
  if (!options.protocol.empty()) {
    request.protocol = load_artifact(model::ArtifactKind::protocol, options.protocol);
    request.protocol_path = options.protocol;
    request.metrics.targets = (*request.protocol)["stopping"]["targets"];
  }
  request.allow_missing_arms = options.allow_missing_arms;
  request.strata_version = STRATA_VERSION;
  const std::filesystem::path directory = std::filesystem::path(options.output).parent_path();
  if (!directory.empty() && !std::filesystem::is_directory(directory))
    throw Error("the directory of the report does not exist", options.output);

  const std::unique_ptr<store::LedgerSource> ledger = open_ledger(options.ledger);
  const Json data = app::report_data(*ledger, request);
  const std::vector<std::string> files = write_report(options, data);
  const double observations = data["metrics"]["observations"].get<double>();
  if (options.print.text) {
    print_lines({"Report: " + options.output + " (" + number_text(observations) + " observations, " +
                 std::to_string(data["metrics"]["arms"].size()) + " arms)"});
  } else {
    print_json(Json{{"ok", true},
                    {"report", {{"path", options.output}, {"format", options.format}, {"files", files},
                                {"observations", observations}, {"arms", data["metrics"]["arms"].size()}}}});
  }
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<StudyReportOptions>();
  auto* sub = app.add_subcommand("report", "A study's results as one self-contained HTML page (or Markdown with SVG files)");
  sub->add_option("ledger", options->ledger, "The observation ledger (verified first)")->required();
  sub->add_option("-o,--output", options->output, "The report file to write (report.html, or report.md with --format md)")->required();
  sub->add_option("--format", options->format, "html (default) or md: Markdown, its plots as SVG files beside it")
      ->check(CLI::IsMember({"html", "md"}));
  sub->add_option("--suite", options->suite, "The task suite: its title and hash in the header (checked against the runs' record and tasks)");
  sub->add_option("--protocol", options->protocol, "Study protocol: its hash in the header, its stopping.targets for a comparison");
  add_selection_flags(*sub, options->selection);
  sub->add_flag("--allow-missing-arms", options->allow_missing_arms, "Report even when an arm has no observation (listed as such)");
  add_format_flags(*sub, options->print);
  sub->footer(
      "The report holds the provenance (ledger, plan, suite, provider, repository and adjudicator hashes), the arms\n"
      "table, the paired comparison, and five plots, each with its numbers in a table: success rate per arm\n"
      "(95% Wilson intervals), tokens per execution, cost against success, the paired effects per model, and\n"
      "outcomes per task and arm. It uses no script, font or network resource. The numbers are those of\n"
      "strata metrics (docs/METRICS.md, \"Report\").\n"
      "Exit 0; 2 when the report cannot be made (nothing is written): an unknown run or round, mixed rounds,\n"
      "every adjudication pending, an arm without observations, a target Strata does not compute.");
  sub->callback([options, &action] { action = [options] { return report_command(*options); }; });
}

}  // namespace strata::cli
