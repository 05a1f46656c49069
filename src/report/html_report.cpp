// The report as one self-contained HTML document: inline style, inline SVG, no script, and a
// Content-Security-Policy that forbids loading anything, so it opens from disk, offline, and
// nothing in it can reach the network.
#include <regex>

#include "strata/report/report_parts.hpp"
#include "svg_canvas.hpp"

namespace strata::report {
namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222; margin: 2rem auto; max-width: 1180px; padding: 0 1rem; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; }
h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: .6rem 0 1.2rem; font-size: .85rem; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.hash { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .78rem; word-break: break-all; }
figure { margin: 1.2rem 0 2rem; }
figcaption { font-size: .9rem; color: #444; max-width: 900px; margin: .4rem 0; }
svg { max-width: 100%; height: auto; }
.note { font-size: .9rem; color: #444; max-width: 900px; }
@media print {
  body { margin: 0; max-width: none; font-size: 10pt; }
  figure, table { break-inside: avoid; page-break-inside: avoid; }
  h2 { break-after: avoid; page-break-after: avoid; }
}
)";

bool is_hash(const std::string& text) {
  static const std::regex hashes("[0-9a-f]{64}( [0-9a-f]{64})*");
  return std::regex_match(text, hashes);
}

std::string table_html(const Table& table) {
  std::string out = "<table>\n<caption>" + xml_escape(table.caption) + "</caption>\n<thead><tr>";
  for (const auto& column : table.columns) out += "<th scope=\"col\">" + xml_escape(column) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string cell = xml_escape(row[i]);
      if (i == 0) out += "<th scope=\"row\">" + cell + "</th>";
      else out += (is_hash(row[i]) ? "<td class=\"hash\">" : "<td>") + cell + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

}  // namespace

std::string html_report(const model::Json& data) {
  const ReportTables tables = report_tables(data);
  const std::vector<Plot> plots = report_plots(data);
  const std::string title = report_title(data);
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"strata " +
      xml_escape(data["header"]["strataVersion"].get<std::string>()) + "\">\n<title>" + xml_escape(title) + "</title>\n<style>" + kStyle +
      "</style>\n</head>\n<body>\n<main>\n<h1>" + xml_escape(title) + "</h1>\n";
  const Findings findings = report_findings(data);
  out += "<section id=\"findings\">\n<h2>Findings</h2>\n<ul>\n";
  for (const auto& finding : findings.items) {
    const auto attribute = [&](const char* name, const char* member) {
      return std::string(" ") + name + "=\"" + xml_escape(finding.value(member, std::string())) + "\"";
    };
    out += "<li class=\"finding\"" + attribute("data-model", "modelId") + attribute("data-baseline", "baselineScenarioId") +
           attribute("data-current", "currentScenarioId") + attribute("data-measure", "measure") +
           attribute("data-verdict", "verdict") + ">" + xml_escape(finding["sentence"].get<std::string>()) + "</li>\n";
  }
  out += "</ul>\n<p class=\"note\">" + xml_escape(findings.adjustment) + "</p>\n</section>\n";
  out += "<p class=\"note\">" + decimal(data["metrics"]["observations"], 0) + " observations of " +
         std::to_string(data["metrics"]["arms"].size()) + " arms. Every number in this report is computed from the sealed ledger "
         "named in the provenance table.</p>\n";
  out += "<h2 id=\"provenance\">Provenance</h2>\n";
  for (const auto& table : tables.provenance) out += table_html(table);
  out += "<h2 id=\"arms\">Arms</h2>\n";
  for (const auto& table : tables.arms) out += table_html(table);
  out += "<h2 id=\"plots\">Plots</h2>\n";
  for (const auto& plot : plots) {
    out += "<figure id=\"figure-" + plot.id + "\">\n<h3>" + xml_escape(plot.title) + "</h3>\n" + plot.svg + "<figcaption>" +
           xml_escape(plot.alt) + "</figcaption>\n" + table_html(plot.numbers) + "</figure>\n";
  }
  out += "<h2 id=\"paired\">Paired comparison</h2>\n";
  for (const auto& table : tables.comparisons) out += table_html(table);
  out += "<h2 id=\"method\">Method</h2>\n";
  for (const auto& note : method_notes(data)) out += "<p class=\"note\">" + xml_escape(note) + "</p>\n";
  return out + "</main>\n</body>\n</html>\n";
}

}  // namespace strata::report
