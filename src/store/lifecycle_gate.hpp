#pragma once
// The lifecycle step of the write sequence (usage-lifecycle spec §2.1 steps 2-8, §3): under
// the locks, after run selection and before any append.
#include <string>

#include "event_log_internal.hpp"
#include "state_index.hpp"

namespace strata::store::event_log {

// Refuses (UsageError with the spec's message) a `resource` or phased `test_run` candidate
// the run's state does not allow, and a task_done / done / run_done while the run holds a
// resource or an incomplete test run, or while that state cannot be read. An exact retry
// (the candidate's event id already in the authoritative log) always passes. `authoritative`
// is the loaded authoritative log of §2.2 (project log, or the global run file).
void check_lifecycle(const ValidatedEvent& candidate, const std::string& run_id, const std::string& event_id,
                     const IndexedLog& authoritative);

}  // namespace strata::store::event_log
