// The usage report (usage-boundary spec §3): which runs it reads (§3.2), the files it reads them
// from, and the report it prints. The JSONL reading, the ISO instants and the two passes over the
// rows are in usage_jsonl.cpp, iso_instant.cpp and usage_tally.cpp.
#include "strata/app/cm/usage_report.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <pwd.h>
#include <system_error>
#include <unistd.h>

#include "strata/model/json/json_writer.hpp"
#include "strata/model/json/python_json_line.hpp"
#include "strata/model/json/utf.hpp"

namespace strata::app {

using model::Json;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------
// Run selection (§3.2)

std::vector<RunRef> select_runs(const std::vector<JsonlRow>& index_rows, std::size_t last) {
  std::vector<RunRef> runs;  // first-appearance order
  std::map<std::string, std::size_t> position;
  for (const JsonlRow& row : index_rows) {
    const Json& v = row.value;
    const auto run_id = v.find("run_id");
    const auto log_file = v.find("log_file");
    const auto at = v.find("at");
    if (run_id == v.end() || !run_id->is_string() || log_file == v.end() || !log_file->is_string()) continue;
    if (at == v.end() || !at->is_string()) continue;
    const std::optional<std::int64_t> updated_at = parse_iso_instant(at->get_ref<const std::string&>());
    if (!updated_at) continue;
    const auto status = v.find("status");
    const bool done = status != v.end() && status->is_string() && *status == "done";
    const std::string& id = run_id->get_ref<const std::string&>();
    const auto [it, inserted] = position.try_emplace(id, runs.size());
    if (inserted) {
      runs.push_back({id, log_file->get<std::string>(), *updated_at, done});
      continue;
    }
    RunRef& run = runs[it->second];
    run.done = run.done || done;
    if (*updated_at >= run.updated_at) {  // ties: the later row wins
      run.updated_at = *updated_at;
      run.log_file = log_file->get<std::string>();
    }
  }
  std::stable_sort(runs.begin(), runs.end(),
                   [](const RunRef& a, const RunRef& b) { return a.updated_at > b.updated_at; });
  if (runs.size() > last) runs.resize(last);
  return runs;
}

// ---------------------------------------------------------------------------------------
// Files

namespace {

// Python's exception class name for an errno, as the reference prints it.
std::string python_error_type(int error) {
  switch (error) {
    case ENOENT: return "FileNotFoundError";
    case EACCES:
    case EPERM: return "PermissionError";
    case EISDIR: return "IsADirectoryError";
    case ENOTDIR: return "NotADirectoryError";
    case EINTR: return "InterruptedError";
    case EAGAIN: return "BlockingIOError";
    default: return "OSError";
  }
}

// Python's Path.resolve(strict=False): absolute, symlinks of the existing part resolved,
// "." and ".." folded, no trailing separator.
fs::path resolve_path(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = path;
  fs::path resolved = fs::weakly_canonical(absolute, ec);
  if (ec) resolved = absolute.lexically_normal();
  if (!resolved.has_filename() && resolved.has_relative_path()) resolved = resolved.parent_path();
  return resolved;
}

bool is_within(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// The rows of a JSONL file; an unreadable file or one that is not UTF-8 is a warning.
std::vector<JsonlRow> read_jsonl_file(const fs::path& path, std::vector<std::string>& warnings) {
  const std::string display = path.string();
  std::ifstream in(path, std::ios::binary);
  const int open_error = errno;
  std::string text;
  if (in) text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (!in.is_open() || in.bad()) {
    warnings.push_back("warning: cannot read " + display + ": " + python_error_type(in.is_open() ? EIO : open_error));
    return {};
  }
  if (!model::is_valid_utf8(text)) {
    warnings.push_back("warning: cannot read " + display + ": UnicodeDecodeError");
    return {};
  }
  return parse_jsonl(text, display, warnings);
}

std::string home_directory(const std::string& user) {
  if (user.empty()) {
    if (const char* home = std::getenv("HOME"); home != nullptr) return home;
    if (const passwd* entry = ::getpwuid(::getuid()); entry != nullptr) return entry->pw_dir;
    return {};
  }
  const passwd* entry = ::getpwnam(user.c_str());
  return entry != nullptr ? entry->pw_dir : std::string();
}

// Python's Path.expanduser(): "~" or "~user" at the start; unchanged if unknown.
std::string expand_user(const std::string& path) {
  if (path.empty() || path[0] != '~') return path;
  const std::size_t slash = path.find('/');
  const std::string user = path.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
  const std::string home = home_directory(user);
  if (home.empty()) return path;
  return home + (slash == std::string::npos ? std::string() : path.substr(slash));
}

}  // namespace

fs::path resolve_log_home(const std::string& flag_value, const char* environment_value) {
  std::string configured = flag_value;
  if (configured.empty() && environment_value != nullptr) configured = environment_value;
  if (configured.empty()) configured = "~/.cm-workflow/logs";
  return resolve_path(expand_user(configured));
}

UsageReport build_usage_report(const UsageReportOptions& options) {
  std::vector<std::string> warnings;
  const fs::path& home = options.log_home;
  const fs::path index_path = home / "index.jsonl";
  std::vector<RunRef> runs;
  if (is_file(index_path)) runs = select_runs(read_jsonl_file(index_path, warnings), options.last);

  UsageTally tally(warnings);
  std::vector<RunLifecycleReport> lifecycle;
  for (const RunRef& run : runs) {
    const fs::path log_path = resolve_path(home / run.log_file);
    const bool inside = is_within(log_path, home);
    if (!inside) warnings.push_back("warning: ignored log path outside log home: " + run.log_file);
    if (!inside || !is_file(log_path)) {
      warnings.push_back("warning: missing run log for " + run.run_id);
      continue;
    }
    const std::size_t warned = warnings.size();
    const std::vector<JsonlRow> rows = read_jsonl_file(log_path, warnings);
    if (auto open = run_lifecycle(run.run_id, run.done, rows, warnings.size() != warned)) lifecycle.push_back(std::move(*open));
    tally.add_run(run.run_id, log_path.string(), rows);
  }
  UsageReport report = tally.finish(runs.size());
  report.lifecycle = std::move(lifecycle);
  return report;
}

// ---------------------------------------------------------------------------------------
// Output

namespace {

class JsonObjectWriter {
 public:
  explicit JsonObjectWriter(std::string& out) : out_(out) { out_.push_back('{'); }
  void key(const char* name) {
    if (!first_) out_.push_back(',');
    first_ = false;
    model::append_json_string(out_, name);
    out_.push_back(':');
  }
  void field(const char* name, const std::string& value) {
    key(name);
    model::append_json_string(out_, value);
  }
  void count(const char* name, UsageCount value) {
    key(name);
    out_ += usage_count_text(value);
  }
  void totals(const UsageTotals& t, bool tokens) {
    count("calls", t.calls);
    if (tokens) {
      count("input_tokens", t.input_tokens);
      count("output_tokens", t.output_tokens);
      count("cache_read_tokens", t.cache_read_tokens);
      count("cache_write_tokens", t.cache_write_tokens);
    }
    count("duration_ms", t.duration_ms);
    count("duration_observed_calls", t.duration_observed_calls);
  }
  void close() { out_.push_back('}'); }

