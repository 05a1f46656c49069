// One row per arm: the success rate with its 95% Wilson interval, and the distribution of
// tokens per execution as a box plot.
#include <algorithm>

#include "plot_layout.hpp"
#include "plots.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::report {
namespace {

using model::Json;

constexpr double kRowHeight = 28, kTop = 16, kPlotWidth = 520, kRight = 28, kAxisSpace = 48;

std::vector<std::string> labels_of(const Json& arms) {
  std::vector<std::string> labels;
  for (const auto& arm : arms) labels.push_back(arm_label(arm));
  return labels;
}

double decided_of(const Json& arm) { return arm["executions"].get<double>() - arm["result"].value("pending", 0.0); }

}  // namespace

Plot success_plot(const Json& arms) {
  Plot plot{"success-rate", "Success rate per arm", "", "", {}};
  plot.numbers = {"Success rate per arm", {"Arm", "Executions", "Decided", "Successes", "Success rate", "95% interval (Wilson)"}, {}};
  plot.alt = "Success rate of each arm with its 95% Wilson interval, from 0 to 100%.";
  for (const auto& arm : arms) {
    const Json& rate = arm["successRate"];
    const Json& interval = arm["successInterval"];
    const std::string successes = decimal(arm["result"].value("success", Json(0.0)), 0);
    const std::string range = percent_interval(interval);
    plot.numbers.rows.push_back({arm_label(arm), decimal(arm["executions"], 0), decimal(decided_of(arm), 0), successes,
                                 rate.is_null() ? "– (all pending)" : percent(rate.get<double>()), range});
    plot.alt += " " + arm_label(arm) + ": " +
                (rate.is_null() ? std::string("all pending.")
                                : percent(rate.get<double>()) + " (" + successes + " of " + decimal(decided_of(arm), 0) +
                                      ", interval " + range + ").");
  }
  const double left = label_width(labels_of(arms));
  const double bottom = kTop + kRowHeight * arms.size();
  SvgCanvas canvas(left + kPlotWidth + kRight, bottom + kAxisSpace, plot.id, plot.title, plot.alt);
  const LinearScale x = rate_axis(canvas, left, kPlotWidth, kTop, bottom);
  const auto colours = scenario_colours(arms);
  for (std::size_t i = 0; i < arms.size(); ++i) {
    const Json& arm = arms[i];
    const double y = kTop + kRowHeight * (i + 0.5);
    canvas.text(left - 8, y + 4, arm_label(arm), "end");
    const Json& rate = arm["successRate"];
    if (rate.is_null()) {
      canvas.text(x(0) + 6, y + 4, "all pending", "start", "font-style=\"italic\"");
      continue;
    }
    const Json& interval = arm["successInterval"];
    const std::string& colour = category_colour(colours.at(model::str(arm["scenarioId"])));
    canvas.begin_group(arm_label(arm) + ": " + percent(rate.get<double>()) + ", 95% interval " + percent_interval(interval));
    const double low = x(interval[0].get<double>()), high = x(interval[1].get<double>());
    canvas.line(low, y, high, y, colour, 2);
    canvas.line(low, y - 6, low, y + 6, colour, 2);
    canvas.line(high, y - 6, high, y + 6, colour, 2);
    canvas.circle(x(rate.get<double>()), y, 5, colour, "stroke=\"#222\" stroke-width=\"1\"");
    canvas.end_group();
  }
  plot.svg = canvas.finish();
  return plot;
}

Plot tokens_plot(const Json& arms) {
  Plot plot{"tokens", "Tokens per execution per arm", "", "", {}};
  plot.numbers = {"Tokens per execution (input + output)", {"Arm", "Executions reporting", "Min", "P25", "Median", "P75", "Max"}, {}};
  double low = 0, high = 0;
  bool any = false;
  for (const auto& arm : arms) {
    const Json& tokens = arm["totalTokens"];
    if (tokens["max"].is_null()) continue;
    low = any ? std::min(low, tokens["min"].get<double>()) : tokens["min"].get<double>();
    high = any ? std::max(high, tokens["max"].get<double>()) : tokens["max"].get<double>();
    any = true;
  }
  std::string alt = "Distribution of tokens per execution (input plus output) of each arm: the box spans the 25th to "
                    "75th percentile, the bar inside is the median, the whiskers reach the smallest and largest value.";
  for (const auto& arm : arms) {
    const Json& tokens = arm["totalTokens"];
    plot.numbers.rows.push_back({arm_label(arm), decimal(tokens["reported"], 0), decimal(tokens["min"], 0), decimal(tokens["p25"], 1),
                                 decimal(tokens["median"], 1), decimal(tokens["p75"], 1), decimal(tokens["max"], 0)});
    alt += " " + arm_label(arm) + ": " +
           (tokens["median"].is_null() ? std::string("no tokens reported.")
                                       : "median " + decimal(tokens["median"], 1) + " (" + decimal(tokens["p25"], 1) + " to " +
                                             decimal(tokens["p75"], 1) + ").");
  }
  plot.alt = alt;
  if (!any) {
    plot.svg = empty_plot(plot.id, plot.title, "No execution reported its tokens: nothing to plot.");
    return plot;
  }
  const double left = label_width(labels_of(arms));
  // The axis spans the values (with a margin), not zero to the largest: the arms' differences
  // are what the reader compares.
  const double margin = std::max((high - low) * 0.05, 1.0);
  const LinearScale x{std::max(low - margin, 0.0), high + margin, left, left + kPlotWidth};
  const std::vector<double> ticks = nice_ticks(x.d0, x.d1, 7);
  SvgCanvas canvas(left + kPlotWidth + kRight, kTop + kRowHeight * arms.size() + kAxisSpace, plot.id, plot.title, alt);
  x_axis(canvas, x, ticks, kTop - 6, kTop + kRowHeight * arms.size(), "Tokens per execution (input + output)",
         [](double tick) { return decimal(tick, 0); });
  const auto colours = scenario_colours(arms);
  for (std::size_t i = 0; i < arms.size(); ++i) {
    const Json& arm = arms[i];
    const Json& tokens = arm["totalTokens"];
    const double y = kTop + kRowHeight * (i + 0.5);
    canvas.text(left - 8, y + 4, arm_label(arm), "end");
    if (tokens["median"].is_null()) {
      canvas.text(x(0) + 6, y + 4, "no tokens reported", "start", "font-style=\"italic\"");
      continue;
    }
    const auto at = [&](const char* name) { return x(tokens[name].get<double>()); };
    const std::string& colour = category_colour(colours.at(model::str(arm["scenarioId"])));
    canvas.begin_group(arm_label(arm) + ": median " + decimal(tokens["median"], 1) + ", P25 " + decimal(tokens["p25"], 1) +
                       ", P75 " + decimal(tokens["p75"], 1) + ", min " + decimal(tokens["min"], 0) + ", max " +
                       decimal(tokens["max"], 0));
    canvas.line(at("min"), y, at("max"), y, "#444", 1);
    canvas.line(at("min"), y - 5, at("min"), y + 5, "#444", 1);
    canvas.line(at("max"), y - 5, at("max"), y + 5, "#444", 1);
    canvas.rect(at("p25"), y - 8, std::max(at("p75") - at("p25"), 1.5), 16, colour, "fill-opacity=\"0.75\" stroke=\"#222\"");
    canvas.line(at("median"), y - 9, at("median"), y + 9, "#000", 2.5);
    canvas.end_group();
  }
  plot.svg = canvas.finish();
  return plot;
}

}  // namespace strata::report
