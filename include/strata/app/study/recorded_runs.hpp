#pragma once
// The per-run part of <ledger>.verified (store/verified_ledger.hpp) computed from observations:
// each run id's plan hash, execution keys and reported usage, so that a resume of a run with
// nothing left to run can answer from the record instead of reading the ledger.
#include <map>
#include <span>
#include <string>

#include "strata/model/json/json.hpp"
#include "strata/store/verified_ledger.hpp"

namespace strata::app {

// The runs of `observations` (verified, in ledger order): reported usage is summed in that
// order, as the run summary sums it.
std::map<std::string, store::RecordedRun> recorded_runs(std::span<const model::Json> observations);

}  // namespace strata::app
