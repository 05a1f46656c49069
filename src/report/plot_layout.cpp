#include "plot_layout.hpp"

#include <algorithm>

#include "strata/model/json/json_access.hpp"
#include "strata/report/report_parts.hpp"

namespace strata::report {

using model::Json;
using model::str;

std::string arm_label(const Json& arm) { return str(arm["modelId"]) + " / " + str(arm["scenarioId"]); }

std::map<std::string, std::size_t> scenario_colours(const Json& arms) {
  std::map<std::string, std::size_t> colours;
  for (const auto& arm : arms) colours.emplace(str(arm["scenarioId"]), colours.size());
  return colours;
}

double label_width(const std::vector<std::string>& labels, double min, double max) {
  std::size_t longest = 0;
  for (const auto& label : labels) longest = std::max(longest, label.size());
  return std::clamp(static_cast<double>(longest) * 6.6 + 16, min, max);  // about 6.6 units per character at 12
}

void x_axis(SvgCanvas& canvas, const LinearScale& scale, const std::vector<double>& ticks, double top, double bottom,
            const std::string& title, const std::function<std::string(double)>& tick_text) {
  for (const double tick : ticks) {
    const double x = scale(tick);
    canvas.line(x, top, x, bottom, "#d9d9d9", 1);
    canvas.text(x, bottom + 14, tick_text(tick), "middle", "font-size=\"11\"");
  }
  canvas.line(scale.r0, bottom, scale.r1, bottom, "#555", 1);
  canvas.text((scale.r0 + scale.r1) / 2, bottom + 32, title, "middle");
}

LinearScale rate_axis(SvgCanvas& canvas, double left, double width, double top, double bottom) {
  const LinearScale x{0, 1, left, left + width};
  x_axis(canvas, x, nice_ticks(0, 1, 5), top - 6, bottom, "Success rate (95% Wilson interval)",
         [](double tick) { return percent(tick, 0); });
  return x;
}

std::string empty_plot(const std::string& id, const std::string& title, const std::string& reason) {
  SvgCanvas canvas(640, 60, id, title, reason);
  canvas.text(16, 34, reason, "start", "font-style=\"italic\"");
  return canvas.finish();
}

}  // namespace strata::report
