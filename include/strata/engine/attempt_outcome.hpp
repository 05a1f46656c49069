#pragma once
// The attempt outcome rules of spec §3.5: what a finished process means for the ledger.
#include <cstddef>
#include <string>

#include "strata/exec/process_spec.hpp"
#include "strata/model/study/observation_builder.hpp"

namespace strata::engine {

// A complete provider output counts only when it is exactly one JSON text (spec §3.5).
bool is_one_json_text(const std::string& text);

// `output_limit` is min(provider.maxOutputBytes, plan.budget.maxOutputBytes).
model::AttemptRecord attempt_record(const exec::ProcessResult& result, std::size_t output_limit);

}  // namespace strata::engine

#include "strata/model/adjudication/adjudication.hpp"

namespace strata::engine {

// The judge's process status (§4.3): non-zero exits and spawn errors are `unavailable`.
model::JudgeRecord judge_record(const exec::ProcessResult& result);

// The same for an endpoint judge's attempt (docs/ENDPOINTS.md): a failed or unreachable
// endpoint is `unavailable`; the other statuses keep their meaning.
model::JudgeRecord judge_record(const model::AttemptRecord& attempt);

}  // namespace strata::engine
