#include "strata/model/results/multiplicity.hpp"

#include <algorithm>
#include <numeric>

namespace strata::model {

std::optional<Multiplicity> parse_multiplicity(const std::string& name) {
  if (name == "holm") return Multiplicity::holm;
  if (name == "bh") return Multiplicity::bh;
  if (name == "none") return Multiplicity::none;
  return std::nullopt;
}

const char* multiplicity_name(Multiplicity method) {
  switch (method) {
    case Multiplicity::holm: return "holm";
    case Multiplicity::bh: return "bh";
    case Multiplicity::none: break;
  }
  return "none";
}

std::vector<double> adjust_p_values(const std::vector<double>& p_values, Multiplicity method) {
  std::vector<double> adjusted = p_values;
  const std::size_t m = p_values.size();
  if (method == Multiplicity::none || m == 0) return adjusted;
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  const double count = static_cast<double>(m);
  if (method == Multiplicity::holm) {
    // Step down: the i-th smallest is multiplied by m - i (from 0), and never falls below the
    // adjusted value before it.
    double running = 0;
    for (std::size_t i = 0; i < m; ++i) {
      running = std::max(running, std::min(1.0, (count - static_cast<double>(i)) * p_values[order[i]]));
      adjusted[order[i]] = running;
    }
  } else {
    // Step up: the i-th smallest (from 1) is multiplied by m / i, and never exceeds the adjusted
    // value after it.
    double running = 1;
    for (std::size_t i = m; i-- > 0;) {
      running = std::min(running, std::min(1.0, count / static_cast<double>(i + 1) * p_values[order[i]]));
      adjusted[order[i]] = running;
    }
  }
  return adjusted;
}

}  // namespace strata::model
