#include "strata/model/study/ledger_index.hpp"

#include "strata/error.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/study/observation_builder.hpp"

namespace strata::model {

LedgerIndex::LedgerIndex(std::string run_id, std::string plan_hash)
    : run_id_(std::move(run_id)), plan_hash_(std::move(plan_hash)) {}

void LedgerIndex::add_existing(const Json& observation) {
  if (observation["runId"] != run_id_) return;
  if (observation["planHash"] != plan_hash_)
    throw Error("Ledger already contains run " + run_id_ + " with a different plan hash.");
  execution_keys_.insert(execution_key(observation["task"]));
  task_hashes_[content_hash(observation["task"])] = observation["contentHash"].get<std::string>();
}

bool LedgerIndex::has_execution(const Json& recorded_task) const {
  return execution_keys_.count(execution_key(recorded_task)) > 0;
}

LedgerIndex::Upsert LedgerIndex::upsert(const Json& observation) {
  const std::string task_hash = content_hash(observation["task"]);
  const std::string& hash = observation["contentHash"].get_ref<const std::string&>();
  if (const auto it = task_hashes_.find(task_hash); it != task_hashes_.end()) {
    if (it->second != hash) throw Error("Observation " + run_id_ + " already exists with different contents.");
    return Upsert::unchanged;
  }
  task_hashes_[task_hash] = hash;
  execution_keys_.insert(execution_key(observation["task"]));
  return Upsert::appended;
}

}  // namespace strata::model
