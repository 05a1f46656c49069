#pragma once
// The ledger a study run writes to: what it holds when the run starts, and the folds that move
// the run's completed observations from the journal into the file.
//
// At the start it is known from <ledger>.verified when that record describes the file and the
// journal is empty (nothing is read that grows with the ledger), and read in full, with the
// journal, otherwise. A fold puts the run's observations in selection order at the place of its
// first one: appended as one block for a fresh run, else the file rewritten. <ledger>.verified is
// kept in step whenever the hash state of the file is known.
//
// No event loop in here: the run journals each completion and says when the journal may be
// truncated (the callback a fold takes).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "strata/engine/spend_budget.hpp"
#include "strata/model/json/json.hpp"
#include "strata/model/study/ledger_hasher.hpp"
#include "strata/model/study/ledger_index.hpp"
#include "strata/store/verified_ledger.hpp"

namespace strata::app {

class RunLedger {
 public:
  // `keys`: the execution key of each execution the plan selects, in selection order.
  RunLedger(std::string path, std::string run_id, std::string plan_hash, std::vector<std::string> keys);

  // Reads what the ledger holds (undoing an append cut short by an earlier interruption first),
  // from the verified record when it may, else in full; creates an empty ledger when there is
  // none. What it repaired or dropped is said on stderr.
  void load();
  // A ledger holds at most 100,000 observations: throws, naming the ledger, when this run's
  // executions not yet recorded would take it past that.
  void check_capacity() const;

  // Observations recorded, by execution (this run's and the others').
  model::LedgerIndex& index() { return index_; }
  // Whether an observation of the plan's execution at this selection position is recorded.
  bool holds_execution(std::size_t position) const { return index_.has_execution_key(keys_[position]); }
  // Whether the file holds an observation of that run.
  bool holds_run(const std::string& run_id) const { return run_ids_.count(run_id) > 0; }
  // The journal's length up to its last whole entry, when it was read (0 from the record).
  std::uint64_t journal_valid_bytes() const { return journal_valid_bytes_; }

  // A completion the run has made durable in the journal.
  void add(model::Json observation);
  // Whether a fold is worth it now, with `journal_entries` in the journal: folding rewrites the
  // whole ledger, so it waits until the journal is as long as the ledger (at least 4096
  // entries), and never comes before the end when the ledger was known from its record.
  bool fold_due(std::uint64_t journal_entries) const;
  // Writes what the journal holds into the file, then calls `truncate_journal`.
  void fold(const std::function<void()>& truncate_journal);
  // At the end of the run: folds what is left and brings <ledger>.verified up to date.
  void finish(const std::function<void()>& truncate_journal);

  const std::string& content_hash() const { return ledger_hash_; }
  // How the ledger was read at the start: "verified-record" or "full".
  const char* read_mode() const { return unloaded_observations_ > 0 ? "verified-record" : "full"; }
  // What the run's observations in the ledger reported spending.
  engine::Spend run_total() const;

 private:
  bool load_verified_ledger();
  bool fully_recorded(const store::RecordedRun& run) const;
  void load_whole_ledger();
  std::size_t total_observations() const { return unloaded_observations_ + observations_.size(); }
  void record_verified_ledger();
  bool append_fold();
  std::vector<model::Json> ordered_observations();

  const std::string path_, run_id_, plan_hash_;
  const std::vector<std::string> keys_;
  model::LedgerIndex index_;
  std::uint64_t journal_valid_bytes_ = 0;
  std::string ledger_version_ = "v1", ledger_hash_;
  std::vector<model::Json> observations_;
  std::unique_ptr<model::LedgerHasher> hasher_;  // hash state of the ledger file, while known
  bool appendable_ = false;                      // the next fold may append (a fresh run)
  std::size_t folded_count_ = 0;                 // of observations_, those in the file when loaded
  std::size_t unloaded_observations_ = 0;        // in the file but not in observations_ (verified record)
  std::set<std::string> run_ids_;                // of the observations in the file
  bool record_current_ = false;                  // <ledger>.verified describes the file
  std::map<std::string, store::RecordedRun> recorded_runs_;  // from <ledger>.verified, when loaded from it
  engine::Spend recorded_run_total_;             // this run's reported usage, when loaded from the record
  bool dirty_ = false;                           // the journal holds what the file does not
};

}  // namespace strata::app
