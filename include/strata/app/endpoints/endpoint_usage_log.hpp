#pragma once
// The usage log of `strata run` and `strata adjudicate` (docs/ENDPOINTS.md, "Usage log").
// When it is configured, every attempt of an endpoint provider or adjudicator is a managed
// model call of usage-boundary spec §1: a `model_call` claim in the CM event log before its
// request and a `model_usage` event after it, with a call id of its own. The events are
// built like `strata call`'s (app/cm/model_call) and written by the store's event-log writer,
// on a thread of their own so the run's event loop never waits for a lock or an fsync.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "strata/app/cm/model_call.hpp"

namespace strata::app {

struct UsageLogSettings {
  std::string project_root;              // resolved, an existing directory (recorded as project_path)
  std::optional<std::string> specs_dir;  // resolved: the authoritative project log is <specs>/运行日志.jsonl
  std::optional<std::string> run_id;     // the CM run id; required without specs_dir
};

// The command-line values (empty: not given). nullopt when none is given; otherwise the
// checked settings. Throws strata::Error naming the option (`--usage-log-…`).
std::optional<UsageLogSettings> usage_log_settings(const std::string& project_root, const std::string& specs_dir,
                                                   const std::string& run_id);

class EndpointUsageLog {
 public:
  // Draws the invocation's random nonce (part of every call id).
  explicit EndpointUsageLog(UsageLogSettings settings);
  ~EndpointUsageLog();
  EndpointUsageLog(const EndpointUsageLog&) = delete;
  EndpointUsageLog& operator=(const EndpointUsageLog&) = delete;

  // The call id of one attempt: "<execution>-a<attempt>-<nonce>-<n>", where <execution> is
  // a short digest of what the call is about, <nonce> 16 random hex digits drawn once per
  // invocation and <n> counts the call ids this invocation made (so two are never equal,
  // and a resumed or repeated run never reuses one). Call on the run's io thread.
  std::string next_call_id(std::string_view execution, int attempt);

  // Writes the claim while the calling coroutine waits. Throws strata::Error (naming the
  // call id and the log) when it was not recorded or was refused: the request must not be
  // sent, and the run stops.
  boost::asio::awaitable<void> claim(const ManagedCall& call);

  // Writes the usage event. Never throws: when it is not recorded, a line on stderr says so
  // and counts().unrecorded grows (the claim stays unresolved); the attempt's outcome is
  // the caller's to keep.
  boost::asio::awaitable<void> complete(const ManagedCall& call, const CallResult& result);

  struct Counts {
    double claims = 0, usage_events = 0, unrecorded = 0;
  };
  const Counts& counts() const { return counts_; }

  // The authoritative log for messages: "<specs>/运行日志.jsonl", or the global run file
  // (once a write has named it; "the global log of run <id> in <home>" before).
  const std::string& log_description() const { return where_; }

 private:
  boost::asio::awaitable<EventWriteResult> write(std::string workflow, EventWrite event);
  void noted(const EventWriteResult& written);

  UsageLogSettings settings_;
  std::string nonce_, where_;
  unsigned long long sequence_ = 0;
  Counts counts_;
  std::set<std::string> notices_;     // writer notices already shown (degraded mirror, pointer)
  boost::asio::thread_pool pool_{1};  // one writer at a time: the log's own locks serialise them anyway
};

}  // namespace strata::app
