#pragma once
// `strata metrics`: per-arm aggregates of a ledger's observations and, optionally, a baseline
// and a current round (or run) compared with a protocol's stopping targets (docs/METRICS.md).
// The ledger is read an observation at a time.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"
#include "strata/model/results/multiplicity.hpp"
#include "strata/model/results/paired_comparison.hpp"
#include "strata/store/ledger_source.hpp"

namespace strata::app {

struct MetricsRequest {
  std::string ledger_path;
  std::vector<std::string> run_ids;  // only these runs (all when empty)
  // A comparison: by rounds or by run ids (both members of a pair set, or neither).
  std::optional<std::string> baseline_round, current_round, baseline_run_id, current_run_id;
  std::optional<model::Json> targets;  // a protocol's stopping.targets; default_targets() otherwise
  model::ClusterBy cluster_by = model::ClusterBy::repository;  // the clusters of the clustered intervals
  model::Multiplicity multiplicity = model::Multiplicity::holm;  // the adjustment of the report's tests
  // What success is in the paired comparison (--outcome); none: verified when any selected
  // observation has a verified record, adjudicated otherwise.
  std::optional<model::OutcomeSource> outcome;
};

// The report ({"observations", "runIds", "rounds", "findings", "arms", "paired", "clustering",
// "multiplicity", "comparison"?}). Throws strata::Error
// for an empty selection, a run id or round the ledger lacks, rounds mixed without a comparison,
// a target Strata does not compute, or --outcome verified on observations none of which is verified.
// `also` sees every selected observation too, in the same single read (`strata report`).
using ObservationVisitor = std::function<void(const model::Json&)>;
model::Json metrics_report(const store::LedgerSource& ledger, const MetricsRequest& request, const ObservationVisitor& also = {});

}  // namespace strata::app
