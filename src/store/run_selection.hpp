#pragma once
// Which run an event belongs to and which global run file holds it (usage-boundary spec
// §2.6, §2.3): decided under the locks, before the state checks and the appends.
#include <optional>
#include <string>

#include "event_log_internal.hpp"
#include "log_digest.hpp"

namespace strata::store::event_log {

// The pointer `<specs>/.cm-run.json` when it is one JSON object with a valid run id.
std::optional<OrderedJson> load_pointer(const std::string& path);

struct RunChoice {
  std::string run_id;
  bool new_run = false;  // counts as starting a run (index `running` row)
};

// §2.6. `project_log` is the project log's digest in specs mode, nullptr without specs.
RunChoice select_run(const ValidatedEvent& event, const std::optional<OrderedJson>& pointer,
                     const LogDigest* project_log);

// §2.3: the run file of `run_id` under `home` (the pointer's, the single existing one, or
// the one of `month`). Throws UsageError when several exist.
std::string select_global_log(const std::string& home, const std::string& run_id,
                              const std::optional<OrderedJson>& pointer, const std::string& month);

}  // namespace strata::store::event_log
