// One row per arm verified by `strata run --verify`: the rate at which its agents claimed success
// (a hollow marker) beside the rate at which every check passed under Strata's verifier (a filled
// one), each with its 95% Wilson interval, so an arm whose claims outrun its results shows as a
// gap (docs/METRICS.md "Verified outcomes").
#include "plot_layout.hpp"
#include "plots.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::report {
namespace {

using model::Json;

// "75% (3 of 4, 30.1% – 95.4%)", or why there is no rate.
std::string claims_rate_cell(const Json& count, const Json& total, const Json& rate, const Json& interval, const char* none) {
  if (rate.is_null()) return none;
  return percent(rate.get<double>()) + " (" + decimal(count, 0) + " of " + decimal(total, 0) + ", " + percent_interval(interval) + ")";
}

// A rate with its interval at height y: filled or hollow.
void claims_marker(SvgCanvas& canvas, const LinearScale& x, double y, const Json& rate, const Json& interval, const std::string& colour,
            bool filled, const std::string& tooltip) {
  if (rate.is_null()) return;
  canvas.begin_group(tooltip);
  const double low = x(interval[0].get<double>()), high = x(interval[1].get<double>());
  canvas.line(low, y, high, y, colour, 2);
  canvas.line(low, y - 4, low, y + 4, colour, 2);
  canvas.line(high, y - 4, high, y + 4, colour, 2);
  canvas.circle(x(rate.get<double>()), y, 5, filled ? colour : "#fff", "stroke=\"" + colour + "\" stroke-width=\"2\"");
  canvas.end_group();
}

}  // namespace

Plot claims_plot(const Json& arms) {
  constexpr double kRowHeight = 36, kTop = 16, kPlotWidth = 520, kRight = 28, kAxisSpace = 64, kOffset = 6;
  Plot plot{"claims", "Claimed against verified success per arm", "", "", {}};
  plot.numbers = {"Claimed against verified success per arm",
                  {"Arm", "Claimed success (95% interval)", "Verified: every check passed (95% interval)", "Claims true (95% interval)",
                   "Not verified"},
                  {}};
  plot.alt = "For each arm, the rate at which its agents claimed every acceptance check passed (hollow marker) and the rate at "
             "which every check passed under Strata's verifier (filled marker), each with its 95% Wilson interval, from 0 to 100%.";
  std::vector<std::string> labels;
  for (const auto& arm : arms) {
    const Json& v = arm["verified"];
    const std::string claimed = claims_rate_cell(v["claimedPassed"], v["claimed"], v["claimedRate"], v["claimedInterval"], "– (no claim)");
    const std::string verified =
        claims_rate_cell(v["verifiedPassed"], v["verified"], v["verifiedRate"], v["verifiedInterval"], "– (none verified)");
    const std::string claims_true =
        claims_rate_cell(v["agreement"]["confirmed"], v["claimsVerified"], v["claimsTrueRate"], v["claimsTrueInterval"], "– (no verified claim)");
    plot.numbers.rows.push_back({arm_label(arm), claimed, verified, claims_true, decimal(v["notVerified"], 0)});
    plot.alt += " " + arm_label(arm) + ": claimed " + claimed + ", verified " + verified + ".";
    labels.push_back(arm_label(arm));
  }
  const double left = label_width(labels);
  const double bottom = kTop + kRowHeight * arms.size();
  SvgCanvas canvas(left + kPlotWidth + kRight, bottom + kAxisSpace, plot.id, plot.title, plot.alt);
  const LinearScale x = rate_axis(canvas, left, kPlotWidth, kTop, bottom);
  const auto colours = scenario_colours(arms);
  for (std::size_t i = 0; i < arms.size(); ++i) {
    const Json& arm = arms[i];
    const Json& v = arm["verified"];
    const double y = kTop + kRowHeight * (i + 0.5);
    canvas.text(left - 8, y + 4, arm_label(arm), "end");
    const std::string& colour = category_colour(colours.at(model::str(arm["scenarioId"])));
    // A missing rate is said, not left blank (a plot never silently drops a value).
    if (v["claimedRate"].is_null()) canvas.text(x(0) + 6, y - kOffset + 4, "no claim", "start", "font-style=\"italic\"");
    if (v["verifiedRate"].is_null()) canvas.text(x(0) + 6, y + kOffset + 4, "none verified", "start", "font-style=\"italic\"");
    claims_marker(canvas, x, y - kOffset, v["claimedRate"], v["claimedInterval"], colour, false,
           arm_label(arm) + ": claimed " + plot.numbers.rows[i][1]);
    claims_marker(canvas, x, y + kOffset, v["verifiedRate"], v["verifiedInterval"], colour, true,
           arm_label(arm) + ": verified " + plot.numbers.rows[i][2]);
  }
  // The legend, under the axis title.
  const double legend = bottom + kAxisSpace - 10;
  canvas.circle(left + 6, legend - 4, 5, "#fff", "stroke=\"#222\" stroke-width=\"2\"");
  canvas.text(left + 16, legend, "claimed by the agents");
  canvas.circle(left + 186, legend - 4, 5, "#222", "stroke=\"#222\" stroke-width=\"2\"");
  canvas.text(left + 196, legend, "verified by Strata");
  plot.svg = canvas.finish();
  return plot;
}

}  // namespace strata::report
