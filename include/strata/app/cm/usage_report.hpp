#pragma once
// The usage report (usage-boundary spec §3, `cm-usage-report`): reads only the global
// event-log mirror (`<home>/index.jsonl` and the run files it names), never writes, and
// summarises the model calls of the most recent runs.
//
// The logic is split so that it can be driven without files: parse_jsonl() turns text
// into rows, select_runs() picks runs from index rows, UsageTally runs the two passes of
// §3.3 over rows, and format_*() render the result. build_usage_report() is the only
// part that touches the file system.
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "strata/app/cm/usage_report_lifecycle.hpp"
#include "strata/model/json/json.hpp"

namespace strata::app {

// Sums of token counts and durations. Each logged count fits in 64 bits; the sums are
// kept in 128 bits so that no log, however large, can wrap them.
__extension__ using UsageCount = unsigned __int128;

// Decimal text of a count.
std::string usage_count_text(UsageCount value);

// One JSON object line of a JSONL file, with its 1-based physical line number.
struct JsonlRow {
  std::size_t line = 0;
  model::Json value;
};

// Splits text into LF-terminated lines and parses each. Blank lines are skipped; a line
// that is not JSON adds "warning: invalid JSON at <display_path>:<line>" to warnings;
// JSON values that are not objects are skipped silently. NaN/Infinity literals are read
// as (non-integer) numbers, as Python's json module does.
std::vector<JsonlRow> parse_jsonl(std::string_view text, const std::string& display_path,
                                  std::vector<std::string>& warnings);

// A timestamp as microseconds since 1970-01-01T00:00:00Z, if `text` is an ISO 8601 date
// or date-time that Python's datetime.fromisoformat accepts (naive = UTC; see
// docs/USAGE_REPORT.md for the accepted forms).
std::optional<std::int64_t> parse_iso_instant(std::string_view text);

// One run from the index, merged over all its rows (§3.2).
struct RunRef {
  std::string run_id;
  std::string log_file;     // relative to the log home, as the index row wrote it
  std::int64_t updated_at;  // microseconds since the epoch, of the latest row
  bool done = false;        // sticky: any row said status "done"
};

// §3.2 steps 2-4: merges usable index rows per run id, orders the runs by their latest
// `at` (newest first, ties in first-appearance order) and keeps the first `last`.
std::vector<RunRef> select_runs(const std::vector<JsonlRow>& index_rows, std::size_t last);

// Counters shared by the summary and the groups.
struct UsageTotals {
  UsageCount calls = 0;
  UsageCount input_tokens = 0;
  UsageCount output_tokens = 0;
  UsageCount cache_read_tokens = 0;
  UsageCount cache_write_tokens = 0;
  UsageCount duration_ms = 0;
  UsageCount duration_observed_calls = 0;
};

// The outcomes a usage completion may report, in the order of the summaries' outcome counts.
inline constexpr const char* kUsageOutcomes[4] = {"success", "error", "blocked", "cancelled"};

struct UsageSummary {
  std::size_t runs = 0;
  UsageCount observed_calls = 0;
  UsageCount unavailable_calls = 0;
  UsageCount unresolved_claims = 0;
  UsageCount invalid_calls = 0;
  UsageCount outcomes[4] = {0, 0, 0, 0};  // by kUsageOutcomes
  UsageTotals totals;                    // tokens and durations (calls unused)
};

struct ObservedGroup {
  std::string workflow, stage, role, adapter, model, model_source, outcome;
  UsageTotals totals;
};

struct UnavailableGroup {
  std::string workflow, stage, role, outcome;
  UsageTotals totals;  // calls, duration_ms, duration_observed_calls
};

struct UnresolvedGroup {
  std::string workflow, stage, role, adapter, requested_model, source;
  UsageCount claims = 0;
};

struct UsageReport {
  UsageSummary summary;
  std::vector<ObservedGroup> groups;               // sorted as §3.4 says
  std::vector<UnavailableGroup> unavailable_groups;
  std::vector<UnresolvedGroup> unresolved_groups;
  std::vector<RunLifecycleReport> lifecycle;  // runs holding resources or an incomplete test run, newest first
  std::vector<std::string> warnings;  // "warning: ..." lines, in the order they arose
};

// The two passes of §3.3. Feed each kept run's rows with add_run() (pass 1, in run
// order), then finish() runs pass 2 and groups the result.
class UsageTally {
 public:
  // `warnings` receives the warnings of both passes; it must outlive the tally.
  explicit UsageTally(std::vector<std::string>& warnings) : warnings_(warnings) {}

  // Pass 1 over one run file: `display_path` is the resolved path used in warnings.
  void add_run(const std::string& run_id, const std::string& display_path, const std::vector<JsonlRow>& rows);

  // Pass 2 and grouping. `runs` is summary.runs (kept runs, with or without a log).
  UsageReport finish(std::size_t runs);

 private:
  using CallKey = std::pair<std::string, std::string>;  // (run id, call id)
  // workflow, runtime, stage, role, adapter, requested_model, source, purpose
  using Identity = std::array<std::string, 8>;
  struct Claim {
    Identity identity;
    std::size_t line;
  };
  struct Candidate {
    std::string run_id, display_path;
    std::size_t line;
    model::Json row;
  };

  std::vector<std::string>& warnings_;
  std::map<CallKey, Claim> claims_;
  std::set<CallKey> ambiguous_;
  std::set<std::string> seen_usage_;
  std::vector<Candidate> candidates_;
  UsageCount invalid_calls_ = 0;
};

struct UsageReportOptions {
  std::filesystem::path log_home;  // already expanded and resolved (resolve_log_home)
  std::size_t last = 10;
};

// `--log-home`, else $CM_WORKFLOW_LOG_HOME, else ~/.cm-workflow/logs; empty values count
// as unset. `~` is expanded, the path made absolute and symlinks resolved (missing
// trailing components are kept, as Python's Path.resolve(strict=False) does).
std::filesystem::path resolve_log_home(const std::string& flag_value, const char* environment_value);

// The whole report from the files under options.log_home (§3.2, §3.3). Never throws for
// file problems: they become warnings.
UsageReport build_usage_report(const UsageReportOptions& options);

// §3.4: one line of compact JSON (non-ASCII raw), without the trailing LF.
std::string format_usage_report_json(const UsageReport& report);

// §3.5: the text lines, without line terminators.
std::vector<std::string> format_usage_report_text(const UsageReport& report);

}  // namespace strata::app
