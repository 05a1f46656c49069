#pragma once
// The report's plots (report_plots() in strata/report/report_parts.hpp puts them in order).
#include "strata/model/json/json.hpp"
#include "strata/report/report_parts.hpp"

namespace strata::report {

Plot success_plot(const model::Json& arms);       // arm_plots.cpp
Plot tokens_plot(const model::Json& arms);        // arm_plots.cpp
Plot cost_plot(const model::Json& arms);          // cost_plot.cpp
Plot forest_plot(const model::Json& paired);      // forest_plot.cpp
Plot heat_map_plot(const model::Json& heat_map);  // heat_map_plot.cpp
Plot claims_plot(const model::Json& arms);        // claims_plot.cpp: arms with "verified" only

}  // namespace strata::report
