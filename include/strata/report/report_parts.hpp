#pragma once
// The parts a report is made of, shared by its HTML and Markdown forms (`strata report`,
// docs/METRICS.md "Report"): tables of numbers and plots (inline SVG written here, each with a
// title, a text alternative and the table of the numbers it draws). Pure: report data in
// (app::report_data), text out.
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"

namespace strata::report {

struct Table {
  std::string caption;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

struct Plot {
  std::string id;     // also the Markdown form's SVG file suffix
  std::string title;  // the figure's heading and the SVG's <title>
  std::string alt;    // the text alternative: the SVG's <desc> and the figure's caption
  std::string svg;    // a standalone <svg> element (xmlns set, fonts inline)
  Table numbers;      // the numbers behind the plot
};

// The tables, by section: provenance (artifacts, runs, adjudicators); the arms (and any arm
// without observations); the paired comparison and, when requested, the targets of a comparison
// of rounds or runs.
struct ReportTables {
  std::vector<Table> provenance, arms, comparisons;
};
ReportTables report_tables(const model::Json& data);

// Success rate per arm (Wilson intervals), tokens per execution (box plots), cost against
// success, the forest plot of the paired effects, and the task x arm heat map.
std::vector<Plot> report_plots(const model::Json& data);

// The report's title line (suite title or ledger path).
std::string report_title(const model::Json& data);

// The findings block the report opens with: one sentence per model, comparison and measure
// (strata metrics' "findings"), and the line saying how p-values were adjusted.
struct Findings {
  std::vector<model::Json> items;  // the findings, each with its "sentence"
  std::string adjustment;          // "p-values adjusted by Holm–Bonferroni over 24 tests ..."
};
Findings report_findings(const model::Json& data);

// The notes on method printed under the tables (one paragraph each).
std::vector<std::string> method_notes(const model::Json& data);

// Numbers as the report prints them: at most `decimals` decimals, trailing zeros dropped;
// "–" for null.
std::string decimal(const model::Json& value, int decimals);
std::string decimal(double value, int decimals);
std::string percent(double fraction, int decimals = 1);  // 0.253 -> "25.3%"
// A [low, high] interval: of fractions as "4.6% – 69.9%", or of values (times `scale`) as
// "-1.5 to 2"; "–" for null.
std::string percent_interval(const model::Json& interval);
std::string interval_text(const model::Json& interval, int decimals, double scale = 1);

// The whole report: one self-contained HTML document (no script, no external resource).
std::string html_report(const model::Json& data);

// The Markdown form: the document, and the SVG files it links (name = svg_stem + "-" + plot id
// + ".svg", written beside it).
struct MarkdownReport {
  std::string markdown;
  std::vector<std::pair<std::string, std::string>> svg_files;  // (file name, content)
};
MarkdownReport markdown_report(const model::Json& data, const std::string& svg_stem);

}  // namespace strata::report
