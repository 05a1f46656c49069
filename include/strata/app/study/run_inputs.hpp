#pragma once
// Changed inputs caught on resume (issue 14, part 3): the content hashes of a run's plan, suite,
// provider config and repository config, and a fingerprint (resolved path, size, modification
// time, SHA-256) of each provider program it launches, compared with what <ledger>.inputs
// recorded when the run started.
#include <string>
#include <vector>

#include "strata/app/study/run_preflight.hpp"
#include "strata/model/json/json.hpp"

namespace strata::app {

// {"planHash", "taskSuiteHash", "providerConfigHash", "repositoryConfigHash", "programs": [...]}
// for the run as it is about to start (each program read once, a piece at a time).
model::Json current_run_inputs(const StudyInputs& inputs, const RunPreflight& preflight);

// One line per difference between what a run was started with and what it would resume with:
//   "provider config changed since run <id> started: <old hash> -> <new hash>"
//   "provider program changed: <path> (sha256 <old> -> <new>)"
//   "provider program added since run <id> started: <path>"
std::vector<std::string> changed_inputs(const std::string& run_id, const model::Json& recorded, const model::Json& now);

}  // namespace strata::app
