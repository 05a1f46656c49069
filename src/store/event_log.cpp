// The decide-and-write sequence of the CM event-log writer, Shape A (usage-boundary spec
// §2.4, §2.6, §2.8, §2.9; usage-lifecycle spec §2.1): validate, lock (project then global),
// select the run, check the lifecycle and the claim/completion state, append to the project
// log, mirror into the private global log and index, replace the run pointer, report one
// ASCII-only JSON line. The logs are read through their state indexes (state_index.hpp).
#include "strata/store/event_log.hpp"

#include <algorithm>
#include <cstdlib>

#include "event_log_internal.hpp"
#include "lifecycle_gate.hpp"
#include "run_selection.hpp"
#include "state_index.hpp"
#include "strata/model/json/utf.hpp"

namespace strata::store {
namespace {

using namespace event_log;

constexpr const char* kGlobalDegradeDetail = "全局日志镜像写入失败，项目日志继续作为权威来源";
constexpr const char* kPointerDegradeDetail = "运行指针写入失败，将从权威项目日志恢复";

bool is_terminal(const std::string& event) { return event == "done" || event == "run_done"; }

std::string line_of(const OrderedJson& value) { return python_json(value, false, false) + "\n"; }

bool string_equals(const OrderedJson& row, const char* key, const std::string& expected) {
  const auto it = row.find(key);
  return it != row.end() && it->is_string() && it->get_ref<const std::string&>() == expected;
}

const OrderedJson* find_event(const std::vector<OrderedJson>& rows, const std::string& event_id) {
  for (const auto& row : rows)
    if (string_equals(row, "event_id", event_id)) return &row;
  return nullptr;
}

bool log_has_event(const std::string& path, const std::string& event_id) {
  return find_event(read_jsonl_objects(path), event_id) != nullptr;
}

// The first model_usage row (or model_call/claimed row) of run + call id.
const OrderedJson* find_call_row(const std::vector<OrderedJson>& rows, const std::string& run_id,
                                 const std::string& call_id, bool claim) {
  for (const auto& row : rows) {
    if (string_equals(row, "run_id", run_id) && string_equals(row, "event", claim ? "model_call" : "model_usage") &&
        (!claim || string_equals(row, "phase", "claimed")) && string_equals(row, "call_id", call_id))
      return &row;
  }
  return nullptr;
}

// str(event.get(field, "")) of the reference, for the eight identity fields.
std::vector<std::string> call_identity(const OrderedJson& row) {
  std::vector<std::string> identity;
  for (const char* field : {"workflow", "runtime", "stage", "role", "adapter", "requested_model", "source", "purpose"}) {
    const auto it = row.find(field);
    if (it == row.end()) identity.emplace_back();
    else if (it->is_string()) identity.push_back(it->get<std::string>());
    else if (it->is_null()) identity.emplace_back("None");
    else if (it->is_boolean()) identity.emplace_back(it->get<bool>() ? "True" : "False");
    else identity.push_back(python_json(*it, false, false));
  }
  return identity;
}

class Writer {
 public:
  Writer(const LogEventArgs& args, LogEventOutcome& outcome) : args_(args), out_(outcome) {}

  void run() {
    v_ = validate_event(args_);
    const char* configured_home = std::getenv("CM_WORKFLOW_LOG_HOME");
    home_ = resolve_path(configured_home != nullptr ? configured_home : "~/.cm-workflow/logs");
    if (!model::is_valid_utf8(home_)) throw UsageError("CM_WORKFLOW_LOG_HOME must be a valid UTF-8 path");
    if (specs()) project_log_ = *v_.specs_dir + "/" + std::string(kProjectLogName);

    if (!take_locks()) return;
    if (specs()) {
      pointer_ = load_pointer(*v_.specs_dir + "/" + std::string(kPointerName));
      project_ = IndexedLog(project_log_, false);
      project_.load();
    }
    const RunChoice run = select_run(v_, pointer_, specs() ? &project_.digest() : nullptr);
    run_id_ = run.run_id;
    new_run_ = run.new_run;
    if (!specs()) load_global_log(select_global_log(home_, run_id_, pointer_, v_.at.month));
    build_record();
    check_lifecycle(v_, run_id_, event_id_, specs() ? project_ : global_);
    check_call_state();
    if (!write_project_log()) return;
    // after the project append (boundary spec §6.9)
    if (specs()) global_log_ = select_global_log(home_, run_id_, pointer_, at_.month);
    if (!write_global_mirror()) return;
    if (!write_pointer()) return;
    report();
  }

