#pragma once
// p-values adjusted for the many tests one report makes (docs/METRICS.md "Multiplicity"). Pure.
#include <optional>
#include <string>
#include <vector>

namespace strata::model {

enum class Multiplicity { none, holm, bh };

// "holm", "bh", "none"; nullopt for anything else.
std::optional<Multiplicity> parse_multiplicity(const std::string& name);
const char* multiplicity_name(Multiplicity method);

// The adjusted p-values, in the order given: Holm-Bonferroni (step-down, the family-wise error
// rate) or Benjamini-Hochberg (step-up, the false discovery rate), each capped at 1.
std::vector<double> adjust_p_values(const std::vector<double>& p_values, Multiplicity method);

}  // namespace strata::model
