#pragma once
// `strata export`: a verified ledger's observations as rows for pandas, DuckDB or a spreadsheet,
// read an observation at a time (store::LedgerSource) and written a piece at a time.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/app/results/ledger_selection.hpp"
#include "strata/store/ledger_source.hpp"

namespace strata::app {

enum class ExportFormat { csv, jsonl };

// Writes the header (CSV) and one row per selected observation through `write`, in pieces of
// about 1 MiB. CSV reads the selection twice: its measurement columns are every name any
// selected observation has. Returns the number of rows.
std::size_t export_observations(const store::LedgerSource& ledger, const std::vector<std::size_t>& selection,
                                ExportFormat format, const std::function<void(std::string_view)>& write);

}  // namespace strata::app
