// The usage report (usage-boundary spec §3). Field checks mirror the reference
// `cm-usage-report.py`: "non-negative int" is a JSON integer lexeme (no fraction, no
// exponent, not a boolean) that is >= 0; identity fields are non-empty strings.
#include "strata/app/usage_report.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <pwd.h>
#include <system_error>
#include <unistd.h>

#include "strata/model/json_writer.hpp"
#include "strata/model/python_json_line.hpp"
#include "strata/model/utf.hpp"

namespace strata::app {

using model::Json;
namespace fs = std::filesystem;

std::string usage_count_text(UsageCount value) {
  if (value == 0) return "0";
  std::string digits;
  while (value != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  }
  return {digits.rbegin(), digits.rend()};
}

// ---------------------------------------------------------------------------------------
// JSONL

namespace {

bool is_blank(std::string_view line) {
  // Python's str.strip() set, restricted to what can occur inside one LF-split line.
  return std::all_of(line.begin(), line.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || (c >= '\x1c' && c <= '\x1f');
  });
}

}  // namespace

std::vector<JsonlRow> parse_jsonl(std::string_view text, const std::string& display_path,
                                  std::vector<std::string>& warnings) {
  std::vector<JsonlRow> rows;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (is_blank(line)) continue;
    std::optional<Json> value = model::parse_python_json_line(line);
    if (!value) {
      warnings.push_back("warning: invalid JSON at " + display_path + ":" + std::to_string(line_number));
      continue;
    }
    if (value->is_object()) rows.push_back({line_number, std::move(*value)});
  }
  return rows;
}

// ---------------------------------------------------------------------------------------
// ISO 8601 timestamps, as Python 3.11's datetime.fromisoformat reads them.

namespace {

bool digits_at(std::string_view s, std::size_t pos, std::size_t count, int& value) {
  if (pos + count > s.size()) return false;
  value = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    value = value * 10 + (s[i] - '0');
  }
  return true;
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool valid_date(int y, int m, int d) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

// HH[:MM[:SS[.f+]]] or HH[MM[SS[.f+]]] (fraction separator '.' or ','), as microseconds.
std::optional<std::int64_t> parse_clock(std::string_view s, int max_hour) {
  int parts[3] = {0, 0, 0};
  std::size_t pos = 0;
  bool separated = false;
  for (int comp = 0; comp < 3; ++comp) {
    if (!digits_at(s, pos, 2, parts[comp])) return std::nullopt;
    pos += 2;
    if (pos == s.size() || comp == 2) break;
    if (comp == 0) separated = s[pos] == ':';
    if (separated) {
      if (s[pos] != ':') break;
      ++pos;
    } else if (s[pos] < '0' || s[pos] > '9') {
      break;
    }
  }
  std::int64_t micros = 0;
  if (pos < s.size()) {
    if (s[pos] != '.' && s[pos] != ',') return std::nullopt;
    ++pos;
    const std::size_t digits = s.size() - pos;
    if (digits == 0) return std::nullopt;
    for (std::size_t i = 0; i < digits; ++i) {
      const char c = s[pos + i];
      if (c < '0' || c > '9') return std::nullopt;
      if (i < 6) micros = micros * 10 + (c - '0');
    }
    for (std::size_t i = digits; i < 6; ++i) micros *= 10;
  }
  if (parts[0] > max_hour || parts[1] > 59 || parts[2] > 59) return std::nullopt;
  return ((parts[0] * 60 + parts[1]) * 60 + parts[2]) * std::int64_t{1000000} + micros;
}

std::size_t utf8_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  return 4;
}

}  // namespace

