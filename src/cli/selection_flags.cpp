#include "selection_flags.hpp"

#include <optional>

namespace strata::cli {
namespace {

std::optional<std::string> given(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

}  // namespace

void add_selection_flags(CLI::App& command, SelectionFlags& flags) {
  command.add_option("--run-id", flags.run_ids, "Only observations of this run (repeat for several)");
  command.add_option("--baseline-round", flags.baseline_round, "Compare this round ...");
  command.add_option("--current-round", flags.current_round, "... with this one");
  command.add_option("--baseline-run-id", flags.baseline_run_id, "Compare this run ...");
  command.add_option("--current-run-id", flags.current_run_id, "... with this one");
  command.add_option("--cluster", flags.cluster,
                     "What the clustered intervals treat as a cluster of related pairs: repository (the default) or category")
      ->check(CLI::IsMember({"repository", "category"}));
  command.add_option("--multiplicity", flags.multiplicity,
                     "The adjustment of the p-values of every test the report makes: holm (Holm-Bonferroni, the default), "
                     "bh (Benjamini-Hochberg) or none")
      ->check(CLI::IsMember({"holm", "bh", "none"}));
  command.add_option("--outcome", flags.outcome,
                     "What success is in the paired comparison: verified (every acceptance check passed under strata run "
                     "--verify; the default when the ledger has verified records) or adjudicated (the adjudicated result; "
                     "the default otherwise)")
      ->check(CLI::IsMember({"verified", "adjudicated"}));
}

app::MetricsRequest metrics_request(const std::string& ledger_path, const SelectionFlags& flags) {
  app::MetricsRequest request;
  request.ledger_path = ledger_path;
  request.run_ids = flags.run_ids;
  request.baseline_round = given(flags.baseline_round);
  request.current_round = given(flags.current_round);
  request.baseline_run_id = given(flags.baseline_run_id);
  request.current_run_id = given(flags.current_run_id);
  request.cluster_by = flags.cluster == "category" ? model::ClusterBy::category : model::ClusterBy::repository;
  request.multiplicity = *model::parse_multiplicity(flags.multiplicity);
  if (!flags.outcome.empty())
    request.outcome = flags.outcome == "verified" ? model::OutcomeSource::verified : model::OutcomeSource::adjudicated;
  return request;
}

}  // namespace strata::cli