 private:
  bool specs() const { return v_.specs_dir.has_value(); }

  void load_global_log(const std::string& path) {
    global_log_ = path;
    global_ = IndexedLog(path, true);
    global_.load();
  }

  bool fail(int code, std::string message) {
    out_.exit_code = code;
    out_.stderr_lines.push_back(std::move(message));
    return false;
  }

  bool take_locks() {
    if (specs()) {
      try {
        project_lock_ = acquire_file_lock(*v_.specs_dir + "/" + std::string(kProjectLockName), false);
      } catch (const OsError& e) {
        return fail(1, "project run lock failed: " + e.type());
      }
    }
    try {
      ensure_private_directory(home_);
      global_lock_ = acquire_file_lock(home_ + "/" + std::string(kGlobalLockName), true);
    } catch (const OsError& e) {
      if (!specs()) return fail(1, "global-only log lock failed: " + e.type());
      global_lock_error_ = e;  // the mirror step degrades with this error
    }
    return true;
  }

  // `log_file` of the index: the run file relative to the home.
  std::string relative_log_file() const {
    const std::string prefix = home_ == "/" ? "/" : home_ + "/";
    if (global_log_.compare(0, prefix.size(), prefix) == 0) return global_log_.substr(prefix.size());
    // A month directory that is a symlink out of the home: keep the lexical layout.
    const std::size_t file = global_log_.rfind('/');
    const std::size_t month = global_log_.rfind('/', file - 1);
    return "runs" + global_log_.substr(month);
  }

  // §2.9 record, key order as written.
  void build_record() {
    at_ = v_.at;
    record_ = OrderedJson::object();
    record_["schema_version"] = 1;
    record_["run_id"] = run_id_;
    record_["at"] = at_.text;
    record_["workflow"] = v_.workflow;
    record_["event"] = v_.event;
    record_["runtime"] = v_.runtime;
    record_["project"] = v_.project;
    record_["detail"] = v_.detail;
    if (v_.phase) record_["phase"] = *v_.phase;
    if (v_.project_root) record_["project_path"] = *v_.project_root;
    if (v_.specs_dir) record_["specs_path"] = *v_.specs_dir;
    for (const auto& [key, value] : v_.data.items()) record_[key] = value;
    event_id_ = event_id_for(record_);
    record_["event_id"] = event_id_;
  }

  // §2.8, against the authoritative log.
  void check_call_state() const {
    if (v_.event != "model_usage" && v_.event != "model_call") return;
    // Whole rows are needed here (the claim's identity); model events are few per run.
    const std::vector<OrderedJson> rows = read_jsonl_objects(specs() ? project_log_ : global_log_);
    const std::string call_id = v_.data["call_id"].get<std::string>();
    const OrderedJson* usage = find_call_row(rows, run_id_, call_id, false);
    const OrderedJson* claim = find_call_row(rows, run_id_, call_id, true);
    if (v_.event == "model_usage") {
      if (usage != nullptr && !string_equals(*usage, "event_id", event_id_))
        throw UsageError("model_usage call_id already used with different payload");
      if (string_equals(v_.data, "adapter", "openai-compatible") && claim == nullptr)
        throw UsageError("managed model_usage requires a prior model_call claim");
      if (claim != nullptr && call_identity(*claim) != call_identity(record_))
        throw UsageError("model_usage identity does not match model_call claim");
    } else {
      if (usage != nullptr) throw UsageError("model_call call_id already completed");
      if (claim != nullptr && !string_equals(*claim, "event_id", event_id_))
        throw UsageError("model_call call_id already claimed with different payload");
    }
  }

