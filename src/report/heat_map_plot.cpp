// The task x arm heat map: each cell the share of a task's decided executions in an arm that
// succeeded (viridis, printed in the cell too), grey where the arm never ran the task or every
// execution is pending. Beyond kMaxHeatMapTasks tasks the rows are the task categories.
#include <algorithm>

#include "plot_layout.hpp"
#include "plots.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::report {
namespace {

using model::Json;
using model::str;

std::string cell_text(const Json& cell) {
  if (cell.is_null()) return "not run";
  if (cell["successRate"].is_null()) return "pending (" + decimal(cell["pending"], 0) + ")";
  return decimal(cell["success"], 0) + " of " + decimal(cell["observations"].get<double>() - cell["pending"].get<double>(), 0) +
         " (" + percent(cell["successRate"].get<double>(), 0) + ")";
}

}  // namespace

Plot heat_map_plot(const Json& heat_map) {
  const bool by_task = str(heat_map["rowsAre"]) == "task";
  const Json& arms = heat_map["arms"];
  const Json& rows = heat_map["rows"];
  Plot plot{"outcome-heat-map", by_task ? "Outcomes per task and arm" : "Outcomes per task category and arm", "", "", {}};
  plot.numbers.caption = plot.title + " (successes of decided executions)";
  plot.numbers.columns.push_back(by_task ? "Task" : "Category");
  std::vector<std::string> arm_labels;
  for (const auto& arm : arms) {
    arm_labels.push_back(arm_label(arm));
    plot.numbers.columns.push_back(arm_labels.back());
  }
  plot.alt = "Share of decided executions that succeeded, for each " + std::string(by_task ? "task" : "task category") +
             " (rows) and arm (columns), from dark purple (0%) to yellow (100%); grey cells were not run or are pending." +
             (by_task ? "" : " The study has " + decimal(heat_map["tasks"], 0) + " tasks, too many for a row each.");
  std::vector<std::string> row_labels;
  for (const auto& row : rows) {
    row_labels.push_back(str(row["id"]));
    std::vector<std::string> cells{row_labels.back()};
    for (const auto& cell : row["cells"]) cells.push_back(cell_text(cell));
    plot.numbers.rows.push_back(std::move(cells));
  }
  plot.alt += " The table below the figure lists every cell.";

  constexpr double kCell = 72, kRowHeight = 22, kRight = 24;
  const double left = label_width(row_labels, 80, 300);
  std::size_t longest_arm = 0;
  for (const auto& label : arm_labels) longest_arm = std::max(longest_arm, label.size());
  const double top = std::min(24.0 + static_cast<double>(longest_arm) * 3.7, 240.0);  // room for the slanted column labels
  const double grid_bottom = top + kRowHeight * rows.size();
  // The last slanted label reaches about cos(35°) x its length past its column's middle.
  const double width = std::max(left + kCell * (arms.size() - 0.5) + 0.82 * 6.2 * longest_arm + kRight, left + 420);
  SvgCanvas canvas(width, grid_bottom + 56, plot.id, plot.title, plot.alt);
  for (std::size_t column = 0; column < arms.size(); ++column) {
    const double x = left + kCell * (column + 0.5);
    canvas.text(x, top - 8, arm_labels[column], "start",
                "font-size=\"11\" transform=\"rotate(-35 " + std::to_string(static_cast<int>(x)) + " " +
                    std::to_string(static_cast<int>(top - 8)) + ")\"");
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double y = top + kRowHeight * r;
    canvas.text(left - 8, y + kRowHeight / 2 + 4, row_labels[r], "end", "font-size=\"11\"");
    const Json& cells = rows[r]["cells"];
    for (std::size_t column = 0; column < cells.size(); ++column) {
      const Json& cell = cells[column];
      const double x = left + kCell * column;
      const bool decided = !cell.is_null() && !cell["successRate"].is_null();
      const double rate = decided ? cell["successRate"].get<double>() : 0;
      canvas.begin_group(row_labels[r] + ", " + arm_labels[column] + ": " + cell_text(cell));
      canvas.rect(x + 1, y + 1, kCell - 2, kRowHeight - 2, decided ? viridis(rate) : "#e0e0e0");
      canvas.text(x + kCell / 2, y + kRowHeight / 2 + 4, decided ? percent(rate, 0) : cell.is_null() ? "–" : "pending", "middle",
                  std::string("font-size=\"10\" fill=\"") + (decided && dark_fill(rate) ? "#fff" : "#111") + "\"");
      canvas.end_group();
    }
  }
  // The colour scale, left to right.
  constexpr int kSteps = 20;
  const double legend_x = left, legend_y = grid_bottom + 16, legend_width = 200;
  for (int i = 0; i < kSteps; ++i)
    canvas.rect(legend_x + legend_width * i / kSteps, legend_y, legend_width / kSteps + 0.5, 12, viridis((i + 0.5) / kSteps));
  canvas.text(legend_x, legend_y + 26, "0%", "start", "font-size=\"11\"");
  canvas.text(legend_x + legend_width, legend_y + 26, "100%", "end", "font-size=\"11\"");
  canvas.text(legend_x + legend_width + 10, legend_y + 10, "succeeded, of decided executions", "start", "font-size=\"11\"");
  plot.svg = canvas.finish();
  return plot;
}

}  // namespace strata::report