 private:
  std::string& out_;
  bool first_ = true;
};

template <class Item, class Write>
void append_array(std::string& out, const std::vector<Item>& items, Write write) {
  out.push_back('[');
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) out.push_back(',');
    JsonObjectWriter object(out);
    write(object, items[i]);
    object.close();
  }
  out.push_back(']');
}

}  // namespace

std::string format_usage_report_json(const UsageReport& report) {
  const UsageSummary& s = report.summary;
  std::string out;
  JsonObjectWriter root(out);
  root.count("schema_version", 1);
  root.field("source", "cm-global-log-mirror");
  root.field("missing_usage_policy", "unavailable-not-guessed");
  root.field("unresolved_claim_policy", "reported-not-counted");
  root.key("summary");
  {
    JsonObjectWriter summary(out);
    summary.count("runs", s.runs);
    summary.count("observed_calls", s.observed_calls);
    summary.count("unavailable_calls", s.unavailable_calls);
    summary.count("unresolved_claims", s.unresolved_claims);
    summary.count("invalid_calls", s.invalid_calls);
    summary.key("outcomes");
    JsonObjectWriter outcomes(out);
    for (int i = 0; i < 4; ++i) outcomes.count(kUsageOutcomes[i], s.outcomes[i]);
    outcomes.close();
    summary.count("input_tokens", s.totals.input_tokens);
    summary.count("output_tokens", s.totals.output_tokens);
    summary.count("cache_read_tokens", s.totals.cache_read_tokens);
    summary.count("cache_write_tokens", s.totals.cache_write_tokens);
    summary.count("duration_ms", s.totals.duration_ms);
    summary.count("duration_observed_calls", s.totals.duration_observed_calls);
    summary.close();
  }
  root.key("groups");
  append_array(out, report.groups, [](JsonObjectWriter& o, const ObservedGroup& g) {
    o.field("workflow", g.workflow);
    o.field("stage", g.stage);
    o.field("role", g.role);
    o.field("adapter", g.adapter);
    o.field("model", g.model);
    o.field("model_source", g.model_source);
    o.field("outcome", g.outcome);
    o.totals(g.totals, true);
  });
  root.key("unavailable_groups");
  append_array(out, report.unavailable_groups, [](JsonObjectWriter& o, const UnavailableGroup& g) {
    o.field("workflow", g.workflow);
    o.field("stage", g.stage);
    o.field("role", g.role);
    o.field("outcome", g.outcome);
    o.totals(g.totals, false);
  });
  root.key("unresolved_groups");
  append_array(out, report.unresolved_groups, [](JsonObjectWriter& o, const UnresolvedGroup& g) {
    o.field("workflow", g.workflow);
    o.field("stage", g.stage);
    o.field("role", g.role);
    o.field("adapter", g.adapter);
    o.field("requested_model", g.requested_model);
    o.field("source", g.source);
    o.count("claims", g.claims);
  });
  if (!report.lifecycle.empty()) {  // only then: a report without it stays the reference's bytes
    root.key("lifecycle");
    out += lifecycle_json(report.lifecycle);
  }
  root.close();
  return out;
}

