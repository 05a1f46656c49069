#pragma once
// What `strata run` is doing now, for `strata view` (docs/VIEWER.md, "Live"): <ledger>.live,
// rewritten every second while the run's executions run and removed when they end. It holds the
// executions running, their attempt and start, and the budget spent, reserved and its limit: what
// the journal, which holds only finished work, cannot say. It is a view of the moment, not a
// record: written to a temporary file and renamed over the last one (never seen half written),
// without fsync. A run that was killed leaves it behind; its pid then names no process and its
// time stops, and a reader says the run is not running. Writing it never fails a run.
#include <string>

#include "strata/model/json/json.hpp"

namespace strata::app {

std::string live_state_path_for(const std::string& ledger_path);

// Replaces <ledger>.live with `state`; false when it could not (a full disk, no descriptor).
bool write_live_state(const std::string& ledger_path, const model::Json& state);

void remove_live_state(const std::string& ledger_path);

}  // namespace strata::app
