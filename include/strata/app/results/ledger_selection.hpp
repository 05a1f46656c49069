#pragma once
// Which observations of a ledger a results command (export, metrics) works on.
#include <cstddef>
#include <string>
#include <vector>

#include "strata/store/ledger_source.hpp"

namespace strata::app {

// The observations of the given run ids (all when none is given), in ledger order. Throws
// strata::Error naming the ledger for a run id it has no observation of.
std::vector<std::size_t> select_observations(const store::LedgerSource& ledger, const std::vector<std::string>& run_ids,
                                             const std::string& ledger_path);

}  // namespace strata::app
