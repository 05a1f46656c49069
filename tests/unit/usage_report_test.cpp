// The usage report (usage-boundary spec §3, acceptance cases §4.4). The fixture log home
// is the one of the reference test (test-cm-usage-report.py), written as the reference
// writer writes it: <home>/index.jsonl and <home>/runs/YYYY-MM/<run>.jsonl.
#include <catch2/catch.hpp>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "strata/app/cm/usage_report.hpp"

namespace fs = std::filesystem;
using strata::app::build_usage_report;
using strata::app::format_usage_report_json;
using strata::app::format_usage_report_text;
using strata::app::parse_iso_instant;
using strata::app::parse_jsonl;
using strata::app::select_runs;
using strata::app::usage_count_text;
using strata::app::UsageReport;
using strata::app::UsageReportOptions;
using strata::app::UsageTally;
using strata::model::Json;

namespace {

struct TempHome {
  fs::path path;
  TempHome() {
    char pattern[] = "/tmp/strata-usage-report-XXXXXX";
    path = fs::canonical(::mkdtemp(pattern));
  }
  ~TempHome() { fs::remove_all(path); }
  TempHome(const TempHome&) = delete;
  TempHome& operator=(const TempHome&) = delete;
};

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

void write_jsonl(const fs::path& path, const std::vector<Json>& rows) {
  std::string text;
  for (const Json& row : rows) text += row.dump() + "\n";
  write_text(path, text);
}

Json merged(Json base, const Json& changes) {
  for (const auto& [key, value] : changes.items()) base[key] = value;
  return base;
}

Json without(Json row, const char* key) {
  row.erase(key);
  return row;
}

std::string n(strata::app::UsageCount value) { return usage_count_text(value); }

// The observed planner completion of spec case 65, as the Python writer records it
// (global-only mode: project "unscoped", no project_path/specs_path).
Json planner_event() {
  return Json::parse(R"({"schema_version":1,"run_id":"usage-fixture-0001","at":"2026-08-06T10:00:00-07:00",
    "workflow":"cm-prd","event":"model_usage","runtime":"codex","project":"unscoped",
    "detail":"planner model call completed","phase":"complete","stage":"design_generation",
    "adapter":"company-api","requested_model":"planner-default","source":"api",
    "purpose":"cm-prd:design_generation","call_id":"planner-call-0001","role":"planner",
    "effective_model":"provider-model-v2","usage_state":"observed","input_tokens":1200,
    "output_tokens":300,"cache_read_tokens":800,"cache_write_tokens":100,"duration_ms":2500,
    "outcome":"success","event_id":"5d0b8f3c-2c1e-5a55-9a53-6a2a7b7c9e01"})");
}

const Json kUnavailable = Json::parse(R"({"schema_version":1,"event_id":"unavailable-event",
  "run_id":"usage-fixture-0002","at":"2026-08-06T11:00:00+00:00","workflow":"cm-ai","event":"model_usage",
  "phase":"complete","runtime":"codex","project":"fixture","detail":"usage unavailable",
  "call_id":"coder-call-0001","stage":"task_execution","role":"coder","adapter":"subscription-runtime",
  "requested_model":"coder-default","source":"subscription","purpose":"cm-ai:task_execution",
  "usage_state":"unavailable","duration_ms":700,"outcome":"success"})");

const Json kUnresolvedClaim = Json::parse(R"({"schema_version":1,"event_id":"unresolved-claim-event",
  "run_id":"usage-fixture-0002","at":"2026-08-06T11:00:45+00:00","workflow":"cm-ai","event":"model_call",
  "phase":"claimed","runtime":"codex","project":"fixture","detail":"reviewer call claimed",
  "call_id":"reviewer-call-unresolved","stage":"task_review","role":"reviewer","adapter":"openai-compatible",
  "requested_model":"reviewer-default","source":"api","purpose":"cm-ai:task_review"})");

const Json kMalformedBase = Json::parse(R"({"schema_version":1,"run_id":"usage-fixture-0002",
  "at":"2026-08-06T11:01:00+00:00","workflow":"cm-ai","event":"model_usage","phase":"complete",
  "runtime":"codex","project":"fixture","detail":"malformed fixture","stage":"task_execution","role":"coder",
  "adapter":"company-api","requested_model":"coder-default","source":"api","purpose":"cm-ai:task_execution",
  "usage_state":"observed","outcome":"success"})");

