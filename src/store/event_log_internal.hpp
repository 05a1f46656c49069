#pragma once
// Private pieces of the CM event-log writer (include/strata/store/event_log.hpp):
//   event_log_json.cpp        Python-compatible JSON text, strict --data-json parsing, UUIDv5
//   event_log_validation.cpp  the §2.2 / §2.5 / §2.7 checks, --at, paths (no writes)
//   event_log_files.cpp       flock locks, appends with fsync, JSONL scans, atomic pointer
//   event_log.cpp             the decide-and-write sequence (§2.8, §2.9)
//   run_selection.cpp         run selection (§2.6) and the global run file (§2.3)
//   lifecycle_gate.cpp        resource / test_run refusals and completion gating (usage-lifecycle.md)
//   log_digest.cpp            what one pass over a log establishes (ids, runs, lifecycle state)
//   state_index.cpp           a log read through the state index kept beside it
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/store/event_log.hpp"

namespace strata::store::event_log {

using OrderedJson = nlohmann::ordered_json;

// A refusal with exit 2 (usage, validation, state conflict). The message is the spec's.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An operating-system failure. `type` is the Python exception class the reference would
// raise for the same errno (FileExistsError, PermissionError, TimeoutError, ...): it
// appears in messages and in `degrade` events, whose ids therefore match the reference's.
class OsError : public std::runtime_error {
 public:
  OsError(int error_number, std::string type)
      : std::runtime_error(type), error_number_(error_number), type_(std::move(type)) {}
  int error_number() const noexcept { return error_number_; }
  const std::string& type() const noexcept { return type_; }

 private:
  int error_number_;
  std::string type_;
};

// Python's OSError subclass name for an errno value.
std::string python_error_type(int error_number);
[[noreturn]] void throw_os_error(int error_number);

// ---- text rules (event_log_validation.cpp) ----
bool is_identifier(std::string_view text);  // ^[A-Za-z][A-Za-z0-9._-]{0,63}$
bool is_call_id(std::string_view text);     // ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$
bool is_run_id(std::string_view text);      // ^[A-Za-z0-9][A-Za-z0-9._-]{7,127}$
// Code points (an ill-formed byte counts as one, as Python's surrogateescape does).
std::size_t code_points(std::string_view text);
// True when nothing is left after Python's str.strip() (Unicode whitespace).
bool is_blank(std::string_view text);
// Python repr() of a str, for the identifier messages.
std::string python_repr(std::string_view text);

// ---- timestamps ----
struct Timestamp {
  std::string text;   // YYYY-MM-DDTHH:MM:SS±HH:MM
  std::string month;  // YYYY-MM in the timestamp's own offset
};
// --at (§2.2): nullopt = now in local time with the local offset. Throws UsageError.
Timestamp parse_timestamp(const std::optional<std::string>& raw);

// ---- --data-json (§2.5) and model events (§2.7); throw UsageError ----
// Strict JSON object (no BOM, NaN, non-finite numbers or integers beyond 64 bits).
OrderedJson parse_strict_object(const std::string& raw);
OrderedJson parse_data_json(const std::string& raw, const std::string& event);
void validate_model_call(const std::optional<std::string>& phase, const OrderedJson& data);
void validate_model_usage(const std::optional<std::string>& phase, const OrderedJson& data);

// ---- paths ----
// Path(raw).expanduser().resolve(strict=False): "~" expanded, made absolute, symlinks of
// the existing prefix resolved, "." and ".." collapsed, no trailing slash.
std::string resolve_path(std::string_view raw);
bool is_directory(const std::string& path);     // follows symlinks
bool is_regular_file(const std::string& path);  // follows symlinks

// Everything checked before any lock or write (§2.2, §2.5, §2.7, explicit --run-id).
struct ValidatedEvent {
  std::string workflow, event, runtime, detail, project;
  std::optional<std::string> phase, run_id;
  std::optional<std::string> project_root, specs_dir;  // resolved
  OrderedJson data;                                    // object, input key order
  Timestamp at;
};
ValidatedEvent validate_event(const LogEventArgs& args);

// ---- files (event_log_files.cpp); failures throw OsError ----

// An exclusive flock held until destruction (the descriptor is closed).
class FileLock {
 public:
  FileLock() = default;
  explicit FileLock(int fd) : fd_(fd) {}
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

 private:
  int fd_ = -1;
};

// Opens the lock file for append (mode 0600 when private), writes "0" if it is empty and
// polls flock(LOCK_EX|LOCK_NB) every 50 ms for up to `timeout_ms`; then TimeoutError.
FileLock acquire_file_lock(const std::string& path, bool private_file, int timeout_ms = 10000);

// mkdir -p (mode 0777 & ~umask), then chmod 0700.
void ensure_private_directory(const std::string& path);
// mkdir -p (mode 0777 & ~umask) like Path.mkdir(parents=True, exist_ok=True).
void make_directories(const std::string& path);

// One write(O_APPEND) of `line` (which ends in LF) and fsync; the file is created 0600
// (private) or 0644, and a private file is chmod-ed 0600 again afterwards.
void append_line(const std::string& path, const std::string& line, bool private_file);

// The JSON objects of a JSONL file, in order; blank lines, invalid JSON and non-objects
// are skipped. A missing or unreadable file gives an empty list. Never throws.
std::vector<OrderedJson> read_jsonl_objects(const std::string& path);

// Replaces `path` by `content` through `<name>.tmp.<pid>.<32 hex>` + rename, mode 0644.
void write_pointer_file(const std::string& path, const std::string& content);

// 32 random lower-case hex digits (a UUID4's hex without its version bits is enough here).
std::string random_hex(std::size_t digits);

}  // namespace strata::store::event_log
