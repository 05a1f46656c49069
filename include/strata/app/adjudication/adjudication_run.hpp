#pragma once
// `strata adjudicate` (spec §4.2-4.4): judge a batch of a ledger's observations with the
// independent adjudicator, many at once, checkpointed so an interrupted batch re-run with
// the same arguments continues without judging anything twice.
#include <chrono>
#include <memory>
#include <string>

#include "strata/app/study/endpoint_caller.hpp"
#include "strata/engine/spend_budget.hpp"
#include "strata/model/adjudication/adjudication.hpp"
#include "strata/model/json/json.hpp"
#include "strata/model/study/shard.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/store/ledger_source.hpp"

namespace strata::app {

class TrajectoryKeeper;

struct AdjudicationSettings {
  std::string output_path;
  model::BatchSelection selection;
  int jobs = 4;
  std::chrono::milliseconds kill_grace{2000};
  bool progress = false;
  EndpointCaller* endpoints = nullptr;  // for an endpoint adjudicator (not owned)
  engine::SpendLimits limits;           // --max-tokens, --max-cost-usd: what this invocation may spend
  std::optional<model::Shard> shard;    // --shard: judge (and write) only this part of the batch
  // --force: judge into an output that holds another batch's judgements (its receipt names a
  // different input ledger, configuration or selection) instead of refusing.
  bool force = false;
  // --keep-trajectories: each judge's trajectory kept beside the judgement (not owned); nullptr: none.
  const TrajectoryKeeper* trajectories = nullptr;
};

struct AdjudicationOutcome {
  bool interrupted = false;
  // A judgement was not started for lack of budget: no output written (the checkpoint keeps
  // what was judged), exit 4.
  bool budget_reached = false;
  engine::Spend spent;  // by this invocation's judgements (worst cases where none was reported)
  std::string content_hash;      // of the output ledger (complete runs only)
  std::size_t observations = 0;  // in the output ledger (complete runs only)
  std::string output_path;       // absolute
  // The output ledger as this adjudication wrote it, opened before its lock was released
  // (complete runs only): what is printed is what was written.
  std::shared_ptr<const store::FileDescriptor> output_file;
  double selected = 0, judged = 0, reused = 0;
};

// `ledger` is verified; `suite` is a parsed artifact; `provider_config` declares an adjudicator.
// Throws strata::Error before judging anything when the batch cannot run, or when the output
// holds another batch's judgements (without `force`). When the output already holds this very
// batch (its receipt and seal say so), nothing is judged and the outcome describes that output.
AdjudicationOutcome run_adjudication(const store::LedgerSource& ledger, const model::Json& suite,
                                     const model::Json& provider_config, const AdjudicationSettings& settings);

}  // namespace strata::app