// Run B of §4.4, in file order (lines 1-14).
std::vector<Json> run_b_rows() {
  const Json conflicting_claim_one =
      merged(kUnresolvedClaim, {{"event_id", "conflicting-claim-one"}, {"call_id", "conflicting-call-0001"}});
  const Json conflicting_usage = merged(kMalformedBase, {{"event_id", "conflicting-usage-event"},
                                                         {"call_id", "conflicting-call-0001"},
                                                         {"stage", "task_review"},
                                                         {"role", "reviewer"},
                                                         {"adapter", "openai-compatible"},
                                                         {"requested_model", "reviewer-default"},
                                                         {"source", "api"},
                                                         {"purpose", "cm-ai:task_review"},
                                                         {"input_tokens", 10},
                                                         {"output_tokens", 2}});
  return {
      kUnavailable,
      merged(kUnavailable, {{"event_id", "unavailable-error-event"}, {"call_id", "coder-call-0002"},
                            {"at", "2026-08-06T11:00:30+00:00"}, {"duration_ms", 400}, {"outcome", "error"}}),
      kUnresolvedClaim,
      merged(kUnresolvedClaim, {{"event_id", "mismatched-claim-event"}, {"call_id", "mismatched-call-0001"}}),
      merged(kMalformedBase, {{"event_id", "mismatched-usage-event"},
                              {"call_id", "mismatched-call-0001"},
                              {"workflow", "cm-prd"},
                              {"stage", "design_generation"},
                              {"role", "planner"},
                              {"adapter", "other-api"},
                              {"requested_model", "planner-default"},
                              {"purpose", "cm-prd:design_generation"},
                              {"input_tokens", 10},
                              {"output_tokens", 2}}),
      conflicting_claim_one,
      merged(conflicting_claim_one, {{"event_id", "conflicting-claim-two"},
                                     {"stage", "design_generation"},
                                     {"role", "planner"},
                                     {"requested_model", "planner-default"},
                                     {"purpose", "cm-ai:design_generation"}}),
      conflicting_usage,
      merged(conflicting_usage, {{"event_id", "usage-before-claim-event"}, {"call_id", "usage-before-claim-0001"}}),
      merged(conflicting_claim_one, {{"event_id", "claim-after-usage-event"}, {"call_id", "usage-before-claim-0001"}}),
      merged(conflicting_usage, {{"event_id", "managed-without-claim-event"}, {"call_id", "managed-without-claim-0002"}}),
      merged(kMalformedBase, {{"event_id", "malformed-missing-input"}, {"call_id", "malformed-call-0001"},
                              {"output_tokens", 4}}),
      merged(kMalformedBase, {{"event_id", "malformed-bool-input"}, {"call_id", "malformed-call-0002"},
                              {"input_tokens", true}, {"output_tokens", 4}}),
      merged(kMalformedBase, {{"event_id", "malformed-negative-output"}, {"call_id", "malformed-call-0003"},
                              {"input_tokens", 4}, {"output_tokens", -1}}),
  };
}

Json index_row(const std::string& run_id, const std::string& at, const std::string& status,
               const std::string& workflow, const std::string& log_file) {
  return {{"schema_version", 1}, {"at", at},           {"run_id", run_id},         {"status", status},
          {"workflow", workflow}, {"runtime", "codex"}, {"project", "fixture"}, {"log_file", log_file}};
}

// The §4.4 fixture: run A (index at 10:00) and run B (11:00), both done.
void write_fixture(const fs::path& home) {
  const Json event = planner_event();
  write_jsonl(home / "index.jsonl",
              {index_row("usage-fixture-0001", "2026-08-06T10:00:00+00:00", "done", "cm-prd",
                         "runs/2026-08/usage-fixture-0001.jsonl"),
               index_row("usage-fixture-0002", "2026-08-06T11:00:00+00:00", "done", "cm-ai",
                         "runs/2026-08/usage-fixture-0002.jsonl")});
  write_jsonl(home / "runs/2026-08/usage-fixture-0001.jsonl",
              {event, event, merged(event, {{"event_id", "conflicting-call-event"}, {"output_tokens", 301}})});
  write_jsonl(home / "runs/2026-08/usage-fixture-0002.jsonl", run_b_rows());
}