std::optional<std::int64_t> parse_iso_instant(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // The reference turns a trailing "Z" into "+00:00" before parsing.
  std::string normalized(text);
  if (normalized.back() == 'Z') normalized.replace(normalized.size() - 1, 1, "+00:00");
  const std::string_view s = normalized;

  // Date: YYYY-MM-DD or YYYYMMDD (ISO week dates are not accepted; see the docs).
  int y = 0, m = 0, d = 0;
  std::size_t pos = 0;
  if (s.size() >= 10 && s[4] == '-') {
    if (!digits_at(s, 0, 4, y) || !digits_at(s, 5, 2, m) || s[7] != '-' || !digits_at(s, 8, 2, d))
      return std::nullopt;
    pos = 10;
  } else {
    if (!digits_at(s, 0, 4, y) || !digits_at(s, 4, 2, m) || !digits_at(s, 6, 2, d)) return std::nullopt;
    pos = 8;
  }
  if (!valid_date(y, m, d)) return std::nullopt;
  std::int64_t instant = days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)) * 86400 * 1000000;
  if (pos == s.size()) return instant;

  // Any one character separates the date from the time.
  pos += utf8_length(static_cast<unsigned char>(s[pos]));
  if (pos >= s.size()) return std::nullopt;
  const std::string_view time = s.substr(pos);
  std::size_t zone = time.find_first_of("+-");
  const std::optional<std::int64_t> clock = parse_clock(time.substr(0, zone), 23);
  if (!clock) return std::nullopt;
  instant += *clock;
  if (zone == std::string_view::npos) return instant;  // naive: UTC
  const std::string_view offset_text = time.substr(zone + 1);
  if (offset_text.size() < 2 || offset_text.size() == 3) return std::nullopt;
  const std::optional<std::int64_t> offset = parse_clock(offset_text, 23);
  if (!offset) return std::nullopt;
  return time[zone] == '-' ? instant + *offset : instant - *offset;
}

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
// The two passes (§3.3)

namespace {

constexpr const char* kIdentityFields[] = {"workflow", "runtime", "stage",  "role",
                                           "adapter",  "requested_model", "source", "purpose"};
constexpr const char* kTokenFields[] = {"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"};
constexpr const char* kOutcomes[] = {"success", "error", "blocked", "cancelled"};

// ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$
bool is_call_id(const std::string& id) {
  const auto alnum = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (id.empty() || id.size() > 128 || !alnum(id[0])) return false;
  return std::all_of(id.begin() + 1, id.end(), [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; });
}

const Json* member(const Json& row, const char* key) {
  const auto it = row.find(key);
  return it == row.end() ? nullptr : &*it;
}

// The string value of a key, or nullptr when absent or not a string.
const std::string* string_member(const Json& row, const char* key) {
  const Json* v = member(row, key);
  return v != nullptr && v->is_string() ? &v->get_ref<const std::string&>() : nullptr;
}

bool is_nonempty_string(const Json* v) { return v != nullptr && v->is_string() && !v->get_ref<const std::string&>().empty(); }

// A JSON integer >= 0 that fits 64 bits.
std::optional<std::uint64_t> nonnegative_int(const Json* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_number_unsigned()) return v->get<std::uint64_t>();
  if (v->is_number_integer() && v->get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v->get<std::int64_t>());
  return std::nullopt;
}

int outcome_index(const Json* v) {
  if (v == nullptr || !v->is_string()) return -1;
  for (int i = 0; i < 4; ++i)
    if (*v == kOutcomes[i]) return i;
  return -1;
}

// The reasons shared by claims and completions: call id, phase, identity fields.
std::optional<std::string> common_row_error(const Json& row, const char* phase) {
  const std::string* call_id = string_member(row, "call_id");
  if (call_id == nullptr || !is_call_id(*call_id)) return "invalid call_id";
  const std::string* actual_phase = string_member(row, "phase");
  if (actual_phase == nullptr || *actual_phase != phase) return "invalid phase";
  for (const char* field : kIdentityFields)
    if (!is_nonempty_string(member(row, field))) return std::string("invalid ") + field;
  return std::nullopt;
}

