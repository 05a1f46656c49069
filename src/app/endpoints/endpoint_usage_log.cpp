#include "strata/app/endpoints/endpoint_usage_log.hpp"

#include <openssl/rand.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "strata/error.hpp"
#include "strata/model/cm/cm_packet.hpp"
#include "strata/model/json/json.hpp"

namespace strata::app {
namespace {

namespace asio = boost::asio;

bool is_directory(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

// 16 lower-case hex digits from the system's random source.
std::string random_nonce() {
  unsigned char bytes[8];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw Error("Usage log: no random bytes for the call ids.");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (const unsigned char b : bytes) {
    text += kHex[b >> 4];
    text += kHex[b & 15];
  }
  return text;
}

// The writer's stderr lines without their "cm-log-event: " prefix, joined by "; ".
std::string writer_detail(const EventWriteResult& written) {
  static constexpr std::string_view kPrefix = "cm-log-event: ";
  std::string detail;
  std::size_t start = 0;
  while (start < written.stderr_text.size()) {
    std::size_t end = written.stderr_text.find('\n', start);
    if (end == std::string::npos) end = written.stderr_text.size();
    std::string_view line = std::string_view(written.stderr_text).substr(start, end - start);
    if (line.substr(0, kPrefix.size()) == kPrefix) line.remove_prefix(kPrefix.size());
    if (!line.empty()) detail += (detail.empty() ? "" : "; ") + std::string(line);
    start = end + 1;
  }
  return detail;
}

}  // namespace

std::optional<UsageLogSettings> usage_log_settings(const std::string& project_root, const std::string& specs_dir,
                                                   const std::string& run_id) {
  if (project_root.empty() && specs_dir.empty() && run_id.empty()) return std::nullopt;
  if (project_root.empty())
    throw Error("--usage-log-project-root is required with --usage-log-specs-dir or --usage-log-run-id.");
  // In the order `strata call` checks its flags (usage-boundary §1.2).
  UsageLogSettings settings;
  if (!run_id.empty()) {
    if (!model::cm::is_run_id(run_id))
      throw Error("--usage-log-run-id is not valid: 8-128 letters, digits, '.', '_' or '-', starting with a letter or digit.");
    settings.run_id = run_id;
  }
  settings.project_root = resolved_path(project_root);
  if (!is_directory(settings.project_root))
    throw Error("--usage-log-project-root is not an existing directory: " + project_root);
  if (!specs_dir.empty()) {
    settings.specs_dir = resolved_path(specs_dir);
    if (!is_directory(*settings.specs_dir)) throw Error("--usage-log-specs-dir is not an existing directory: " + specs_dir);
  }
  // Without a specs dir the writer would start a new CM run for every event.
  if (!settings.specs_dir && !settings.run_id)
    throw Error("--usage-log-run-id is required without --usage-log-specs-dir.");
  return settings;
}

EndpointUsageLog::EndpointUsageLog(UsageLogSettings settings) : settings_(std::move(settings)), nonce_(random_nonce()) {
  if (settings_.specs_dir) {
    where_ = *settings_.specs_dir + "/运行日志.jsonl";
  } else {
    const char* home = std::getenv("CM_WORKFLOW_LOG_HOME");
    where_ = "the global log of run " + *settings_.run_id + " in " +
             resolved_path(home != nullptr ? home : "~/.cm-workflow/logs");
  }
}

EndpointUsageLog::~EndpointUsageLog() = default;

std::string EndpointUsageLog::next_call_id(std::string_view execution, int attempt) {
  std::string id = std::string(execution.empty() ? "call" : execution) + "-a" + std::to_string(attempt) + "-" + nonce_ +
                   "-" + std::to_string(++sequence_);
  if (!model::cm::is_call_id(id)) throw Error("Usage log: cannot form a valid call id for " + std::string(execution) + ".");
  return id;
}

// Callers pass named values: g++ 12 mishandles some temporaries of a co_await expression.
asio::awaitable<EventWriteResult> EndpointUsageLog::write(std::string workflow, EventWrite event) {
  const EventLogTarget target{std::move(workflow), "unknown", settings_.project_root, settings_.specs_dir, settings_.run_id};
  EventWriteResult written;
  // The writer blocks (flock polling, fsync): it runs on pool_ while this frame waits, as
  // the journal's fsyncs do (co_spawn there; the locals live in this suspended frame).
  co_await asio::co_spawn(
      pool_,
      [&]() -> asio::awaitable<void> {
        try {
          written = write_event_log(target, event);
        } catch (const std::exception& e) {
          written = EventWriteResult{1, {}, std::string("cm-log-event: event log failed: ") + e.what() + "\n"};
        }
        co_return;
      },
      asio::use_awaitable);
  noted(written);
  co_return written;
}

// Back on the io thread: name the log file the writer used, and show its notices (a
// degraded global mirror or run pointer) once each.
void EndpointUsageLog::noted(const EventWriteResult& written) {
  if (written.exit_code != 0) return;
  if (!settings_.specs_dir && where_.rfind("the global log", 0) == 0) {
    const model::Json line = model::Json::parse(written.stdout_line, nullptr, false);
    if (line.is_object() && line.contains("global_log") && line["global_log"].is_string())
      where_ = line["global_log"].get<std::string>();
  }
  const std::string detail = writer_detail(written);
  if (!detail.empty() && notices_.insert(detail).second) std::fprintf(stderr, "strata: usage log: %s\n", detail.c_str());
}

asio::awaitable<void> EndpointUsageLog::claim(const ManagedCall& call) {
  EventWrite claim = claim_event(call);  // named: see write()
  const EventWriteResult written = co_await write(call.workflow, std::move(claim));
  if (const auto refusal = claim_refusal(written)) {
    const std::string detail = writer_detail(written);
    throw Error("Usage log: model call " + call.call_id + " could not be claimed in " + where_ + ": " + *refusal +
                (detail.empty() ? "" : " (" + detail + ")") +
                ". No request was sent for it and nothing more is started; everything already recorded is kept: "
                "re-run the same command once the log can be written.");
  }
  ++counts_.claims;
}

asio::awaitable<void> EndpointUsageLog::complete(const ManagedCall& call, const CallResult& result) {
  EventWrite usage = usage_event(call, result);  // named: see write()
  const EventWriteResult written = co_await write(call.workflow, std::move(usage));
  if (written.exit_code == 0) {
    ++counts_.usage_events;
    co_return;
  }
  ++counts_.unrecorded;
  const std::string detail = writer_detail(written);
  const std::string why = detail.empty() ? std::string() : " (" + detail + ")";
  std::fprintf(stderr,
               "strata: usage log: the usage event of model call %s could not be recorded in %s%s; the attempt's outcome "
               "is kept and the claim stays unresolved (do not repeat the call to repair the log)\n",
               call.call_id.c_str(), where_.c_str(), why.c_str());
}

}  // namespace strata::app