UsageReport report_of(const fs::path& home, std::size_t last) {
  UsageReportOptions options;
  options.log_home = home;
  options.last = last;
  return build_usage_report(options);
}

bool has_warning(const UsageReport& report, const std::string& text) {
  for (const auto& w : report.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

std::size_t count_warnings(const UsageReport& report, const std::string& text) {
  std::size_t count = 0;
  for (const auto& w : report.warnings)
    if (w.find(text) != std::string::npos) ++count;
  return count;
}

}  // namespace

TEST_CASE("spec 82-86: the reference fixture, last 2", "[usage-report]") {
  TempHome home;
  write_fixture(home.path);
  const UsageReport report = report_of(home.path, 2);
  const Json json = Json::parse(format_usage_report_json(report));

  // 82
  CHECK(json["schema_version"] == 1);
  CHECK(json["source"] == "cm-global-log-mirror");
  CHECK(json["missing_usage_policy"] == "unavailable-not-guessed");
  CHECK(json["unresolved_claim_policy"] == "reported-not-counted");
  const Json& s = json["summary"];
  CHECK(s["runs"] == 2);
  CHECK(s["observed_calls"] == 1);
  CHECK(s["unavailable_calls"] == 2);
  CHECK(s["unresolved_claims"] == 4);
  CHECK(s["invalid_calls"] == 8);
  CHECK(s["outcomes"].dump() == R"({"success":2,"error":1,"blocked":0,"cancelled":0})");
  CHECK(s["input_tokens"] == 1200);
  CHECK(s["output_tokens"] == 300);
  CHECK(s["cache_read_tokens"] == 800);
  CHECK(s["cache_write_tokens"] == 100);
  CHECK(s["duration_ms"] == 3600);
  CHECK(s["duration_observed_calls"] == 3);

  // 83
  REQUIRE(json["groups"].size() == 1);
  CHECK(json["groups"][0].dump() ==
        R"({"workflow":"cm-prd","stage":"design_generation","role":"planner","adapter":"company-api",)"
        R"("model":"provider-model-v2","model_source":"effective","outcome":"success","calls":1,)"
        R"("input_tokens":1200,"output_tokens":300,"cache_read_tokens":800,"cache_write_tokens":100,)"
        R"("duration_ms":2500,"duration_observed_calls":1})");
  CHECK(json["unavailable_groups"].dump() ==
        R"([{"workflow":"cm-ai","stage":"task_execution","role":"coder","outcome":"error","calls":1,)"
        R"("duration_ms":400,"duration_observed_calls":1},)"
        R"({"workflow":"cm-ai","stage":"task_execution","role":"coder","outcome":"success","calls":1,)"
        R"("duration_ms":700,"duration_observed_calls":1}])");
  CHECK(json["unresolved_groups"].dump() ==
        R"([{"workflow":"cm-ai","stage":"task_review","role":"reviewer","adapter":"openai-compatible",)"
        R"("requested_model":"reviewer-default","source":"api","claims":4}])");

  // 84
  CHECK(has_warning(report, "ignored malformed model_usage"));
  CHECK(has_warning(report, "conflicting model_call identity"));
  CHECK(has_warning(report, "mismatched claim identity"));

  // 86: the 8 invalid rows, and nothing for the exact repeat of E.
  const std::string run_a = (home.path / "runs/2026-08/usage-fixture-0001.jsonl").string();
  const std::string run_b = (home.path / "runs/2026-08/usage-fixture-0002.jsonl").string();
  const std::vector<std::string> expected = {
      "warning: conflicting model_call identity at " + run_b + ":7",
      "warning: ignored malformed model_usage at " + run_b + ":12 (invalid input count)",
      "warning: ignored malformed model_usage at " + run_b + ":13 (invalid input count)",
      "warning: ignored malformed model_usage at " + run_b + ":14 (invalid output count)",
      "warning: ignored model_usage with mismatched claim identity at " + run_b + ":5",
      "warning: ignored model_usage with mismatched claim identity at " + run_b + ":8",
      "warning: ignored model_usage with mismatched claim identity at " + run_b + ":9",
      "warning: ignored managed model_usage without prior claim at " + run_b + ":11",
      "warning: ignored duplicate model_usage call_id at " + run_a + ":3",
  };
  CHECK(report.warnings == expected);
}

TEST_CASE("spec 85: text output of the fixture", "[usage-report]") {
  TempHome home;
  write_fixture(home.path);
  const std::vector<std::string> lines = format_usage_report_text(report_of(home.path, 2));
  const std::vector<std::string> expected = {
      "CM API Usage（最近 2 次运行）",
      "- calls: observed 1 | unavailable 2 | unresolved claims 4 | invalid 8",
      "- tokens: input 1200 | output 300 | cache read 800 | cache write 100",
      "- outcomes: success 2 | error 1 | blocked 0 | cancelled 0",
      "- observed duration: 3600 ms across 3 calls",
      "- cm-prd/design_generation | planner | company-api | provider-model-v2 (effective) | success | calls 1, in "
      "1200, out 300, cache-read 800, cache-write 100",
      "- unresolved: cm-ai/task_review | reviewer | openai-compatible | reviewer-default | claims 4",
      "- 缺失 usage 保持 unavailable；未完成 claim 单独报告且不计调用/Token；未推测缺失用量，也未换算费用。",
  };
  CHECK(lines == expected);
}

TEST_CASE("spec 87: --last 1 keeps only the newest run", "[usage-report]") {
  TempHome home;
  write_fixture(home.path);
  const UsageReport report = report_of(home.path, 1);
  CHECK(report.summary.runs == 1);
  CHECK(n(report.summary.observed_calls) == "0");
  CHECK(n(report.summary.unavailable_calls) == "2");
  CHECK(n(report.summary.invalid_calls) == "7");  // run A's duplicate call id is not read
  CHECK(report.groups.empty());
}

TEST_CASE("spec 88: a log path outside the log home is refused", "[usage-report]") {
  TempHome home;
  write_text(home.path / "outside.jsonl", planner_event().dump() + "\n");
  const fs::path inner = home.path / "home";
  write_jsonl(inner / "index.jsonl",
              {index_row("usage-fixture-0001", "2026-08-06T10:00:00+00:00", "running", "cm-prd", "../outside.jsonl")});
  const UsageReport report = report_of(inner, 10);
  CHECK(report.warnings == std::vector<std::string>{"warning: ignored log path outside log home: ../outside.jsonl",
                                                    "warning: missing run log for usage-fixture-0001"});
  CHECK(report.summary.runs == 1);
  CHECK(n(report.summary.observed_calls) == "0");
}

TEST_CASE("spec 88: an absolute log path or a symlink leaving the home is refused too", "[usage-report]") {
  TempHome home;
  const fs::path outside = home.path / "outside.jsonl";
  write_text(outside, planner_event().dump() + "\n");
  const fs::path inner = home.path / "home";
  fs::create_directories(inner / "runs/2026-08");
  fs::create_symlink(outside, inner / "runs/2026-08/usage-fixture-0001.jsonl");
  write_jsonl(inner / "index.jsonl",
              {index_row("usage-fixture-0001", "2026-08-06T10:00:00+00:00", "running", "cm-prd",
                         "runs/2026-08/usage-fixture-0001.jsonl"),
               index_row("usage-fixture-0002", "2026-08-06T09:00:00+00:00", "running", "cm-prd", outside.string())});
  const UsageReport report = report_of(inner, 10);
  CHECK(count_warnings(report, "ignored log path outside log home") == 2);
  CHECK(count_warnings(report, "missing run log for") == 2);
  CHECK(report.summary.runs == 2);
}

TEST_CASE("spec 88: a missing run file is a warning, the run still counts", "[usage-report]") {
  TempHome home;
  write_jsonl(home.path / "index.jsonl", {index_row("usage-fixture-0009", "2026-08-06T10:00:00+00:00", "running",
                                                    "cm-ai", "runs/2026-08/usage-fixture-0009.jsonl")});
  const UsageReport report = report_of(home.path, 10);
  CHECK(report.warnings == std::vector<std::string>{"warning: missing run log for usage-fixture-0009"});
  CHECK(report.summary.runs == 1);
}

TEST_CASE("spec 89: no index means zero runs", "[usage-report]") {
  TempHome home;
  for (const fs::path& where : {home.path, home.path / "does-not-exist"}) {
    const UsageReport report = report_of(where, 10);
    CHECK(report.warnings.empty());
    CHECK(format_usage_report_json(report) ==
          R"({"schema_version":1,"source":"cm-global-log-mirror","missing_usage_policy":"unavailable-not-guessed",)"
          R"("unresolved_claim_policy":"reported-not-counted","summary":{"runs":0,"observed_calls":0,)"
          R"("unavailable_calls":0,"unresolved_claims":0,"invalid_calls":0,"outcomes":{"success":0,"error":0,)"
          R"("blocked":0,"cancelled":0},"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,)"
          R"("cache_write_tokens":0,"duration_ms":0,"duration_observed_calls":0},"groups":[],)"
          R"("unavailable_groups":[],"unresolved_groups":[]})");
    const auto lines = format_usage_report_text(report);
    REQUIRE(lines.size() == 5);  // no duration line without durations
    CHECK(lines[0] == "CM API Usage（最近 0 次运行）");
  }
}

