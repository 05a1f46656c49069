#pragma once
// The CM event-log writer (`cm-log-event`, usage-boundary spec §2), "Shape A": one call
// validates, takes the project lock then the global lock (flock, the same files as the
// Python/JS writers, so they interoperate on one machine), selects the run, checks the
// claim/completion state against the authoritative log, appends, mirrors and reports.
//
// Files: <specs>/运行日志.jsonl (authoritative), <specs>/.cm-run.json (pointer),
// <specs>/.cm-run.lock, <home>/.cm-write.lock, <home>/index.jsonl,
// <home>/runs/YYYY-MM/<run_id>.jsonl, with <home> = $CM_WORKFLOW_LOG_HOME or
// ~/.cm-workflow/logs. See docs/EVENT_LOG.md for the choices where the spec is silent.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace strata::store {

struct LogEventArgs {
  std::string workflow, event, runtime, detail;
  std::optional<std::string> phase, project, project_root, specs_dir, run_id, at, data_json;
};

struct LogEventOutcome {
  int exit_code = 0;                      // 0 written/deduplicated, 1 I/O failure, 2 usage/validation/state conflict
  std::string stdout_line;                // the §2.9 step-4 JSON line (without trailing newline), empty on failure
  std::vector<std::string> stderr_lines;  // messages WITHOUT the "cm-log-event: " prefix
};

// Runs the writer in-process exactly like `cm-log-event` with these flags would. Reads
// CM_WORKFLOW_LOG_HOME and HOME from the environment. Never throws for user/IO errors.
// The locks are held until it returns. Values of --data-json never appear in a message.
LogEventOutcome log_event(const LogEventArgs& args);

// ---- Building blocks, exposed for tests and for readers of the log ----

inline constexpr std::string_view kProjectLogName = "运行日志.jsonl";
inline constexpr std::string_view kPointerName = ".cm-run.json";
inline constexpr std::string_view kProjectLockName = ".cm-run.lock";
inline constexpr std::string_view kGlobalLockName = ".cm-write.lock";

// Python json.dumps(value, separators=(",", ":"), sort_keys=..., ensure_ascii=...):
// the exact bytes the reference writers put in the logs and hash for event ids.
// sort_keys orders members by code point; floats are written as Python repr.
std::string python_json(const nlohmann::ordered_json& value, bool sort_keys, bool ensure_ascii);

// Name-based UUID version 5 (SHA-1) in the URL namespace, lower-case 8-4-4-4-12.
std::string uuid5_url(std::string_view name);

// The deterministic event id (§2.9): uuid5_url of the canonical JSON of the record
// without `at` and `event_id`.
std::string event_id_for(const nlohmann::ordered_json& record);

// What a model event's short text members (effective_model, provider, node, feature, task)
// must be: non-blank, one line, at most 160 characters. The writer refuses an event otherwise.
bool is_short_event_text(std::string_view text);

}  // namespace strata::store
