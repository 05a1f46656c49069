#pragma once
// The lifecycle section of the usage report: per kept run, the resources its mirror file
// leaves held and the test run it leaves incomplete (usage-lifecycle spec §2.3, §2.4, read
// with the writer's own state machines, model/cm/lifecycle_state). Only runs with something open
// (or whose state cannot be read) are listed, so a report of logs without lifecycle events
// stays byte-identical to the reference's. See docs/USAGE_REPORT.md.
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"

namespace strata::app {

struct JsonlRow;

struct OpenResource {
  std::string resource_id, resource_kind, phase;  // phase: acquired or cleanup_failed
};

struct RunLifecycleReport {
  std::string run_id;
  bool done = false;          // the index says the run is done
  bool unverifiable = false;  // a row breaks the lifecycle rules, or the file has unreadable lines
  std::vector<OpenResource> open_resources;  // sorted by id
  bool test_run_active = false;
  std::vector<std::string> open_cases;  // sorted
};

// The run's entry, or nothing when the run holds nothing open. `unreadable_lines`: reading
// the run file warned (invalid JSON, unreadable), as the writer then cannot verify the state.
std::optional<RunLifecycleReport> run_lifecycle(const std::string& run_id, bool done, const std::vector<JsonlRow>& rows,
                                                bool unreadable_lines);

// §3.4 addition: the value of the report's "lifecycle" key (a JSON array, compact).
std::string lifecycle_json(const std::vector<RunLifecycleReport>& runs);

// §3.5 addition: one "- lifecycle: ..." line per run.
std::vector<std::string> lifecycle_text(const std::vector<RunLifecycleReport>& runs);

}  // namespace strata::app
