#pragma once
// One verified model call through the CM boundary (usage-boundary spec §1): validate
// everything locally, claim the call id in the event log, send exactly one HTTPS request,
// print the text, record the usage event, and map the outcome to exit codes 0-4.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/model/cm/cm_packet.hpp"

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

// A path as the boundary takes it from the command line: "~" expanded from $HOME, made
// absolute, symlinks resolved where they exist (non-strict).
std::string resolved_path(const std::string& path);

// Where event-log writes go: the `cm-log-event` flags that stay the same for every write.
struct EventLogTarget {
  std::string workflow, runtime;
  std::optional<std::string> project_root, specs_dir, run_id;
};

// One write through the store's event-log writer (store::log_event, usage-boundary §2) in
// this process; the writer's stderr lines are captured as "cm-log-event: <line>\n".
EventWriteResult write_event_log(const EventLogTarget& target, const EventWrite& write);

// ---- The two events of a managed call (§1.5, §1.9), shared by `strata call` and the
// endpoint providers of `strata run` / `strata adjudicate` ----

// What the claim and the usage event of one call both carry.
struct ManagedCall {
  std::string workflow, stage, role, requested_model, call_id;
};

// What the usage event reports of the call's outcome.
struct CallResult {
  bool success = false;                         // outcome "success", else "error"
  model::cm::Usage usage;                       // §1.8, from the parsed response (none: unavailable)
  std::optional<std::string> effective_model;   // response.model, when valid
  std::int64_t duration_ms = 0;
  std::optional<int> attempt;                   // optional `attempt` member (1-based)
  std::optional<std::string> task;              // optional `task` member (one line, <= 160 characters)
};

// What a usage event records of a parsed response: its usage (§1.8) and its model name, which
// is left out when it contains the API key (an endpoint that echoes the key as its model
// must not get it into the log). `response` may be null (no JSON answer).
void describe_response(const model::Json* response, const std::string& api_key, CallResult& result);

// The `model_call`/`claimed` event (detail "<role> model call claimed").
EventWrite claim_event(const ManagedCall& call);
// The `model_usage`/`complete` event (detail "<role> model call success|error").
EventWrite usage_event(const ManagedCall& call, const CallResult& result);
// §1.5: nullopt when the writer accepted a new claim; otherwise the message saying why the
// call must not go ahead ("call_id already claimed; use a new call_id", ...).
std::optional<std::string> claim_refusal(const EventWriteResult& written);

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