TEST_CASE("spec 91: null counts and durations", "[usage-report]") {
  std::vector<std::string> warnings;
  UsageTally tally(warnings);
  tally.add_run("run-0000001", "r.jsonl",
                {{1, merged(kUnavailable, {{"run_id", "run-0000001"}, {"event_id", "a"}, {"input_tokens", nullptr}})},
                 {2, merged(kMalformedBase, {{"run_id", "run-0000001"}, {"event_id", "b"}, {"call_id", "c-2"},
                                             {"input_tokens", 1}, {"output_tokens", 1}, {"cache_read_tokens", nullptr}})},
                 {3, merged(kUnavailable, {{"run_id", "run-0000001"}, {"event_id", "c"}, {"call_id", "c-3"},
                                           {"duration_ms", nullptr}})},
                 {4, merged(kUnavailable, {{"run_id", "run-0000001"}, {"event_id", "d"}, {"call_id", "c-4"},
                                           {"duration_ms", 5.0}})}});
  const UsageReport report = tally.finish(1);
  CHECK(report.warnings == std::vector<std::string>{
                               "warning: ignored malformed model_usage at r.jsonl:1 (unavailable row contains token counts)",
                               "warning: ignored malformed model_usage at r.jsonl:2 (invalid cache count)",
                               "warning: ignored malformed model_usage at r.jsonl:4 (invalid duration)"});
  CHECK(n(report.summary.invalid_calls) == "3");
  CHECK(n(report.summary.unavailable_calls) == "1");
  CHECK(n(report.summary.totals.duration_observed_calls) == "0");
}

