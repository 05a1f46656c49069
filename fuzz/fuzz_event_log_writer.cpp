// Event-log lines as the CM event-log writer reads them before it appends (`strata usage
// log`, and the claim/usage events of `strata call`): store::log_event runs for real in a
// scratch directory (tmpfs when available) whose authoritative project log
// (<specs>/运行日志.jsonl) is the input, so the run selection (§2.6), the claim/completion
// state checks (§2.8), the duplicate handling and the run pointer (.cm-run.json) all read
// fuzzed lines. The state logic is private to event_log.cpp and reads files, so no smaller
// pure function exists to call.
//
// Input: byte 0 selects the event written (bits 0-2: model_call claim, managed model_usage,
// manual model_usage, run_start, done; bit 3: with an explicit --run-id); then the project
// log; after the first NUL byte, if any, the run pointer file.
//
// Invariants:
//  - exit status 0 or 2 (1 is an I/O failure, which nothing in the scratch directory causes);
//  - a refusal (2) leaves the project log byte for byte as it was;
//  - a write (0) reports one ASCII JSON line with a valid run id; the project log is the old
//    text plus exactly one appended line (none when deduplicated) whose event_id is the
//    reported one and the deterministic id of the record;
//  - a managed model_usage is written only after a claim of the same run and call id in
//    the log, and a claim only when no usage of that call id is there.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "store/event_log_internal.hpp"
#include "strata/store/event_log.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_event_log_writer {

using namespace strata;
using OrderedJson = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

const char* const kIdentity =
    R"("call_id":"call-0001","stage":"build","role":"implementer","adapter":"openai-compatible","requested_model":"gpt-test","source":"api","purpose":"cm-prd:build")";

struct Scratch {
  std::string project, specs, home, log, pointer;
};

const Scratch& scratch() {
  static const Scratch s = [] {
    const std::string root = fuzz::scratch_directory() + "/writer";
    Scratch made{root + "/project", root + "/specs", root + "/logs", "", ""};
    fs::create_directories(made.project);
    fs::create_directories(made.specs);
    made.log = made.specs + "/" + std::string(store::kProjectLogName);
    made.pointer = made.specs + "/" + std::string(store::kPointerName);
    ::setenv("CM_WORKFLOW_LOG_HOME", made.home.c_str(), 1);
    return made;
  }();
  return s;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool string_is(const OrderedJson& row, const char* key, const std::string& value) {
  const auto it = row.find(key);
  return it != row.end() && it->is_string() && it->get_ref<const std::string&>() == value;
}

// Does the log hold a row of this run and call with this event (and phase)?
bool log_has(const std::string& text, const std::string& run_id, const char* event, const char* phase) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const OrderedJson row = OrderedJson::parse(text.begin() + static_cast<std::ptrdiff_t>(start),
                                               text.begin() + static_cast<std::ptrdiff_t>(end), nullptr, false);
    start = end + 1;
    if (!row.is_object()) continue;
    if (string_is(row, "run_id", run_id) && string_is(row, "event", event) && string_is(row, "call_id", "call-0001") &&
        (phase == nullptr || string_is(row, "phase", phase)))
      return true;
  }
  return false;
}

}  // namespace

int test_one_input(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Scratch& s = scratch();
  const unsigned selector = data[0];
  const std::string_view rest = fuzz::as_text(data + 1, size - 1);
  const std::size_t nul = rest.find('\0');
  const std::string before(rest.substr(0, nul));

  std::error_code ec;
  fs::remove_all(s.home, ec);
  fs::remove(s.pointer, ec);
  fuzz::write_file(s.log, before);
  if (nul != std::string_view::npos) fuzz::write_file(s.pointer, rest.substr(nul + 1));

  store::LogEventArgs args;
  args.workflow = "cm-prd";
  args.runtime = "codex";
  args.project_root = s.project;
  args.specs_dir = s.specs;
  args.at = "2026-01-02T03:04:05+00:00";
  if (selector & 8) args.run_id = "fuzz-run-0001";
  const unsigned kind = (selector & 7) % 5;
  switch (kind) {
    case 0:
      args.event = "model_call", args.phase = "claimed";
      args.data_json = std::string("{") + kIdentity + "}";
      break;
    case 1:
    case 2:
      args.event = "model_usage", args.phase = "complete";
      args.data_json = std::string("{") + kIdentity +
                       R"(,"usage_state":"observed","input_tokens":10,"output_tokens":5,"duration_ms":7,"outcome":"success"})";
      if (kind == 2) args.data_json->replace(args.data_json->find("openai-compatible"), 17, "manual");
      break;
    case 3: args.event = "run_start", args.phase = "start", args.data_json = "{}"; break;
    default: args.event = "done", args.data_json = "{}"; break;
  }
  args.detail = args.event + " fuzz";

  const store::LogEventOutcome outcome = store::log_event(args);
  std::string messages;
  for (const auto& line : outcome.stderr_lines) messages += "\n  stderr: " + line;
  const std::string after = read_file(s.log);

  FUZZ_CHECK(outcome.exit_code == 0 || outcome.exit_code == 2,
             "log_event exit " + std::to_string(outcome.exit_code) + " in a healthy directory" + messages);
  if (outcome.exit_code == 2) {
    FUZZ_CHECK(after == before, "a refused event changed the project log" + messages);
    return 0;
  }

  for (char c : outcome.stdout_line)
    FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F, "stdout line is not printable ASCII");
  const OrderedJson result = OrderedJson::parse(outcome.stdout_line, nullptr, false);
  FUZZ_CHECK(result.is_object() && result.contains("event_id") && result.contains("run_id"),
             "stdout line is not the result object: " + outcome.stdout_line);
  const std::string run_id = result["run_id"].get<std::string>();
  FUZZ_CHECK(store::event_log::is_run_id(run_id), "reported run id is not valid: " + run_id);
  FUZZ_CHECK(after.compare(0, before.size(), before) == 0, "the project log was rewritten, not appended to");
  const bool degraded = result.value("degraded", false);
  if (result.value("deduplicated", false)) {
    FUZZ_CHECK(degraded || after == before, "a deduplicated event was appended");
  } else if (!degraded) {
    const std::string appended = after.substr(before.size());
    FUZZ_CHECK(!appended.empty() && appended.back() == '\n' && appended.find('\n') == appended.size() - 1,
               "not exactly one line appended: " + fuzz::excerpt(appended));
    const OrderedJson record = OrderedJson::parse(appended, nullptr, false);
    FUZZ_CHECK(record.is_object() && record.value("event_id", "") == result["event_id"].get<std::string>(),
               "appended record is not the reported event: " + fuzz::excerpt(appended));
    FUZZ_CHECK(store::event_id_for(record) == result["event_id"].get<std::string>(), "appended event id is not deterministic");
    FUZZ_CHECK(string_is(record, "run_id", run_id), "appended record names another run");
  }

  if (kind == 1)
    FUZZ_CHECK(log_has(before, run_id, "model_call", "claimed"), "managed model_usage written without a prior claim in the log");
  if (kind == 0 && !result.value("deduplicated", false))
    FUZZ_CHECK(!log_has(before, run_id, "model_usage", nullptr), "claim written for a call id that already completed");
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("event_log_writer", &test_one_input);

}  // namespace fuzz_event_log_writer