std::optional<std::string> usage_row_error(const Json& row) {
  if (auto error = common_row_error(row, "complete")) return error;
  if (outcome_index(member(row, "outcome")) < 0) return "invalid outcome";
  const Json* duration = member(row, "duration_ms");
  if (duration != nullptr && !duration->is_null() && !nonnegative_int(duration)) return "invalid duration";
  const std::string* state = string_member(row, "usage_state");
  if (state != nullptr && *state == "observed") {
    if (!nonnegative_int(member(row, "input_tokens"))) return "invalid input count";
    if (!nonnegative_int(member(row, "output_tokens"))) return "invalid output count";
    for (const char* field : {"cache_read_tokens", "cache_write_tokens"}) {
      const Json* cache = member(row, field);
      if (cache != nullptr && !nonnegative_int(cache)) return "invalid cache count";
    }
    return std::nullopt;
  }
  if (state != nullptr && *state == "unavailable") {
    for (const char* field : kTokenFields)
      if (member(row, field) != nullptr) return "unavailable row contains token counts";
    return std::nullopt;
  }
  return "invalid usage state";
}

// Adds the duration of a row, when it has one, to each of the totals.
template <class... Totals>
void add_duration(const Json& row, Totals&... totals) {
  if (const auto duration = nonnegative_int(member(row, "duration_ms"))) {
    ((totals.duration_ms += *duration, totals.duration_observed_calls += 1), ...);
  }
}

template <class... Totals>
void add_tokens(const Json& row, Totals&... totals) {
  const auto value = [&](const char* field) -> UsageCount { return nonnegative_int(member(row, field)).value_or(0); };
  const UsageCount in = value("input_tokens"), out = value("output_tokens");
  const UsageCount cache_read = value("cache_read_tokens"), cache_write = value("cache_write_tokens");
  ((totals.input_tokens += in, totals.output_tokens += out, totals.cache_read_tokens += cache_read,
    totals.cache_write_tokens += cache_write),
   ...);
}

}  // namespace

void UsageTally::add_run(const std::string& run_id, const std::string& display_path, const std::vector<JsonlRow>& rows) {
  const auto at = [&](std::size_t line) { return display_path + ":" + std::to_string(line); };
  for (const JsonlRow& jsonl : rows) {
    const Json& row = jsonl.value;
    const std::string* row_run = string_member(row, "run_id");
    if (row_run == nullptr || *row_run != run_id) continue;
    const std::string* event = string_member(row, "event");
    if (event == nullptr) continue;
    if (*event == "model_call") {
      if (auto error = common_row_error(row, "claimed")) {
        warnings_.push_back("warning: ignored malformed model_call at " + at(jsonl.line) + " (" + *error + ")");
        continue;
      }
      Identity identity;
      for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = row[kIdentityFields[i]].get<std::string>();
      const CallKey key{run_id, row["call_id"].get<std::string>()};
      const auto existing = claims_.find(key);
      if (existing == claims_.end()) {
        claims_.emplace(key, Claim{std::move(identity), jsonl.line});
      } else if (existing->second.identity != identity) {
        ambiguous_.insert(key);
        warnings_.push_back("warning: conflicting model_call identity at " + at(jsonl.line));
      }
      continue;
    }
    if (*event != "model_usage") continue;
    const std::string* event_id = string_member(row, "event_id");
    const std::string dedupe_key = event_id != nullptr && !event_id->empty() ? *event_id : at(jsonl.line);
    if (!seen_usage_.insert(dedupe_key).second) continue;  // the same event again: not a call
    if (auto error = usage_row_error(row)) {
      ++invalid_calls_;
      warnings_.push_back("warning: ignored malformed model_usage at " + at(jsonl.line) + " (" + *error + ")");
      continue;
    }
    candidates_.push_back({run_id, display_path, jsonl.line, row});
  }
}

