#pragma once
// <ledger>.inputs: what each run id of a ledger was started with (issue 14, part 3), so a resume
// that would mix two setups in one run is caught. A sidecar Strata owns, never inside the sealed
// ledger: a ledger written by the reference or an older Strata simply has none.
#include <optional>
#include <string>

#include "strata/model/json/json.hpp"

namespace strata::store {

std::string run_inputs_path_for(const std::string& ledger_path);

// The record of `run_id` ({"planHash", "taskSuiteHash", "providerConfigHash",
// "repositoryConfigHash", "programs": [{"path", "size", "modifiedNs" (a decimal string), "sha256"}]}), or nullopt
// when the file or the run's entry is absent. A file that exists but cannot be read or parsed
// throws strata::Error naming it (it is not silently replaced).
std::optional<model::Json> read_run_inputs(const std::string& ledger_path, const std::string& run_id);

// Sets the entry of `run_id` (atomic write of the whole file, other runs' entries kept).
void write_run_inputs(const std::string& ledger_path, const std::string& run_id, const model::Json& inputs);

}  // namespace strata::store