  // §2.9 step 1. A duplicate's stored row (with its original `at`) is what gets mirrored.
  bool write_project_log() {
    if (!specs()) return true;
    if (const auto stored = project_.row_with_event_id(event_id_)) {
      project_duplicate_ = true;
      record_ = *stored;
      const auto at = stored->find("at");
      if (at != stored->end() && at->is_string()) {
        try {
          at_ = parse_timestamp(at->get<std::string>());
        } catch (const UsageError&) {
          // an unparseable stored `at` (the reference would crash): keep this write's
        }
      }
      return true;
    }
    try {
      append_line(project_log_, line_of(record_), false);
    } catch (const OsError& e) {
      return fail(1, "authoritative project log write failed: " + e.type());
    }
    project_.after_append();
    return true;
  }

  OrderedJson index_row(const char* status) const {
    OrderedJson row = OrderedJson::object();
    row["schema_version"] = 1;
    row["at"] = at_.text;
    row["run_id"] = run_id_;
    row["status"] = status;
    row["workflow"] = v_.workflow;
    row["runtime"] = v_.runtime;
    row["project"] = v_.project;
    if (std::string(status) == "running") {
      row["project_path"] = v_.project_root ? OrderedJson(*v_.project_root) : OrderedJson(nullptr);
      row["specs_path"] = v_.specs_dir ? OrderedJson(*v_.specs_dir) : OrderedJson(nullptr);
    }
    row["log_file"] = relative_log_file();
    return row;
  }

  static bool index_has_status(const std::vector<OrderedJson>& index, const std::string& run_id, const char* status) {
    return std::any_of(index.begin(), index.end(), [&](const OrderedJson& row) {
      return string_equals(row, "run_id", run_id) && string_equals(row, "status", status);
    });
  }

  // The `degrade` event of §2.9 (key order as the reference writes it).
  OrderedJson degrade_event(const char* phase, const char* detail, const std::string& error_type) const {
    OrderedJson event = OrderedJson::object();
    event["schema_version"] = 1;
    event["run_id"] = run_id_;
    event["at"] = at_.text;
    event["workflow"] = v_.workflow;
    event["event"] = "degrade";
    event["phase"] = phase;
    event["runtime"] = v_.runtime;
    event["project"] = v_.project;
    event["detail"] = detail;
    event["error_type"] = error_type;
    if (v_.project_root) event["project_path"] = *v_.project_root;
    if (v_.specs_dir) event["specs_path"] = *v_.specs_dir;
    event["event_id"] = event_id_for(event);
    return event;
  }

  // §2.9 step 2.
  bool write_global_mirror() {
    try {
      if (global_lock_error_) throw *global_lock_error_;
      ensure_private_directory(home_);
      ensure_private_directory(home_ + "/runs");
      ensure_private_directory(global_log_.substr(0, global_log_.rfind('/')));
      if (global_.path() != global_log_) load_global_log(global_log_);
      global_duplicate_ = global_.digest().event_offset(event_id_).has_value();
      if (!global_duplicate_) {
        append_line(global_log_, line_of(record_), true);
        global_.after_append();
      }
      const std::string index_path = home_ + "/index.jsonl";
      if (new_run_ && !index_has_status(read_jsonl_objects(index_path), run_id_, "running"))
        append_line(index_path, line_of(index_row("running")), true);
      if (is_terminal(v_.event) && !index_has_status(read_jsonl_objects(index_path), run_id_, "done"))
        append_line(index_path, line_of(index_row("done")), true);
      global_written_ = true;
    } catch (const OsError& e) {
      if (!specs()) return fail(1, "global-only log write failed: " + e.type());
      degraded_ = true;
      const OrderedJson degrade = degrade_event("global_log", kGlobalDegradeDetail, e.type());
      try {
        if (!log_has_event(project_log_, degrade["event_id"].get<std::string>()))
          append_line(project_log_, line_of(degrade), false);
      } catch (const OsError& project_error) {
        return fail(1, "project degradation log failed: " + project_error.type());
      }
      out_.stderr_lines.emplace_back("global mirror unavailable; project log retained");
    }
    return true;
  }