UsageReport UsageTally::finish(std::size_t runs) {
  UsageReport report;
  UsageSummary& summary = report.summary;
  summary.runs = runs;
  summary.invalid_calls = invalid_calls_;
  std::set<CallKey> seen_calls, completed;
  // Group keys in creation order; the sort below is stable, as the reference's is.
  std::map<std::array<std::string, 7>, std::size_t> observed_index;
  std::map<std::array<std::string, 4>, UsageTotals> unavailable;

  for (const Candidate& candidate : candidates_) {
    const Json& row = candidate.row;
    const std::string where = candidate.display_path + ":" + std::to_string(candidate.line);
    const auto text = [&](const char* field) { return row[field].get<std::string>(); };
    const CallKey key{candidate.run_id, text("call_id")};
    if (!seen_calls.insert(key).second) {
      ++summary.invalid_calls;
      warnings_.push_back("warning: ignored duplicate model_usage call_id at " + where);
      continue;
    }
    const auto claim = claims_.find(key);
    if (claim == claims_.end() && text("adapter") == "openai-compatible") {
      ++summary.invalid_calls;
      warnings_.push_back("warning: ignored managed model_usage without prior claim at " + where);
      continue;
    }
    if (claim != claims_.end()) {
      Identity identity;
      for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = text(kIdentityFields[i]);
      if (ambiguous_.count(key) != 0 || candidate.line <= claim->second.line || identity != claim->second.identity) {
        ++summary.invalid_calls;
        warnings_.push_back("warning: ignored model_usage with mismatched claim identity at " + where);
        continue;
      }
      completed.insert(key);
    }
    const std::string outcome = text("outcome");
    summary.outcomes[outcome_index(member(row, "outcome"))] += 1;
    if (text("usage_state") == "unavailable") {
      summary.unavailable_calls += 1;
      UsageTotals& group = unavailable[{text("workflow"), text("stage"), text("role"), outcome}];
      group.calls += 1;
      add_duration(row, group, summary.totals);
      continue;
    }
    // observed (validated in pass 1)
    std::string model = "unknown", model_source = "unreported";
    if (is_nonempty_string(member(row, "effective_model"))) {
      model = text("effective_model");
      model_source = "effective";
    } else if (is_nonempty_string(member(row, "requested_model"))) {
      model = text("requested_model");
      model_source = "requested";
    }
    std::array<std::string, 7> group_key{text("workflow"), text("stage"), text("role"), text("adapter"),
                                         model,            model_source,  outcome};
    const auto [slot, inserted] = observed_index.try_emplace(group_key, report.groups.size());
    if (inserted) {
      report.groups.push_back({group_key[0], group_key[1], group_key[2], group_key[3], group_key[4], group_key[5],
                               group_key[6], {}});
    }
    UsageTotals& group = report.groups[slot->second].totals;
    group.calls += 1;
    add_tokens(row, group, summary.totals);
    add_duration(row, group, summary.totals);
    summary.observed_calls += 1;
  }

  std::stable_sort(report.groups.begin(), report.groups.end(), [](const ObservedGroup& a, const ObservedGroup& b) {
    return std::tie(a.workflow, a.stage, a.role, a.adapter, a.model, a.outcome) <
           std::tie(b.workflow, b.stage, b.role, b.adapter, b.model, b.outcome);
  });
  for (const auto& [key, totals] : unavailable) report.unavailable_groups.push_back({key[0], key[1], key[2], key[3], totals});

  std::map<std::array<std::string, 6>, UsageCount> unresolved;
  for (const auto& [key, claim] : claims_) {
    if (completed.count(key) != 0) continue;
    const Identity& id = claim.identity;  // workflow runtime stage role adapter requested_model source purpose
    unresolved[{id[0], id[2], id[3], id[4], id[5], id[6]}] += 1;
  }
  for (const auto& [key, count] : unresolved) {
    report.unresolved_groups.push_back({key[0], key[1], key[2], key[3], key[4], key[5], count});
    summary.unresolved_claims += count;
  }
  report.warnings = warnings_;
  return report;
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
    for (int i = 0; i < 4; ++i) outcomes.count(kOutcomes[i], s.outcomes[i]);
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
  for (int i = 0; i < 4; ++i) outcomes += std::string(i == 0 ? "" : " | ") + kOutcomes[i] + " " + n(s.outcomes[i]);
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