TEST_CASE("spec 92: without effective_model the requested model is reported", "[usage-report]") {
  std::vector<std::string> warnings;
  UsageTally tally(warnings);
  const Json row = merged(kMalformedBase, {{"run_id", "run-0000001"}, {"event_id", "a"}, {"call_id", "c-1"},
                                           {"input_tokens", 3}, {"output_tokens", 4}, {"effective_model", ""}});
  tally.add_run("run-0000001", "r.jsonl", {{1, row}});
  const UsageReport report = tally.finish(1);
  REQUIRE(report.groups.size() == 1);
  CHECK(report.groups[0].model == "coder-default");
  CHECK(report.groups[0].model_source == "requested");
  CHECK(n(report.groups[0].totals.cache_read_tokens) == "0");
  CHECK(n(report.summary.totals.duration_observed_calls) == "0");
  CHECK(warnings.empty());
}

TEST_CASE("usage report: validation reasons in order", "[usage-report]") {
  const auto reason = [](const Json& row) {
    std::vector<std::string> warnings;
    UsageTally tally(warnings);
    tally.add_run("run-0000001", "r", {{1, merged(row, {{"run_id", "run-0000001"}})}});
    tally.finish(1);
    return warnings.empty() ? std::string("valid") : warnings[0];
  };
  const Json ok = merged(kMalformedBase, {{"call_id", "c-1"}, {"input_tokens", 1}, {"output_tokens", 2}});
  CHECK(reason(ok) == "valid");
  CHECK(reason(without(ok, "call_id")) == "warning: ignored malformed model_usage at r:1 (invalid call_id)");
  CHECK(reason(merged(ok, {{"call_id", "-bad"}})) == "warning: ignored malformed model_usage at r:1 (invalid call_id)");
  CHECK(reason(merged(ok, {{"call_id", std::string(129, 'a')}})) ==
        "warning: ignored malformed model_usage at r:1 (invalid call_id)");
  CHECK(reason(merged(ok, {{"phase", "claimed"}})) == "warning: ignored malformed model_usage at r:1 (invalid phase)");
  CHECK(reason(without(ok, "workflow")) == "warning: ignored malformed model_usage at r:1 (invalid workflow)");
  CHECK(reason(merged(ok, {{"runtime", ""}})) == "warning: ignored malformed model_usage at r:1 (invalid runtime)");
  CHECK(reason(merged(ok, {{"purpose", 5}})) == "warning: ignored malformed model_usage at r:1 (invalid purpose)");
  CHECK(reason(merged(ok, {{"outcome", "ok"}})) == "warning: ignored malformed model_usage at r:1 (invalid outcome)");
  CHECK(reason(merged(ok, {{"duration_ms", -1}})) == "warning: ignored malformed model_usage at r:1 (invalid duration)");
  CHECK(reason(merged(ok, {{"duration_ms", true}})) ==
        "warning: ignored malformed model_usage at r:1 (invalid duration)");
  CHECK(reason(merged(ok, {{"input_tokens", 1.5}})) ==
        "warning: ignored malformed model_usage at r:1 (invalid input count)");
  CHECK(reason(merged(ok, {{"output_tokens", "2"}})) ==
        "warning: ignored malformed model_usage at r:1 (invalid output count)");
  CHECK(reason(merged(ok, {{"cache_write_tokens", -3}})) ==
        "warning: ignored malformed model_usage at r:1 (invalid cache count)");
  CHECK(reason(merged(ok, {{"usage_state", "guessed"}})) ==
        "warning: ignored malformed model_usage at r:1 (invalid usage state)");
  CHECK(reason(without(ok, "usage_state")) == "warning: ignored malformed model_usage at r:1 (invalid usage state)");
  const Json claim = merged(kUnresolvedClaim, {{"call_id", "c-1"}});
  CHECK(reason(claim) == "valid");
  CHECK(reason(merged(claim, {{"phase", "complete"}})) == "warning: ignored malformed model_call at r:1 (invalid phase)");
  CHECK(reason(merged(claim, {{"source", nullptr}})) == "warning: ignored malformed model_call at r:1 (invalid source)");
  // Rows of another run and other events are ignored.
  CHECK(reason(merged(ok, {{"event", "progress"}, {"call_id", 1}})) == "valid");
}