std::vector<std::string> format_usage_report_text(const UsageReport& report) {
  const UsageSummary& s = report.summary;
  const auto n = [](UsageCount value) { return usage_count_text(value); };
  std::vector<std::string> lines;
  lines.push_back("CM API Usage（最近 " + std::to_string(s.runs) + " 次运行）");
  lines.push_back("- calls: observed " + n(s.observed_calls) + " | unavailable " + n(s.unavailable_calls) +
                  " | unresolved claims " + n(s.unresolved_claims) + " | invalid " + n(s.invalid_calls));
  lines.push_back("- tokens: input " + n(s.totals.input_tokens) + " | output " + n(s.totals.output_tokens) +
                  " | cache read " + n(s.totals.cache_read_tokens) + " | cache write " +
                  n(s.totals.cache_write_tokens));
  std::string outcomes = "- outcomes: ";
  for (int i = 0; i < 4; ++i) outcomes += std::string(i == 0 ? "" : " | ") + kUsageOutcomes[i] + " " + n(s.outcomes[i]);
  lines.push_back(outcomes);
  if (s.totals.duration_observed_calls > 0) {
    lines.push_back("- observed duration: " + n(s.totals.duration_ms) + " ms across " +
                    n(s.totals.duration_observed_calls) + " calls");
  }
  for (const ObservedGroup& g : report.groups) {
    lines.push_back("- " + g.workflow + "/" + g.stage + " | " + g.role + " | " + g.adapter + " | " + g.model + " (" +
                    g.model_source + ") | " + g.outcome + " | calls " + n(g.totals.calls) + ", in " +
                    n(g.totals.input_tokens) + ", out " + n(g.totals.output_tokens) + ", cache-read " +
                    n(g.totals.cache_read_tokens) + ", cache-write " + n(g.totals.cache_write_tokens));
  }
  for (const UnresolvedGroup& g : report.unresolved_groups) {
    lines.push_back("- unresolved: " + g.workflow + "/" + g.stage + " | " + g.role + " | " + g.adapter + " | " +
                    g.requested_model + " | claims " + n(g.claims));
  }
  for (std::string& line : lifecycle_text(report.lifecycle)) lines.push_back(std::move(line));
  lines.push_back("- 缺失 usage 保持 unavailable；未完成 claim 单独报告且不计调用/Token；未推测缺失用量，也未换算费用。");
  return lines;
}

}  // namespace strata::app
