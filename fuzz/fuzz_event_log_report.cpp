// Event-log lines as `strata usage report` reads them (app/cm/usage_report.cpp): the input
// is both the global index (<home>/index.jsonl) and the log of every run it selects, and
// goes through parse_jsonl, parse_iso_instant (via select_runs), select_runs, the two
// UsageTally passes and both output formats. As in build_usage_report, text that is not
// UTF-8 is refused before parse_jsonl (a warning there).
//
// Invariants:
//  - parse_jsonl keeps only objects, with increasing 1-based line numbers within the text;
//  - select_runs keeps at most `last` distinct runs, newest first;
//  - a timestamp parse_iso_instant accepts, written back as UTC, parses to the same instant;
//  - the summary adds up: outcomes = observed + unavailable calls; the groups' calls and
//    token/duration sums equal the summary's; unresolved groups sum to unresolved claims;
//  - the --json output is one line of valid JSON whose summary matches the report;
//  - build_usage_report with the input as <home>/index.jsonl never reads a run log outside
//    the log home: a valid usage log of run "secret-run-0001" sits outside it, reachable
//    through "../outside.jsonl", a symlinked directory and a symlinked run file inside the
//    home; its call must never be counted.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "strata/app/cm/usage_report.hpp"
#include "strata/model/json/utf.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_event_log_report {

using namespace strata;
using app::UsageCount;

namespace {

constexpr std::size_t kLast = 4;

// Days since 1970-01-01 -> civil date (Howard Hinnant's algorithm).
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

void check_instant(const std::string& text) {
  const auto instant = app::parse_iso_instant(text);
  if (!instant) return;
  const std::int64_t micros_per_day = 86400LL * 1000000;
  std::int64_t days = *instant / micros_per_day, rest = *instant % micros_per_day;
  if (rest < 0) rest += micros_per_day, --days;
  std::int64_t y = 0;
  unsigned m = 0, d = 0;
  civil_from_days(days, y, m, d);
  if (y < 1 || y > 9999) return;  // an offset moved it out of the four-digit years
  char written[64];
  std::snprintf(written, sizeof written, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%06lld+00:00", static_cast<long long>(y), m, d,
                static_cast<long long>(rest / 3600000000LL), static_cast<long long>(rest / 60000000LL % 60),
                static_cast<long long>(rest / 1000000 % 60), static_cast<long long>(rest % 1000000));
  const auto again = app::parse_iso_instant(written);
  FUZZ_CHECK(again && *again == *instant, "instant of \"" + fuzz::excerpt(text) + "\" written as " + written + " reads back differently");
}

std::string count(UsageCount value) { return app::usage_count_text(value); }

namespace fs = std::filesystem;

// <scratch>/report/{outside.jsonl, home/{index.jsonl, escape -> .., runs/2026-08/secret.jsonl -> ../../../outside.jsonl}}
const fs::path& report_home() {
  static const fs::path home = [] {
    const fs::path root = fs::path(fuzz::scratch_directory()) / "report";
    const fs::path made = root / "home";
    fs::create_directories(made / "runs" / "2026-08");
    fuzz::write_file((root / "outside.jsonl").string(),
               R"({"schema_version":1,"run_id":"secret-run-0001","at":"2026-08-06T10:00:00+00:00","workflow":"secret",)"
               R"("event":"model_usage","phase":"complete","runtime":"codex","stage":"s","role":"r","adapter":"company-api",)"
               R"("requested_model":"m","source":"api","purpose":"p","call_id":"secret-call","usage_state":"observed",)"
               R"("input_tokens":1,"output_tokens":1,"outcome":"success","effective_model":"SECRET-OUTSIDE"})"
               "\n");
    fs::create_directory_symlink("..", made / "escape");
    fs::create_symlink("../../../outside.jsonl", made / "runs" / "2026-08" / "secret.jsonl");
    return made;
  }();
  return home;
}

void check_containment(std::string_view text) {
  const fs::path& home = report_home();
  fuzz::write_file((home / "index.jsonl").string(), text);
  const app::UsageReport report = app::build_usage_report({home, 10});
  for (const auto& g : report.groups)
    FUZZ_CHECK(g.workflow != "secret" && g.model != "SECRET-OUTSIDE",
               "the usage report counted a run log outside the log home (" + g.workflow + ", " + g.model + ")");
  for (const auto& g : report.unavailable_groups) FUZZ_CHECK(g.workflow != "secret", "counted a log outside the home");
}

}  // namespace