TEST_CASE("usage report: counts that do not fit 64 bits still add up", "[usage-report]") {
  std::vector<std::string> warnings;
  UsageTally tally(warnings);
  const Json big = merged(kMalformedBase, {{"run_id", "run-0000001"}, {"input_tokens", 18446744073709551615ull},
                                           {"output_tokens", 1}});
  tally.add_run("run-0000001", "r",
                {{1, merged(big, {{"event_id", "a"}, {"call_id", "c-1"}})},
                 {2, merged(big, {{"event_id", "b"}, {"call_id", "c-2"}})}});
  const UsageReport report = tally.finish(1);
  CHECK(n(report.summary.totals.input_tokens) == "36893488147419103230");
  CHECK(format_usage_report_json(report).find(R"("input_tokens":36893488147419103230)") != std::string::npos);
}

TEST_CASE("usage report: event ids deduplicate across runs, call ids per run", "[usage-report]") {
  std::vector<std::string> warnings;
  UsageTally tally(warnings);
  const Json row = merged(kMalformedBase, {{"event_id", "same"}, {"call_id", "c-1"}, {"input_tokens", 1},
                                           {"output_tokens", 1}});
  tally.add_run("run-0000001", "a", {{1, merged(row, {{"run_id", "run-0000001"}})}});
  tally.add_run("run-0000002", "b",
                {{1, merged(row, {{"run_id", "run-0000002"}})},
                 {2, merged(row, {{"run_id", "run-0000002"}, {"event_id", "other"}})},
                 {3, merged(without(row, "event_id"), {{"run_id", "run-0000002"}, {"call_id", "c-9"}})},
                 {4, merged(without(row, "event_id"), {{"run_id", "run-0000002"}, {"call_id", "c-9"}})}});
  const UsageReport report = tally.finish(2);
  // run 1 c-1 counts; run 2 line 1 is the same event id (skipped); line 2 is c-1 again in
  // run 2 (a different run: counts); lines 3-4 have no event id, so each is its own event,
  // and the second is a duplicate call id.
  CHECK(n(report.summary.observed_calls) == "3");
  CHECK(n(report.summary.invalid_calls) == "1");
  CHECK(warnings == std::vector<std::string>{"warning: ignored duplicate model_usage call_id at b:4"});
}

