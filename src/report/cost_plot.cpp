// Cost against success: each arm a numbered point at its mean cost per priced execution and its
// success rate (with the Wilson interval), the numbers keyed in a legend beside the plot, so
// labels never overlap the points.
#include <algorithm>
#include <optional>
#include <vector>

#include "plot_layout.hpp"
#include "plots.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::report {

using model::Json;

Plot cost_plot(const Json& arms) {
  Plot plot{"cost-success", "Cost against success per arm", "", "", {}};
  plot.numbers = {"Cost against success per arm",
                  {"#", "Arm", "Priced executions", "Mean cost per execution (USD)", "Total cost (USD)", "Success rate", "95% interval"},
                  {}};
  plot.alt = "Each arm's mean cost per priced execution (USD, horizontal) against its success rate (vertical, with the "
             "95% Wilson interval).";
  double most = 0;
  std::size_t priced = 0;
  std::vector<std::optional<double>> means;  // per arm: mean cost per priced execution
  for (std::size_t i = 0; i < arms.size(); ++i) {
    const Json& arm = arms[i];
    const Json& cost = arm["costUsd"];
    const Json& rate = arm["successRate"];
    const Json& interval = arm["successInterval"];
    const bool has_cost = !cost.is_null();
    const double mean = has_cost ? cost["total"].get<double>() / cost["reported"].get<double>() : 0;
    means.push_back(has_cost ? std::optional<double>(mean) : std::nullopt);
    if (has_cost) most = std::max(most, mean), ++priced;
    plot.numbers.rows.push_back(
        {std::to_string(i + 1), arm_label(arm), has_cost ? decimal(cost["reported"], 0) : "0", has_cost ? decimal(mean, 6) : "not priced",
         has_cost ? decimal(cost["total"], 6) : "not priced", rate.is_null() ? "– (all pending)" : percent(rate.get<double>()),
         percent_interval(interval)});
    plot.alt += " " + arm_label(arm) + ": " + (has_cost ? "$" + decimal(mean, 6) + " per execution" : std::string("not priced")) +
                ", " + (rate.is_null() ? std::string("all pending") : percent(rate.get<double>()) + " success") + ".";
  }
  if (priced == 0) {
    plot.svg = empty_plot(plot.id, plot.title, "No execution reported a cost (measurements.agentCostUsd): nothing to plot.");
    return plot;
  }
  constexpr double kLeft = 64, kTop = 16, kWidth = 440, kHeight = 300, kGap = 36;
  std::vector<std::string> legend;
  for (std::size_t i = 0; i < arms.size(); ++i) legend.push_back(std::to_string(i + 1) + "  " + arm_label(arms[i]));
  const double legend_width = label_width(legend, 120, 360);
  const std::vector<double> x_ticks = nice_ticks(0, most, 4);
  const LinearScale x{0, std::max(most, x_ticks.back()), kLeft, kLeft + kWidth};
  const LinearScale y{0, 1, kTop + kHeight, kTop};
  SvgCanvas canvas(kLeft + kWidth + kGap + legend_width, kTop + kHeight + 48, plot.id, plot.title, plot.alt);
  x_axis(canvas, x, x_ticks, kTop, kTop + kHeight, "Mean cost per priced execution (USD)",
         [](double tick) { return "$" + decimal(tick, 6); });
  for (const double tick : nice_ticks(0, 1, 5)) {
    canvas.line(kLeft, y(tick), kLeft + kWidth, y(tick), "#d9d9d9", 1);
    canvas.text(kLeft - 6, y(tick) + 4, percent(tick, 0), "end", "font-size=\"11\"");
  }
  canvas.line(kLeft, kTop, kLeft, kTop + kHeight, "#555", 1);
  canvas.text(14, kTop + kHeight / 2, "Success rate", "middle",
              "transform=\"rotate(-90 14 " + std::to_string(static_cast<int>(kTop + kHeight / 2)) + ")\"");
  const auto colours = scenario_colours(arms);
  for (std::size_t i = 0; i < arms.size(); ++i) {
    const Json& arm = arms[i];
    const std::string& colour = category_colour(colours.at(model::str(arm["scenarioId"])));
    const double legend_y = kTop + 8 + 18 * static_cast<double>(i);
    canvas.circle(kLeft + kWidth + kGap, legend_y - 4, 5, colour);
    canvas.text(kLeft + kWidth + kGap + 10, legend_y, legend[i]);
    if (!means[i] || arm["successRate"].is_null()) continue;
    const double px = x(*means[i]);
    const double py = y(arm["successRate"].get<double>());
    const Json& interval = arm["successInterval"];
    canvas.begin_group(plot.numbers.rows[i][1] + ": " + plot.numbers.rows[i][3] + " USD per execution, " + plot.numbers.rows[i][5] +
                       " success");
    canvas.line(px, y(interval[0].get<double>()), px, y(interval[1].get<double>()), colour, 1.5);
    canvas.circle(px, py, 9, colour, "stroke=\"#222\" stroke-width=\"1\"");
    canvas.text(px, py + 4, std::to_string(i + 1), "middle", "font-size=\"10\" font-weight=\"bold\" fill=\"#fff\"");
    canvas.end_group();
  }
  plot.svg = canvas.finish();
  return plot;
}

}  // namespace strata::report
