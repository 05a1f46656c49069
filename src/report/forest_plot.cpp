// The forest plot of the paired effects: for each model and pair of its scenarios, the difference
// in success rate (percentage points) and the Hodges-Lehmann difference in tokens per execution
// (as a share of the baseline median), each with its 95% interval, beside a line at no effect.
#include <algorithm>
#include <optional>

#include "plot_layout.hpp"
#include "plots.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::report {
namespace {

using model::Json;
using model::str;

struct Effect {
  double estimate = 0;
  std::optional<std::pair<double, double>> interval;
};

std::string pair_label(const Json& pair) {
  return str(pair["modelId"]) + ": " + str(pair["baselineScenarioId"]) + " → " + str(pair["currentScenarioId"]);
}

std::optional<Effect> success_effect(const Json& pair) {
  const Json& success = pair["success"];
  if (success.is_null()) return std::nullopt;
  return Effect{success["difference"].get<double>(),
                std::make_pair(success["interval"][0].get<double>(), success["interval"][1].get<double>())};
}

// The token difference as a fraction of the baseline median (nullopt without a positive one).
std::optional<Effect> token_effect(const Json& pair) {
  const Json& tokens = pair["totalTokens"];
  if (tokens.is_null() || tokens["baselineMedian"].is_null() || tokens["baselineMedian"].get<double>() <= 0) return std::nullopt;
  const double base = tokens["baselineMedian"].get<double>();
  Effect effect{tokens["medianDifference"].get<double>() / base, std::nullopt};
  if (!tokens["interval"].is_null())
    effect.interval = std::make_pair(tokens["interval"][0].get<double>() / base, tokens["interval"][1].get<double>() / base);
  return effect;
}

// A panel: its scale's domain covers no effect and every interval, with a margin.
LinearScale panel_scale(const std::vector<std::optional<Effect>>& effects, double left, double width) {
  double low = -0.1, high = 0.1;
  for (const auto& effect : effects) {
    if (!effect) continue;
    low = std::min(low, effect->interval ? effect->interval->first : effect->estimate);
    high = std::max(high, effect->interval ? effect->interval->second : effect->estimate);
  }
  const double margin = (high - low) * 0.05;
  return LinearScale{low - margin, high + margin, left, left + width};
}

void draw_panel(SvgCanvas& canvas, const LinearScale& x, const std::vector<std::optional<Effect>>& effects,
                const std::vector<std::string>& labels, double top, double row_height, const std::string& title,
                const std::string& unit) {
  const double bottom = top + row_height * effects.size();
  std::vector<double> ticks = nice_ticks(x.d0, x.d1, 4);
  x_axis(canvas, x, ticks, top - 6, bottom, title, [](double tick) { return (tick > 0 ? "+" : "") + decimal(tick * 100, 1); });
  canvas.line(x(0), top - 6, x(0), bottom, "#222", 1.5, "stroke-dasharray=\"4 3\"");
  for (std::size_t i = 0; i < effects.size(); ++i) {
    const double y = top + row_height * (i + 0.5);
    if (!effects[i]) {
      canvas.text(x(0) + 6, y + 4, "not measured", "start", "font-style=\"italic\" font-size=\"11\"");
      continue;
    }
    const Effect& effect = *effects[i];
    std::string tip = labels[i] + ": " + (effect.estimate > 0 ? "+" : "") + decimal(effect.estimate * 100, 1) + unit;
    if (effect.interval)
      tip += ", 95% interval " + decimal(effect.interval->first * 100, 1) + " to " + decimal(effect.interval->second * 100, 1) + unit;
    else
      tip += " (too few pairs for an interval)";
    canvas.begin_group(tip);
    if (effect.interval) {
      const double low = x(effect.interval->first), high = x(effect.interval->second);
      canvas.line(low, y, high, y, "#0072B2", 2);
      canvas.line(low, y - 6, low, y + 6, "#0072B2", 2);
      canvas.line(high, y - 6, high, y + 6, "#0072B2", 2);
      canvas.rect(x(effect.estimate) - 5, y - 5, 10, 10, "#0072B2", "stroke=\"#222\"");
    } else {
      canvas.rect(x(effect.estimate) - 5, y - 5, 10, 10, "#fff", "stroke=\"#0072B2\" stroke-width=\"2\"");
    }
    canvas.end_group();
  }
}

std::string signed_points(const Json& value) { return (value.get<double>() > 0 ? "+" : "") + decimal(value.get<double>() * 100, 1); }

}  // namespace