TEST_CASE("usage report: groups sort by code point, ties keep creation order", "[usage-report]") {
  std::vector<std::string> warnings;
  UsageTally tally(warnings);
  const Json base = merged(kMalformedBase, {{"run_id", "run-0000001"}, {"input_tokens", 1}, {"output_tokens", 1}});
  tally.add_run("run-0000001", "r",
                {{1, merged(base, {{"event_id", "1"}, {"call_id", "c-1"}, {"stage", "z"}})},
                 {2, merged(base, {{"event_id", "2"}, {"call_id", "c-2"}, {"stage", "é"}})},
                 {3, merged(base, {{"event_id", "3"}, {"call_id", "c-3"}, {"stage", "Z"}})},
                 // same sort key (model_source is not in it): effective first, requested second
                 {4, merged(base, {{"event_id", "4"}, {"call_id", "c-4"}, {"stage", "a"},
                                   {"effective_model", "coder-default"}})},
                 {5, merged(base, {{"event_id", "5"}, {"call_id", "c-5"}, {"stage", "a"}})}});
  const UsageReport report = tally.finish(1);
  REQUIRE(report.groups.size() == 5);
  CHECK(report.groups[0].stage == "Z");
  CHECK(report.groups[1].stage == "a");
  CHECK(report.groups[1].model_source == "effective");
  CHECK(report.groups[2].model_source == "requested");
  CHECK(report.groups[3].stage == "z");
  CHECK(report.groups[4].stage == "é");
}

TEST_CASE("usage report: run selection merges index rows", "[usage-report]") {
  std::vector<std::string> warnings;
  const auto rows = parse_jsonl(
      "{\"run_id\":\"run-a\",\"at\":\"2026-08-06T10:00:00+00:00\",\"status\":\"running\",\"log_file\":\"a1\"}\n"
      "{\"run_id\":\"run-b\",\"at\":\"2026-08-06T12:00:00+02:00\",\"status\":\"running\",\"log_file\":\"b\"}\n"
      "{\"run_id\":\"run-a\",\"at\":\"2026-08-06T10:30:00Z\",\"status\":\"done\",\"log_file\":\"a2\"}\n"
      "{\"run_id\":\"run-a\",\"at\":\"2026-08-06T09:00:00+00:00\",\"status\":\"running\",\"log_file\":\"a3\"}\n"
      "{\"run_id\":\"run-c\",\"at\":\"2026-08-06T10:30:00\",\"log_file\":\"c\"}\n"
      "{\"run_id\":\"run-d\",\"at\":\"yesterday\",\"log_file\":\"d\"}\n"
      "{\"run_id\":\"run-e\",\"at\":\"2026-08-06T11:00:00+00:00\",\"log_file\":5}\n"
      "{\"run_id\":\"run-f\",\"at\":\"2026-08-06T10:00:00+00:00\",\"log_file\":\"f\"}\n",
      "index", warnings);
  CHECK(warnings.empty());
  const auto runs = select_runs(rows, 10);
  REQUIRE(runs.size() == 4);
  // run-b is 10:00Z, the same instant as run-f's and run-a's first row; run-a moved to 10:30Z,
  // tied with the naive (UTC) run-c, which appeared later.
  CHECK(runs[0].run_id == "run-a");
  CHECK(runs[0].log_file == "a2");  // the latest row, not the last one
  CHECK(runs[0].done);
  CHECK(runs[1].run_id == "run-c");
  CHECK(runs[2].run_id == "run-b");
  CHECK(runs[3].run_id == "run-f");
  CHECK(select_runs(rows, 2).size() == 2);
}

