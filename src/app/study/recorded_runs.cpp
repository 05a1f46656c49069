#include "strata/app/study/recorded_runs.hpp"

#include <vector>

#include "strata/engine/spend_budget.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/study/observation_builder.hpp"

namespace strata::app {

std::map<std::string, store::RecordedRun> recorded_runs(std::span<const model::Json> observations) {
  std::map<std::string, store::RecordedRun> runs;
  std::map<std::string, std::vector<std::string>> keys;
  for (const auto& o : observations) {
    const std::string run_id = model::str(o["runId"]);
    store::RecordedRun& run = runs[run_id];
    run.plan_hash = model::str(o["planHash"]);  // one per run id: the ledger index refuses two
    keys[run_id].push_back(model::execution_key(o["task"]));
    const engine::Spend reported = engine::reported_spend(o).value_or(engine::Spend{});
    run.reported_tokens += reported.tokens;
    run.reported_cost_usd += reported.cost_usd;
  }
  for (auto& [run_id, run_keys] : keys) runs[run_id].key_digests = store::key_digests_of(std::move(run_keys));
  return runs;
}

}  // namespace strata::app
