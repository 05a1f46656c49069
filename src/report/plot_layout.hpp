#pragma once
// What the report's plots share: an arm's label and colour, the width a column of labels
// needs, and a horizontal value axis with its ticks and title.
#include <functional>
#include <map>
#include <string>

#include "strata/model/json/json.hpp"
#include "svg_canvas.hpp"

namespace strata::report {

std::string arm_label(const model::Json& arm);  // "model / scenario"

// A colour per scenario, in the order the scenarios first appear among the arms.
std::map<std::string, std::size_t> scenario_colours(const model::Json& arms);

// The width (user units, font-size 12) a column of these labels needs, within [min, max].
double label_width(const std::vector<std::string>& labels, double min = 80, double max = 340);

// Ticks, grid lines from top to bottom, tick labels under `bottom`, and the axis title.
void x_axis(SvgCanvas& canvas, const LinearScale& scale, const std::vector<double>& ticks, double top, double bottom,
            const std::string& title, const std::function<std::string(double)>& tick_text);

// The 0-100% axis of the plots of a rate per arm (success, claimed and verified): the scale from
// `left` over `width`, its ticks, grid and title drawn from `top` to `bottom`.
LinearScale rate_axis(SvgCanvas& canvas, double left, double width, double top, double bottom);

// A drawing that says there is nothing to draw (a plot never silently disappears).
std::string empty_plot(const std::string& id, const std::string& title, const std::string& reason);

}  // namespace strata::report