TEST_CASE("usage report: JSONL lines", "[usage-report]") {
  std::vector<std::string> warnings;
  const auto rows = parse_jsonl("{\"a\":1}\r\n"
                                "\n"
                                "  \t\n"
                                "[1,2]\n"
                                "not json\n"
                                "\xEF\xBB\xBF{\"bom\":1}\n"
                                "{\"nan\":NaN,\"inf\":-Infinity,\"s\":\"NaN Infinity\"}\n"
                                "{\"last\":true}",
                                "f.jsonl", warnings);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].line == 1);
  CHECK(rows[1].line == 7);
  CHECK(rows[1].value["nan"].is_number_float());
  CHECK(rows[1].value["inf"].is_number_float());
  CHECK(rows[1].value["s"] == "NaN Infinity");
  CHECK(rows[2].line == 8);
  CHECK(warnings == std::vector<std::string>{"warning: invalid JSON at f.jsonl:5", "warning: invalid JSON at f.jsonl:6"});
}

TEST_CASE("usage report: a file that is not UTF-8 or not readable is a warning", "[usage-report]") {
  TempHome home;
  write_jsonl(home.path / "index.jsonl",
              {index_row("run-00000001", "2026-08-06T10:00:00+00:00", "running", "cm-ai", "runs/2026-08/a.jsonl"),
               index_row("run-00000002", "2026-08-06T09:00:00+00:00", "running", "cm-ai", "runs/2026-08/b.jsonl")});
  write_text(home.path / "runs/2026-08/a.jsonl", "{\"detail\":\"\xff\"}\n");
  write_text(home.path / "runs/2026-08/b.jsonl", "{}\n");
  ::chmod((home.path / "runs/2026-08/b.jsonl").c_str(), 0);
  const bool root = ::geteuid() == 0;  // root reads files whatever their mode
  const UsageReport report = report_of(home.path, 10);
  CHECK(report.warnings[0] == "warning: cannot read " + (home.path / "runs/2026-08/a.jsonl").string() +
                                  ": UnicodeDecodeError");
  if (!root) {
    REQUIRE(report.warnings.size() == 2);
    CHECK(report.warnings[1] == "warning: cannot read " + (home.path / "runs/2026-08/b.jsonl").string() +
                                    ": PermissionError");
  }
  CHECK(report.summary.runs == 2);
}

TEST_CASE("usage report: ISO 8601 timestamps as Python reads them", "[usage-report]") {
  const auto at = [](const char* text) { return parse_iso_instant(text); };
  const std::int64_t ten = *at("2026-08-06T10:00:00+00:00");
  CHECK(ten == 1786010400LL * 1000000);
  CHECK(at("2026-08-06T03:00:00-07:00") == ten);
  CHECK(at("2026-08-06T10:00:00Z") == ten);
  CHECK(at("2026-08-06T10:00:00") == ten);  // naive = UTC
  CHECK(at("2026-08-06 10:00") == ten);
  CHECK(at("2026-08-06T10") == ten);
  CHECK(at("20260806T100000") == ten);
  CHECK(at("2026-08-06é10:00") == ten);  // any one character separates
  CHECK(at("2026-08-06T11:00:00+0100") == ten);
  CHECK(at("2026-08-06T11:00:00+01") == ten);
  CHECK(at("2026-08-06T10:00:00-00:00") == ten);
  CHECK(at("2026-08-06") == *at("2026-08-06T00:00:00Z"));
  CHECK(at("2026-08-06T10:00:00.5") == ten + 500000);
  CHECK(at("2026-08-06T10:00:00,1234567") == ten + 123456);
  CHECK(at("2026-08-06T10:00.5") == ten + 500000);
  CHECK(at("2026-08-06T11:00:30+01:00:30") == ten);
  for (const char* bad : {"", "yesterday", "2026-8-06", "2026-02-30", "0000-01-01", "2026-08-06T", "2026-08-06T24:00",
                          "2026-08-06T10:00:00.", "2026-08-06T10:00:00+", "2026-08-06T10:00:00+010",
                          "2026-08-06T10:00:00+24:00", "2026-08-06T10:0000", "2026-08-06T1000:00", "2026-13-01"}) {
    INFO(bad);
    CHECK_FALSE(at(bad).has_value());
  }
  CHECK(at("2024-02-29").has_value());
  CHECK_FALSE(at("2023-02-29").has_value());
}
