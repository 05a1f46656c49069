#pragma once
// The observations a results command reads and the comparison it makes (`strata metrics`,
// `strata report`): --run-id ID..., --baseline-round / --current-round, --baseline-run-id /
// --current-run-id, and the app::MetricsRequest they make.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "strata/app/results/study_metrics.hpp"

namespace strata::cli {

struct SelectionFlags {
  std::vector<std::string> run_ids;
  std::string baseline_round, current_round, baseline_run_id, current_run_id;  // empty: not given
  std::string cluster = "repository", multiplicity = "holm";  // checked by CLI11 when given
  std::string outcome;  // --outcome verified|adjudicated; empty: the default (verified when the ledger has it)
};

// --run-id, the round and run comparisons, --cluster, --multiplicity and --outcome.
void add_selection_flags(CLI::App& command, SelectionFlags& flags);

// The request for `ledger_path` (its targets left to the caller, who knows the protocol).
app::MetricsRequest metrics_request(const std::string& ledger_path, const SelectionFlags& flags);

}  // namespace strata::cli
