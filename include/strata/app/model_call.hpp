#pragma once
// One verified model call through the CM boundary (usage-boundary spec §1): validate
// everything locally, claim the call id in the event log, send exactly one HTTPS request,
// print the text, record the usage event, and map the outcome to exit codes 0-4.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::app {

struct CallOptions {
  std::string workflow, stage, role, runtime, requested_model, call_id, project_root;
  std::optional<std::string> specs_dir, run_id;
  int timeout_seconds = 120;
};

// One event-log write, as the boundary asks for it; the caller supplies the writer (the
// event log of usage-boundary §2, or a test double) with workflow, runtime, project root,
// specs dir and run id already bound.
struct EventWrite {
  std::string event, phase, detail, data_json;
};
struct EventWriteResult {
  int exit_code = 1;            // 0 written or deduplicated
  std::string stdout_line;      // the writer's JSON line
  std::string stderr_text;      // captured, never forwarded
};
using EventWriter = std::function<EventWriteResult(const EventWrite&)>;

struct CallOutcome {
  int exit_code = 2;
  std::vector<std::string> messages;  // stderr lines, without the program prefix
};

// `environment` holds at least the CM_OPENAI_COMPATIBLE_* variables; `read_stdin` returns
// up to `limit` bytes; `write_stdout` returns false when the text could not be written.
// `ca_file` empty: the system trust store.
CallOutcome perform_model_call(const CallOptions& options, const std::map<std::string, std::string>& environment,
                               const std::function<std::string(std::size_t limit)>& read_stdin,
                               const EventWriter& write_event, const std::function<bool(const std::string&)>& write_stdout,
                               const std::string& ca_file = {});

}  // namespace strata::app