int test_one_input(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  if (!model::is_valid_utf8(text)) return 0;  // read_jsonl_file: "cannot read ...: UnicodeDecodeError"

  std::vector<std::string> warnings;
  const std::vector<app::JsonlRow> rows = app::parse_jsonl(text, "/logs/index.jsonl", warnings);
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  if (!text.empty() && text.back() != '\n') ++lines;
  std::size_t previous = 0;
  for (const app::JsonlRow& row : rows) {
    FUZZ_CHECK(row.value.is_object(), "parse_jsonl kept a value that is not an object");
    FUZZ_CHECK(row.line > previous && row.line <= lines, "parse_jsonl line numbers are not increasing within the text");
    previous = row.line;
    const auto at = row.value.find("at");
    if (at != row.value.end() && at->is_string()) check_instant(at->get<std::string>());
  }

  const std::vector<app::RunRef> runs = app::select_runs(rows, kLast);
  FUZZ_CHECK(runs.size() <= kLast, "select_runs kept more than --last runs");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    FUZZ_CHECK(ids.insert(runs[i].run_id).second, "select_runs kept run " + runs[i].run_id + " twice");
    if (i > 0) FUZZ_CHECK(runs[i - 1].updated_at >= runs[i].updated_at, "select_runs did not order newest first");
  }

  app::UsageTally tally(warnings);
  for (const app::RunRef& run : runs) tally.add_run(run.run_id, "/logs/" + run.log_file, rows);
  const app::UsageReport report = tally.finish(runs.size());
  const app::UsageSummary& s = report.summary;

  UsageCount outcomes = 0;
  for (UsageCount o : s.outcomes) outcomes += o;
  FUZZ_CHECK(outcomes == s.observed_calls + s.unavailable_calls, "outcomes do not add up to the counted calls");
  app::UsageTotals sum;
  for (const auto& g : report.groups) {
    sum.calls += g.totals.calls;
    sum.input_tokens += g.totals.input_tokens;
    sum.output_tokens += g.totals.output_tokens;
    sum.cache_read_tokens += g.totals.cache_read_tokens;
    sum.cache_write_tokens += g.totals.cache_write_tokens;
    sum.duration_ms += g.totals.duration_ms;
    sum.duration_observed_calls += g.totals.duration_observed_calls;
  }
  UsageCount unavailable_calls = 0;
  for (const auto& g : report.unavailable_groups) {
    unavailable_calls += g.totals.calls;
    sum.duration_ms += g.totals.duration_ms;
    sum.duration_observed_calls += g.totals.duration_observed_calls;
  }
  FUZZ_CHECK(sum.calls == s.observed_calls, "observed groups do not add up to the observed calls");
  FUZZ_CHECK(unavailable_calls == s.unavailable_calls, "unavailable groups do not add up to the unavailable calls");
  FUZZ_CHECK(sum.input_tokens == s.totals.input_tokens && sum.output_tokens == s.totals.output_tokens &&
                 sum.cache_read_tokens == s.totals.cache_read_tokens && sum.cache_write_tokens == s.totals.cache_write_tokens,
             "group token sums differ from the summary's");
  FUZZ_CHECK(sum.duration_ms == s.totals.duration_ms && sum.duration_observed_calls == s.totals.duration_observed_calls,
             "group durations differ from the summary's");
  UsageCount unresolved = 0;
  for (const auto& g : report.unresolved_groups) unresolved += g.claims;
  FUZZ_CHECK(unresolved == s.unresolved_claims, "unresolved groups do not add up to the unresolved claims");

  const std::string json = app::format_usage_report_json(report);
  FUZZ_CHECK(json.find('\n') == std::string::npos, "--json output is not one line");
  const nlohmann::json parsed = nlohmann::json::parse(json, nullptr, false);
  FUZZ_CHECK(!parsed.is_discarded() && parsed.is_object() && parsed.contains("summary") && parsed.at("summary").is_object(),
             "--json output is not the report object: " + fuzz::excerpt(json));
  const auto& summary = parsed.at("summary");
  // Counts of 2^64 and more are written as digits nlohmann reads as a double.
  const auto same = [&](const char* key, UsageCount value) {
    if (!summary.contains(key)) return false;
    const auto& v = summary.at(key);
    return v.is_number_unsigned() ? count(v.get<std::uint64_t>()) == count(value) : v.is_number_float();
  };
  FUZZ_CHECK(same("runs", s.runs) && same("observed_calls", s.observed_calls) && same("invalid_calls", s.invalid_calls) &&
                 same("input_tokens", s.totals.input_tokens),
             "--json summary differs from the report: " + fuzz::excerpt(json));
  const std::vector<std::string> text_lines = app::format_usage_report_text(report);
  FUZZ_CHECK(!text_lines.empty(), "text report is empty");

  check_containment(text);
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("event_log_report", &test_one_input);

}  // namespace fuzz_event_log_report
