#pragma once
// What a run needs to know about the observations already recorded (spec §3.10): the
// plan-hash guard, the skip rule, and the upsert rule.
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "strata/model/json/json.hpp"

namespace strata::model {

class LedgerIndex {
 public:
  LedgerIndex(std::string run_id, std::string plan_hash);

  // Indexes a stored observation. Throws when it belongs to this run id under another plan.
  void add_existing(const Json& observation);

  // An execution of this run known to be recorded without its observation (a resume answered
  // from <ledger>.verified, which runs nothing: upsert() does not know its contents).
  void add_recorded_key(const std::string& key) { execution_keys_.insert(key); }

  // Skip rule: an observation of this run with the same six-field execution key exists.
  bool has_execution(const Json& recorded_task) const;
  bool has_execution_key(const std::string& key) const { return execution_keys_.count(key) > 0; }

  enum class Upsert { appended, unchanged };
  // Upsert rule: same run and same task object (difficulty included) with another
  // contentHash is a conflict (throws); the same contentHash is a no-op.
  Upsert upsert(const Json& observation);

 private:
  std::string run_id_, plan_hash_;
  std::unordered_set<std::string> execution_keys_;
  std::unordered_map<std::string, std::string> task_hashes_;  // hash of task -> contentHash
};

}  // namespace strata::model
