#pragma once
// Pre-flight of `strata run` (spec §3.2): everything that can be checked before a
// process starts. `--dry-run` stops after it.
#include <optional>
#include <string>
#include <vector>

#include "strata/model/study/assisted_arm.hpp"
#include "strata/model/json/json.hpp"
#include "strata/model/study/shard.hpp"

namespace strata::app {

// The four parsed (hash-verified) inputs of a run.
struct StudyInputs {
  model::Json plan;
  model::Json suite;
  model::Json providers;
  model::Json repositories;
};

// One selected execution, ready to launch.
struct PlannedExecution {
  model::Json recorded;                 // §1.5 task execution, with difficulty
  const model::Json* task = nullptr;    // in StudyInputs::suite
  const model::Json* provider = nullptr;  // nullptr when the assisted arm is unavailable
  std::string repository_root;          // absolute
  std::string command_path;             // resolved (§3.3)
  std::string request;                  // the stdin request (§1.9), compact JSON
  bool assisted_unavailable = false;    // recorded without a process (§3.11)
};

struct RunPreflight {
  std::vector<PlannedExecution> executions;  // in selection order (this shard's, with --shard)
  model::AssistedArm assisted_arm;
  std::optional<model::Shard> shard;         // --shard: `executions` holds only its part
  std::size_t selected = 0;                  // executions the plan selects, every shard's
  std::vector<std::string> repository_roots; // every configured repository's root (absolute)
};

// Throws strata::Error (the spec's message) when the plan is not over this suite: its
// taskSuiteHash, models, scenarios or tasks differ.
void check_plan_matches_suite(const model::Json& plan, const model::Json& suite);

// Runs the checks of §3.2 in order; the first failure throws strata::Error with the
// spec's message. `path_variable` is the PATH used to find bare commands.
RunPreflight prepare_run(const StudyInputs& inputs, const std::string& path_variable);

// Keeps only `shard`'s executions (issue 17): position k of the selection order belongs to shard
// k % N. Every execution was pre-flighted, so each shard fails or passes the checks alike.
void restrict_to_shard(RunPreflight& preflight, const model::Shard& shard);

// With a cost limit (--max-cost-usd) every provider entry an execution would launch must
// declare `pricing`: throws strata::Error naming those that do not.
void require_pricing_for_cost_limit(const StudyInputs& inputs, const RunPreflight& preflight);

}  // namespace strata::app
