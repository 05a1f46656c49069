// The report as Markdown for a pull request: the same tables, each plot an SVG file beside the
// document, linked with its text alternative.
#include "strata/report/report_parts.hpp"

namespace strata::report {
namespace {

// A table cell: pipes escaped, line breaks flattened.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string table_markdown(const Table& table) {
  std::string out = "**" + cell(table.caption) + "**\n\n|";
  for (const auto& column : table.columns) out += " " + cell(column) + " |";
  out += "\n|";
  for (std::size_t i = 0; i < table.columns.size(); ++i) out += " --- |";
  out += "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (const auto& value : row) out += " " + cell(value) + " |";
    out += "\n";
  }
  return out + "\n";
}

}  // namespace

MarkdownReport markdown_report(const model::Json& data, const std::string& svg_stem) {
  MarkdownReport report;
  std::string& out = report.markdown;
  out = "# " + report_title(data) + "\n\n";
  const ReportTables tables = report_tables(data);
  const Findings findings = report_findings(data);
  out += "## Findings\n\n";
  for (const auto& finding : findings.items) out += "- " + finding["sentence"].get<std::string>() + "\n";
  out += "\n" + findings.adjustment + "\n\n";
  out += "## Provenance\n\n";
  for (const auto& table : tables.provenance) out += table_markdown(table);
  out += "## Arms\n\n";
  for (const auto& table : tables.arms) out += table_markdown(table);
  out += "## Plots\n\n";
  for (const auto& plot : report_plots(data)) {
    const std::string file = svg_stem + "-" + plot.id + ".svg";
    out += "### " + plot.title + "\n\n![" + cell(plot.title) + "](" + file + ")\n\n" + plot.alt + "\n\n" + table_markdown(plot.numbers);
    report.svg_files.emplace_back(file, plot.svg);
  }
  out += "## Paired comparison\n\n";
  for (const auto& table : tables.comparisons) out += table_markdown(table);
  out += "## Method\n\n";
  for (const auto& note : method_notes(data)) out += note + "\n\n";
  return report;
}

}  // namespace strata::report
