#include "strata/app/results/study_metrics.hpp"

#include <set>

#include "strata/app/results/ledger_selection.hpp"
#include "strata/error.hpp"
#include "strata/model/results/arm_metrics.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/results/metric_comparison.hpp"
#include "strata/model/results/cluster_robust.hpp"
#include "strata/model/results/paired_comparison.hpp"
#include "strata/model/results/study_findings.hpp"
#include "strata/model/results/claim_findings.hpp"

namespace strata::app {
namespace {

using model::Json;

// "none" stands for observations recorded without --round.
std::string round_of(const Json& observation) {
  return observation.contains("round") ? model::str(observation["round"]) : "none";
}

Json names(const std::set<std::string>& set) {
  Json out = Json::array();
  for (const auto& name : set) out.push_back(name);
  return out;
}

std::string listed(const std::set<std::string>& set) {
  std::string text;
  for (const auto& name : set) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

Json metrics_report(const store::LedgerSource& ledger, const MetricsRequest& request, const ObservationVisitor& also) {
  const bool by_round = request.baseline_round || request.current_round;
  const bool by_run = request.baseline_run_id || request.current_run_id;
  if (by_round && by_run) throw Error("Compare by rounds or by run ids, not both.");
  if (by_round && !(request.baseline_round && request.current_round))
    throw Error("--baseline-round and --current-round go together.");
  if (by_run && !(request.baseline_run_id && request.current_run_id))
    throw Error("--baseline-run-id and --current-run-id go together.");
  const Json targets = request.targets ? *request.targets : model::default_targets();
  model::check_targets(targets);
  if (by_run) select_observations(ledger, {*request.baseline_run_id, *request.current_run_id}, request.ledger_path);

  const std::vector<std::size_t> selection = select_observations(ledger, request.run_ids, request.ledger_path);
  model::StudyMetrics all, baseline, current;
  model::PairedComparison paired;
  std::set<std::string> run_ids, rounds;
  for (const std::size_t i : selection) {
    const Json observation = ledger.observation(i);
    all.add(observation);
    paired.add(observation);
    if (also) also(observation);
    const std::string& run_id = model::str(observation["runId"]);
    run_ids.insert(run_id);
    const std::string round = round_of(observation);
    rounds.insert(round);
    if (by_round ? round == *request.baseline_round : by_run && run_id == *request.baseline_run_id) baseline.add(observation);
    if (by_round ? round == *request.current_round : by_run && run_id == *request.current_run_id) current.add(observation);
  }
  if (selection.empty()) throw Error("Ledger " + request.ledger_path + " has no observations to report.");
  if (!by_round && !by_run && rounds.size() > 1)
    throw Error("Ledger " + request.ledger_path + " mixes rounds (" + listed(rounds) +
                "): choose runs with --run-id, or compare two rounds with --baseline-round and --current-round.");
  if (by_round) {
    for (const auto* round : {&*request.baseline_round, &*request.current_round})
      if (rounds.count(*round) == 0)
        throw Error("Ledger " + request.ledger_path + " has no observations of round " + *round + " (it has " + listed(rounds) + ").");
  }
  if (by_run && (baseline.observations() == 0 || current.observations() == 0))
    throw Error("The compared runs are not among the runs chosen with --run-id.");

  if (request.outcome == model::OutcomeSource::verified && !paired.any_verified())
    throw Error("--outcome verified: no observation of " + request.ledger_path +
                " has a verified record (run the study with strata run --verify).");
  const model::OutcomeSource outcome =
      request.outcome.value_or(paired.any_verified() ? model::OutcomeSource::verified : model::OutcomeSource::adjudicated);
  Json paired_json = paired.to_json(request.cluster_by, outcome);
  Json multiplicity = model::adjust_paired_tests(paired_json, request.multiplicity);
  Json arms = all.to_json();
  // The arms whose claims were found false come first: every finding on their self-reports inherits it.
  Json findings = model::claim_findings(arms);
  for (auto& finding : model::study_findings(paired_json)) findings.push_back(std::move(finding));
  Json report = {{"ledger", request.ledger_path},
                 {"observations", static_cast<double>(all.observations())},
                 {"runIds", names(run_ids)},
                 {"rounds", names(rounds)},
                 {"findings", std::move(findings)},
                 {"arms", std::move(arms)},
                 {"paired", std::move(paired_json)},
                 {"clustering", {{"by", model::cluster_name(request.cluster_by)}, {"minimumClusters", static_cast<double>(model::kMinClusters)}}},
                 {"multiplicity", std::move(multiplicity)}};
  if (by_round || by_run) {
    Json comparison = model::compare_metrics(baseline, current, targets);
    comparison["baseline"] = by_round ? Json{{"round", *request.baseline_round}} : Json{{"runId", *request.baseline_run_id}};
    comparison["current"] = by_round ? Json{{"round", *request.current_round}} : Json{{"runId", *request.current_run_id}};
    comparison["baselineArms"] = baseline.to_json();
    comparison["currentArms"] = current.to_json();
    report["comparison"] = std::move(comparison);
  }
  return report;
}

}  // namespace strata::app