  // §2.9 step 3.
  bool write_pointer() {
    if (!specs()) return true;
    OrderedJson pointer = OrderedJson::object();
    pointer["schema_version"] = 1;
    pointer["run_id"] = run_id_;
    pointer["workflow"] = v_.workflow;
    pointer["status"] = is_terminal(v_.event) ? "done" : "running";
    pointer["global_log"] = global_log_;
    pointer["global_written"] = global_written_;
    pointer["updated_at"] = at_.text;
    try {
      write_pointer_file(*v_.specs_dir + "/" + std::string(kPointerName), line_of(pointer));
      pointer_written_ = true;
    } catch (const OsError& e) {
      pointer_written_ = false;
      degraded_ = true;
      const OrderedJson degrade = degrade_event("run_pointer", kPointerDegradeDetail, e.type());
      const std::string id = degrade["event_id"].get<std::string>();
      try {
        if (!log_has_event(project_log_, id)) append_line(project_log_, line_of(degrade), false);
      } catch (const OsError& project_error) {
        return fail(1, "run-pointer degradation log failed: " + project_error.type());
      }
      if (global_written_) {
        try {
          if (!log_has_event(global_log_, id)) append_line(global_log_, line_of(degrade), true);
        } catch (const OsError&) {
          // best effort, as in the reference: the project log holds the degrade event
        }
      }
      out_.stderr_lines.emplace_back("active-run pointer unavailable; project log recovery retained");
    }
    return true;
  }

  // §2.9 step 4.
  void report() {
    OrderedJson result = OrderedJson::object();
    result["event_id"] = event_id_;
    result["run_id"] = run_id_;
    result["project_log"] = specs() ? OrderedJson(project_log_) : OrderedJson(nullptr);
    result["global_log"] = global_log_;
    result["global_written"] = global_written_;
    result["pointer_written"] = pointer_written_ ? OrderedJson(*pointer_written_) : OrderedJson(nullptr);
    result["deduplicated"] = specs() ? project_duplicate_ : global_duplicate_;
    result["degraded"] = degraded_;
    out_.exit_code = 0;
    out_.stdout_line = python_json(result, false, /*ensure_ascii=*/true);
  }

  const LogEventArgs& args_;
  LogEventOutcome& out_;
  ValidatedEvent v_;
  std::string home_, project_log_, global_log_;
  FileLock project_lock_, global_lock_;  // released when the writer is destroyed
  std::optional<OsError> global_lock_error_;
  std::optional<OrderedJson> pointer_;
  std::string run_id_;
  bool new_run_ = false;
  Timestamp at_;
  OrderedJson record_;
  std::string event_id_;
  IndexedLog project_, global_;  // the project log and the global run file, read through their state indexes
  bool project_duplicate_ = false, global_duplicate_ = false, global_written_ = false, degraded_ = false;
  std::optional<bool> pointer_written_;
};

}  // namespace

LogEventOutcome log_event(const LogEventArgs& args) {
  LogEventOutcome outcome;
  const auto refuse = [&outcome](int code, std::string message) {
    outcome.exit_code = code;
    outcome.stdout_line.clear();
    outcome.stderr_lines.push_back(std::move(message));
    return outcome;
  };
  try {
    Writer writer(args, outcome);
    writer.run();
    if (outcome.exit_code != 0) outcome.stdout_line.clear();
    return outcome;
  } catch (const UsageError& e) {
    return refuse(2, e.what());
  } catch (const OsError& e) {
    return refuse(1, "event log failed: " + e.type());
  } catch (const std::exception& e) {
    // Never a value of --data-json: nothing here formats one into a message.
    return refuse(1, std::string("event log failed: ") + e.what());
  }
}

}  // namespace strata::store
