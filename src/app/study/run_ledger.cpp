#include "strata/app/study/run_ledger.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "strata/app/study/recorded_runs.hpp"
#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/store/ledger_append.hpp"
#include "strata/store/ledger_journal.hpp"
#include "strata/store/ledger_writer.hpp"

namespace strata::app {

using model::Json;
using model::str;

RunLedger::RunLedger(std::string path, std::string run_id, std::string plan_hash, std::vector<std::string> keys)
    : path_(std::move(path)), run_id_(std::move(run_id)), plan_hash_(std::move(plan_hash)), keys_(std::move(keys)),
      index_(run_id_, plan_hash_) {}

void RunLedger::load() {
  if (store::undo_interrupted_append(path_))
    std::fprintf(stderr, "strata: %s: undid an append cut short by an earlier interruption (its observations are still in the journal)\n",
                 path_.c_str());
  if (!load_verified_ledger()) load_whole_ledger();
}

// A ledger this program verified and wrote, unchanged since and with an empty journal, is
// known from its record: a fresh run needs only the count, the run ids and the hash state
// to append a block; a resumed run with every planned execution recorded (under this plan)
// has nothing to run. Nothing is read that grows with the ledger; anything else reads it.
bool RunLedger::load_verified_ledger() {
  struct stat journal {};
  if (::stat(store::journal_path_for(path_).c_str(), &journal) == 0 && journal.st_size > 0) return false;
  std::optional<store::VerifiedLedger> verified = store::read_verified_ledger(path_);
  if (!verified) return false;
  const auto this_run = verified->runs.find(run_id_);
  if (this_run != verified->runs.end() && !fully_recorded(this_run->second)) return false;
  hasher_ = model::LedgerHasher::restore(model::ledger_without_observations(verified->ledger_version), verified->hash_state);
  if (!hasher_) return false;
  if (this_run != verified->runs.end()) {
    for (const auto& key : keys_) index_.add_recorded_key(key);
    recorded_run_total_ = engine::Spend{this_run->second.reported_tokens, this_run->second.reported_cost_usd};
  }
  ledger_version_ = verified->ledger_version;
  ledger_hash_ = verified->content_hash;
  unloaded_observations_ = verified->observations;
  for (const auto& [run_id, run] : verified->runs) run_ids_.insert(run_id);
  appendable_ = run_ids_.count(run_id_) == 0;
  recorded_runs_ = std::move(verified->runs);
  record_current_ = true;
  return true;
}

// Under this plan, with every execution this plan selects recorded.
bool RunLedger::fully_recorded(const store::RecordedRun& run) const {
  if (run.plan_hash != plan_hash_) return false;  // the full read reports it
  for (const auto& key : keys_)
    if (!run.has_execution_key(key)) return false;
  return true;
}

void RunLedger::load_whole_ledger() {
  store::LedgerState state = store::read_ledger_state(path_);
  if (state.journal.dropped)
    std::fprintf(stderr, "strata: %s: dropped %s (a write cut short by an earlier interruption)\n",
                 store::journal_path_for(path_).c_str(), state.journal.dropped->c_str());
  journal_valid_bytes_ = state.journal.valid_bytes;
  ledger_version_ = str(state.ledger["ledgerVersion"]);
  ledger_hash_ = str(state.ledger["contentHash"]);
  const bool journal_empty = state.journal.observations.empty();
  dirty_ = !state.ledger_exists || !journal_empty;
  observations_ = store::take_merged_observations(state);
  for (const auto& o : observations_) {
    index_.add_existing(o);
    run_ids_.insert(str(o["runId"]));
  }
  // A fresh run on a folded ledger only adds a block at the end: the fold can append.
  if (state.ledger_exists && journal_empty && state.hasher) {
    hasher_ = std::move(state.hasher);
    appendable_ = run_ids_.count(run_id_) == 0;
    folded_count_ = observations_.size();
  }
  if (!state.ledger_exists) ledger_hash_ = store::write_ledger(path_, ledger_version_, {});
}

void RunLedger::check_capacity() const {
  std::size_t to_run = 0;
  for (const auto& key : keys_) to_run += index_.has_execution_key(key) ? 0 : 1;
  if (total_observations() + to_run > model::kMaxLedgerObservations)
    throw Error("Ledger " + path_ + " holds " + std::to_string(total_observations()) + " observations; " +
                std::to_string(to_run) + " more would exceed the limit of 100000. Use another ledger.");
}

void RunLedger::add(Json observation) {
  observations_.push_back(std::move(observation));
  dirty_ = true;
}

bool RunLedger::fold_due(std::uint64_t journal_entries) const {
  static constexpr std::uint64_t kMinFold = 4096;
  // With the ledger's observations not loaded (a fresh run, at most 768 executions) the only
  // fold is the final append.
  return unloaded_observations_ == 0 && journal_entries >= std::max<std::uint64_t>(kMinFold, observations_.size() / 2);
}

void RunLedger::fold(const std::function<void()>& truncate_journal) {
  observations_ = ordered_observations();  // keep the folded order for a later fold
  if (!append_fold()) {
    if (unloaded_observations_ > 0)  // only a fresh run's block on an unchanged ledger gets here
      throw Error("Ledger " + path_ + " changed during the run; every completed observation is in " +
                  store::journal_path_for(path_) + " and the next run folds it.");
    // Written a piece at a time (no copy of the observations); the hash state it ends with
    // lets <ledger>.verified describe the new file.
    std::string hash_state;
    ledger_hash_ = store::write_ledger_streamed(path_, ledger_version_, observations_.size(),
                                                [this](std::size_t i) { return observations_[i]; }, &hash_state);
    hasher_ = model::LedgerHasher::restore(model::ledger_without_observations(ledger_version_), hash_state);
    record_current_ = false;
  }
  truncate_journal();
  dirty_ = false;
}

void RunLedger::finish(const std::function<void()>& truncate_journal) {
  if (dirty_) fold(truncate_journal);
  record_verified_ledger();
}

// Keeps <ledger>.verified in step with the file when the hash state matches it. With the
// ledger's observations not loaded, observations_ holds only this fresh run's block.
void RunLedger::record_verified_ledger() {
  if (!hasher_ || record_current_) return;
  std::map<std::string, store::RecordedRun> runs = recorded_runs(observations_);
  if (unloaded_observations_ > 0) runs.merge(recorded_runs_);
  store::VerifiedLedger verified{ledger_hash_, ledger_version_, total_observations(), std::move(runs), hasher_->saved_state()};
  record_current_ = store::write_verified_ledger(path_, verified);
}

// The run's block goes after the observations already folded, in selection order. That
// holds for the first fold of a fresh run only: a later completion may come earlier in
// selection order than what an earlier fold wrote, so later folds rewrite the ledger.
bool RunLedger::append_fold() {
  if (!appendable_ || !hasher_) return false;
  appendable_ = false;
  std::unordered_set<std::string> folded;
  for (std::size_t i = 0; i < folded_count_; ++i) folded.insert(str(observations_[i]["contentHash"]));
  const std::span<const Json> block(observations_.data() + folded_count_, observations_.size() - folded_count_);
  for (const auto& o : block)
    if (!folded.insert(str(o["contentHash"])).second) return false;  // let the full fold report it
  if (total_observations() > model::kMaxLedgerObservations) return false;
  auto hash = store::append_to_ledger_file(path_, ledger_hash_, *hasher_, block);
  if (!hash) return false;
  ledger_hash_ = *hash;
  run_ids_.insert(run_id_);
  record_current_ = false;
  return true;
}

// This run's observations in selection order, at the place of its first one; other
// runs' observations keep their order.
std::vector<Json> RunLedger::ordered_observations() {
  std::unordered_map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < keys_.size(); ++i) position[keys_[i]] = i;
  std::vector<Json> result;
  std::vector<std::pair<std::size_t, Json>> run;  // (selection index, observation)
  std::optional<std::size_t> insert_at;
  for (auto& o : observations_) {
    if (o["runId"] == run_id_) {
      if (!insert_at) insert_at = result.size();
      const auto it = position.find(model::execution_key(o["task"]));
      run.emplace_back(it == position.end() ? keys_.size() : it->second, std::move(o));
    } else {
      result.push_back(std::move(o));
    }
  }
  std::stable_sort(run.begin(), run.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto at = result.begin() + static_cast<std::ptrdiff_t>(insert_at.value_or(result.size()));
  std::vector<Json> ordered_run;
  ordered_run.reserve(run.size());
  for (auto& [index, o] : run) ordered_run.push_back(std::move(o));
  result.insert(at, std::make_move_iterator(ordered_run.begin()), std::make_move_iterator(ordered_run.end()));
  return result;
}

engine::Spend RunLedger::run_total() const {
  engine::Spend total = recorded_run_total_;
  for (const auto& o : observations_)
    if (o["runId"] == run_id_) {
      const engine::Spend reported = engine::reported_spend(o).value_or(engine::Spend{});
      total.tokens += reported.tokens;
      total.cost_usd += reported.cost_usd;
    }
  return total;
}

}  // namespace strata::app