Plot forest_plot(const Json& paired) {
  Plot plot{"paired-effects", "Paired effects per model", "", "", {}};
  plot.numbers = {"Paired effects (current scenario minus baseline scenario, same tasks)",
                  {"Model: baseline → current", "Pairs", "Δ success (points)", "95% interval", "McNemar p", "Δ tokens (Hodges–Lehmann)",
                   "95% interval", "Share of baseline median", "Wilcoxon p"},
                  {}};
  plot.alt = "For each model and pair of its scenarios, over the tasks both ran: the difference in success rate in percentage "
             "points and the difference in tokens per execution as a percentage of the baseline median, each with its 95% "
             "interval; the dashed line is no effect.";
  std::vector<std::optional<Effect>> success, tokens;
  std::vector<std::string> labels;
  for (const auto& pair : paired) {
    labels.push_back(pair_label(pair));
    success.push_back(success_effect(pair));
    tokens.push_back(token_effect(pair));
    const Json& s = pair["success"];
    const Json& t = pair["totalTokens"];
    plot.numbers.rows.push_back(
        {labels.back(), decimal(pair["pairs"], 0), s.is_null() ? "– (no decided pairs)" : signed_points(s["difference"]),
         s.is_null() ? "–" : interval_text(s["interval"], 1, 100),
         s.is_null() || s["mcnemarP"].is_null() ? "– (no discordant pairs)" : decimal(s["mcnemarP"], 4),
         t.is_null() ? "–" : decimal(t["medianDifference"], 1),
         t.is_null() ? "–" : interval_text(t["interval"], 1),
         tokens.back() ? (tokens.back()->estimate > 0 ? "+" : "") + decimal(tokens.back()->estimate * 100, 1) + "%" : "–",
         t.is_null() ? "–" : t["wilcoxon"].is_null() ? "– (" + str(t["note"]) + ")" : decimal(t["wilcoxon"]["p"], 4)});
    plot.alt += " " + labels.back() + ": success " +
                (s.is_null() ? std::string("not measured") : signed_points(s["difference"]) + " points") + ", tokens " +
                (tokens.back() ? (tokens.back()->estimate > 0 ? "+" : "") + decimal(tokens.back()->estimate * 100, 1) + "%"
                               : std::string("not measured")) +
                ".";
  }
  if (paired.empty()) {
    plot.svg = empty_plot(plot.id, plot.title, "No model ran two scenarios on the same tasks: no paired effect to plot.");
    return plot;
  }
  constexpr double kRowHeight = 30, kTop = 34, kPanel = 280, kGap = 36, kRight = 24;
  const double left = label_width(labels, 120, 380);
  SvgCanvas canvas(left + 2 * kPanel + kGap + kRight, kTop + kRowHeight * paired.size() + 52, plot.id, plot.title, plot.alt);
  canvas.text(left + kPanel / 2, 16, "Success rate", "middle", "font-weight=\"bold\"");
  canvas.text(left + kPanel + kGap + kPanel / 2, 16, "Tokens per execution", "middle", "font-weight=\"bold\"");
  for (std::size_t i = 0; i < labels.size(); ++i) canvas.text(left - 8, kTop + kRowHeight * (i + 0.5) + 4, labels[i], "end");
  draw_panel(canvas, panel_scale(success, left, kPanel), success, labels, kTop, kRowHeight, "Difference (percentage points)", " points");
  draw_panel(canvas, panel_scale(tokens, left + kPanel + kGap, kPanel), tokens, labels, kTop, kRowHeight,
             "Difference (% of baseline median)", "%");
  plot.svg = canvas.finish();
  return plot;
}

}  // namespace strata::report
