// The CM event-log writer (usage-boundary spec §2): event ids, --data-json and model-event
// validation, claim/completion state, record layout, index, pointer, permissions,
// degraded mode. Every case writes into its own temporary directory.
#include <catch2/catch.hpp>

#include <sys/file.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../../src/store/event_log_internal.hpp"
#include "strata/store/event_log.hpp"

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using strata::store::LogEventArgs;
using strata::store::LogEventOutcome;
using strata::store::log_event;

namespace {

// P, S, H of spec §4 in a fresh directory; CM_WORKFLOW_LOG_HOME = H.
struct LogFixture {
  std::string root, project, specs, home;
  std::optional<std::string> previous_home;

  LogFixture() {
    std::string pattern = (fs::temp_directory_path() / "strata-event-log-XXXXXX").string();
    root = fs::canonical(::mkdtemp(pattern.data())).string();
    project = root + "/project";
    specs = root + "/specs";
    home = root + "/logs";
    fs::create_directories(project);
    fs::create_directories(specs);
    if (const char* previous = std::getenv("CM_WORKFLOW_LOG_HOME")) previous_home = previous;
    ::setenv("CM_WORKFLOW_LOG_HOME", home.c_str(), 1);
  }
  ~LogFixture() {
    if (previous_home) ::setenv("CM_WORKFLOW_LOG_HOME", previous_home->c_str(), 1);
    else ::unsetenv("CM_WORKFLOW_LOG_HOME");
    std::error_code ec;
    fs::permissions(root, fs::perms::owner_all, ec);
    fs::remove_all(root, ec);
  }

  std::string project_log() const { return specs + "/运行日志.jsonl"; }

  LogEventArgs args(const std::string& event, std::optional<std::string> phase, const std::string& data,
                    bool with_specs = true) const {
    LogEventArgs a;
    a.workflow = "cm-prd";
    a.event = event;
    a.runtime = "codex";
    a.detail = event + " fixture";
    a.phase = std::move(phase);
    a.project_root = project;
    if (with_specs) a.specs_dir = specs;
    a.run_id = "adapter-fixture-0001";
    a.data_json = data;
    return a;
  }

  LogEventOutcome run_start() const { return log_event(args("run_start", "start", "{}")); }
};

ordered_json parse(const std::string& text) { return ordered_json::parse(text); }

std::vector<ordered_json> jsonl(const std::string& path) {
  std::vector<ordered_json> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(parse(line));
  return rows;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

unsigned mode_of(const std::string& path) {
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  return info.st_mode & 07777;
}

// The single stderr line of a refusal with exit 2 (and nothing on stdout).
std::string refusal(const LogEventOutcome& outcome) {
  CHECK(outcome.exit_code == 2);
  CHECK(outcome.stdout_line.empty());
  REQUIRE(outcome.stderr_lines.size() == 1);
  return outcome.stderr_lines.front();
}

const std::string kClaim =
    R"({"call_id":"planner-call-0001","stage":"design_generation","role":"planner","adapter":"openai-compatible",)"
    R"("requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation"})";
const std::string kUsage =
    R"({"call_id":"planner-call-0001","stage":"design_generation","role":"planner","adapter":"openai-compatible",)"
    R"("requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation",)"
    R"("usage_state":"observed","duration_ms":2500,"outcome":"success","effective_model":"provider-model-v2",)"
    R"("input_tokens":1200,"output_tokens":300,"cache_read_tokens":800,"cache_write_tokens":100})";

// A model_usage data object with one member replaced (or removed when value is empty).
std::string usage_with(const std::string& key, const std::string& value) {
  ordered_json data = parse(kUsage);
  if (value.empty()) data.erase(key);
  else data[key] = parse(value);
  return data.dump();
}

}  // namespace

TEST_CASE("event ids are UUIDv5 of the canonical record without at (spec vector)", "[event-log]") {
  const ordered_json record = parse(
      R"({"schema_version":1,"run_id":"20260729T160000Z-active01","workflow":"cm-ai","event":"progress",)"
      R"("runtime":"codex","project":"示例","detail":"任务执行中","phase":"execute","feature":"1.login"})");
  CHECK(strata::store::python_json(record, true, false) ==
        R"({"detail":"任务执行中","event":"progress","feature":"1.login","phase":"execute","project":"示例",)"
        R"("run_id":"20260729T160000Z-active01","runtime":"codex","schema_version":1,"workflow":"cm-ai"})");
  CHECK(strata::store::event_id_for(record) == "85b8ed7a-364d-5a22-ae19-9e60fae968e6");
  ordered_json with_at = record;
  with_at["at"] = "2026-07-29T16:00:00+00:00";
  with_at["event_id"] = "ignored";
  CHECK(strata::store::event_id_for(with_at) == "85b8ed7a-364d-5a22-ae19-9e60fae968e6");
  // python3 -c 'import uuid; print(uuid.uuid5(uuid.NAMESPACE_URL, "https://www.python.org/"))'
  CHECK(strata::store::uuid5_url("https://www.python.org/") == "5406f80d-92e9-51cd-a176-77445955e733");
}

TEST_CASE("the same event at a different --at has the same id (test 60)", "[event-log]") {
  LogFixture f;
  LogEventArgs a = f.args("progress", "execute", R"({"feature":"1.login"})");
  a.at = "2026-07-29T16:00:00Z";
  const auto first = log_event(a);
  a.at = "2026-07-30T09:00:00+08:00";
  const auto second = log_event(a);
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(parse(first.stdout_line)["event_id"] == parse(second.stdout_line)["event_id"]);
  CHECK(parse(second.stdout_line)["deduplicated"] == true);
}

TEST_CASE("python_json writes what Python's json.dumps writes", "[event-log]") {
  using strata::store::python_json;
  CHECK(python_json(parse(R"([1.0,1e16,1e-7,-0.0,0.0001,1e15,1.5e-5,123456789012345678.0,0.1,-5,18446744073709551615])"), false, false) ==
        "[1.0,1e+16,1e-07,-0.0,0.0001,1000000000000000.0,1.5e-05,1.2345678901234568e+17,0.1,-5,18446744073709551615]");
  CHECK(python_json(parse(R"({"b":"a\"\\\n\r\t\b\f\u0001\u007f/é😀","a":null})"), true, false) ==
        "{\"a\":null,\"b\":\"a\\\"\\\\\\n\\r\\t\\b\\f\\u0001\x7f/é😀\"}");
  CHECK(python_json(parse(R"(["é😀\u007f"])"), false, true) == R"(["\u00e9\ud83d\ude00\u007f"])");
}

TEST_CASE("The --data-json rules in order (spec §2.5, tests 62, 73, 80)", "[event-log]") {
  LogFixture f;
  const auto message = [&](const std::string& event, const std::string& data) {
    return refusal(log_event(f.args(event, std::nullopt, data)));
  };
  std::string big = R"({"x":")" + std::string(8192 - 8, 'a') + R"("})";
  REQUIRE(big.size() == 8192);
  CHECK(log_event(f.args("progress", std::nullopt, big)).exit_code == 0);
  big.insert(7, "a");
  CHECK(message("progress", big) == "--data-json cannot exceed 8192 UTF-8 bytes");
  for (const char* bad : {"[]", "\"x\"", "nope", "{", "{\"a\":NaN}", "{\"a\":Infinity}", "\xEF\xBB\xBF{}",
                          "{\"a\":\"\\ud800\"}", "{\"a\":\"\xff\"}", "{} {}"})
    CHECK(message("progress", bad) == "--data-json must be a JSON object");
  CHECK(message("progress", R"({"a":1e400})") == "--data-json numbers must be finite and integers must fit in 64 bits");
  CHECK(message("progress", R"({"a":123456789012345678901234567890})") ==
        "--data-json numbers must be finite and integers must fit in 64 bits");
  CHECK(message("progress", R"({"run_id":"x","at":"y","detail":"z"})") ==
        "--data-json cannot override reserved fields: at, detail, run_id");
  CHECK(message("progress", R"({"api_key":"secret-value-123"})") == "sensitive log field is forbidden: data.api_key");
  CHECK(message("progress", R"({"a":{"list":[1,{"X-Private_Key":"v"}]}})") ==
        "sensitive log field is forbidden: data.a.list[1].X-Private_Key");
  CHECK(message("progress", R"({"ok":1,"nested":{"AUTHORIZATION":"v"}})") ==
        "sensitive log field is forbidden: data.nested.AUTHORIZATION");
  CHECK(message("progress", R"({"ſecret":"v"})") == "sensitive log field is forbidden: data.ſecret");  // re.IGNORECASE
  CHECK(message("progress", R"({"input_tokens":1})") == "sensitive log field is forbidden: data.input_tokens");
  CHECK(message("model_usage", usage_with("access_token", "\"v\"")) == "sensitive log field is forbidden: data.access_token");
  CHECK(message("model_usage", usage_with("max_tokens", "1")) == "sensitive log field is forbidden: data.max_tokens");
  CHECK(message("model_usage", usage_with("node", R"({"input_tokens":1})")) ==
        "sensitive log field is forbidden: data.node.input_tokens");
  CHECK(message("model_call", R"({"call_id":"c-1","input_tokens":1})") == "sensitive log field is forbidden: data.input_tokens");

  // A refused value never appears in a message, and nothing was created in the log home.
  const auto outcome = log_event(f.args("progress", std::nullopt, R"({"password":"hunter2-secret"})"));
  CHECK(outcome.stderr_lines.front().find("hunter2") == std::string::npos);
  fs::remove_all(f.home);
  CHECK(message("progress", R"({"api_key":"secret"})") == "sensitive log field is forbidden: data.api_key");
  CHECK_FALSE(fs::exists(f.home));
}

TEST_CASE("model_call and model_usage validation messages (spec §2.7, tests 69, 72-75, 77, 79)", "[event-log]") {
  LogFixture f;
  struct Case {
    const char* event;
    std::optional<std::string> phase;
    std::string data;
    const char* message;
  };
  const std::string long_text(161, 'm');
  const std::vector<Case> cases = {
      {"model_call", "claimed", R"({"call_id":"c-1","prompt":"p","zeta":1,"Alpha":2})",
       "model_call contains unsupported fields: Alpha, prompt, zeta"},
      {"model_call", std::nullopt, kClaim, "model_call events require phase claimed"},
      {"model_call", "complete", kClaim, "model_call events require phase claimed"},
      {"model_call", "claimed", R"({"call_id":"-bad","role":"planner"})", "model_call requires a valid call_id"},
      {"model_call", "claimed", R"({"call_id":7,"role":"planner"})", "model_call requires a valid call_id"},
      {"model_call", "claimed", R"({"call_id":"c-1","role":"9planner"})", "model_call requires a valid role"},
      {"model_call", "claimed", R"({"call_id":"c-1","role":"planner"})", "model event requires a non-empty stage"},
      {"model_call", "claimed", R"({"call_id":"c-1","role":"planner","stage":" \u3000 "})", "model event requires a non-empty stage"},
      {"model_call", "claimed", R"({"call_id":"c-1","role":"planner","stage":"s","adapter":"a","requested_model":"m","source":"api"})",
       "model event requires a non-empty purpose"},
      {"model_call", "claimed", R"({"call_id":"c-1","role":"planner","stage":"a\nb"})",
       "model event stage must be one line and at most 160 characters"},
      {"model_usage", "complete", usage_with("prompt", "\"p\""), "model_usage contains unsupported fields: prompt"},
      {"model_usage", "claimed", kUsage, "model_usage events require phase complete"},
      {"model_usage", "complete", usage_with("call_id", ""), "model_usage requires a valid call_id"},
      {"model_usage", "complete", usage_with("role", "\"a b\""), "model_usage requires a valid role"},
      {"model_usage", "complete", usage_with("usage_state", "\"guessed\""), "model_usage usage_state must be observed or unavailable"},
      {"model_usage", "complete", usage_with("outcome", "\"ok\""),
       "model_usage outcome must be success, error, blocked, or cancelled"},
      {"model_usage", "complete", usage_with("source", "\"\""), "model event requires a non-empty source"},
      {"model_usage", "complete", usage_with("effective_model", "\"" + long_text + "\""),
       "model event effective_model must be one line and at most 160 characters"},
      {"model_usage", "complete", usage_with("provider", "5"), "model event requires a non-empty provider"},
      {"model_usage", "complete", usage_with("attempt", "0"), "model_usage attempt must be a positive integer"},
      {"model_usage", "complete", usage_with("attempt", "1.0"), "model_usage attempt must be a positive integer"},
      {"model_usage", "complete", usage_with("attempt", "true"), "model_usage attempt must be a positive integer"},
      {"model_usage", "complete",
       R"({"call_id":"c-1","role":"planner","adapter":"company-api","requested_model":"m","source":"api","purpose":"p",)"
       R"("stage":"s","usage_state":"unavailable","outcome":"error","input_tokens":0,"output_tokens":0})",
       "unavailable model_usage cannot contain token counts"},
      {"model_usage", "complete", usage_with("output_tokens", ""), "observed model_usage requires output_tokens"},
      {"model_usage", "complete", usage_with("input_tokens", ""), "observed model_usage requires input_tokens"},
      {"model_usage", "complete", usage_with("input_tokens", "-1"), "model_usage input_tokens must be a non-negative integer"},
      {"model_usage", "complete", usage_with("input_tokens", "1.5"), "model_usage input_tokens must be a non-negative integer"},
      {"model_usage", "complete", usage_with("input_tokens", "5.0"), "model_usage input_tokens must be a non-negative integer"},
      {"model_usage", "complete", usage_with("input_tokens", "true"), "model_usage input_tokens must be a non-negative integer"},
      {"model_usage", "complete", usage_with("cache_read_tokens", "\"8\""),
       "model_usage cache_read_tokens must be a non-negative integer"},
      {"model_usage", "complete", usage_with("duration_ms", "null"), "model_usage duration_ms must be a non-negative integer"},
  };
  for (const auto& c : cases) {
    INFO(c.data);
    CHECK(refusal(log_event(f.args(c.event, c.phase, c.data))) == c.message);
  }
  CHECK_FALSE(fs::exists(f.project_log()));  // nothing was written by any refusal
  // Optional short texts may be null (data.get() is None in the reference).
  CHECK(log_event(f.args("model_usage", "complete", usage_with("provider", "null"))).exit_code == 2);  // no claim yet
}

TEST_CASE("envelope flags: identifiers, --detail, --at, --project, directories, --run-id", "[event-log]") {
  LogFixture f;
  LogEventArgs a = f.args("progress", std::nullopt, "{}");
  a.workflow = "cm prd";
  CHECK(refusal(log_event(a)) == "--workflow must match '^[A-Za-z][A-Za-z0-9._-]{0,63}$'; got 'cm prd'");
  a.workflow = "cm-prd";
  a.phase = "it's";
  CHECK(refusal(log_event(a)) == "--phase must match '^[A-Za-z][A-Za-z0-9._-]{0,63}$'; got \"it's\"");
  a.phase.reset();
  a.detail = " \t";
  CHECK(refusal(log_event(a)) == "--detail cannot be empty");
  a.detail = std::string(501, 'd');
  CHECK(refusal(log_event(a)) == "--detail cannot exceed 500 characters");
  a.detail = std::string(500, 'd');
  CHECK(log_event(a).exit_code == 0);
  a.detail = "two\nlines";
  CHECK(refusal(log_event(a)) == "--detail cannot contain control-line characters");
  a.detail = "ok";
  a.at = "2026-08-06T10:00:00";
  CHECK(refusal(log_event(a)) == "--at must include a timezone offset");
  a.at = "yesterday";
  CHECK(refusal(log_event(a)) == "--at must be an ISO-8601 timestamp");
  a.at = "2026-02-30T10:00:00Z";
  CHECK(refusal(log_event(a)) == "--at must be an ISO-8601 timestamp");
  a.at = "2026-08-06T10:00:00.987654Z";
  auto outcome = log_event(a);
  REQUIRE(outcome.exit_code == 0);
  CHECK(jsonl(f.project_log()).back()["at"] == "2026-08-06T10:00:00+00:00");
  a.at = "2026-08-06 10:00:00.5-0700";
  a.detail = "other";
  REQUIRE(log_event(a).exit_code == 0);
  CHECK(jsonl(f.project_log()).back()["at"] == "2026-08-06T10:00:00-07:00");
  a.at.reset();
  a.detail = "now";
  REQUIRE(log_event(a).exit_code == 0);
  const std::string now = jsonl(f.project_log()).back()["at"];
  CHECK(now.size() == 25);
  CHECK((now[19] == '+' || now[19] == '-'));

  a.project = std::string(121, 'p');
  CHECK(refusal(log_event(a)) == "--project must be one line and at most 120 characters");
  a.project.reset();
  a.specs_dir = f.root + "/missing";
  CHECK(refusal(log_event(a)) == "--specs-dir is not an existing directory: " + f.root + "/missing");
  a.specs_dir = f.specs;
  a.run_id = "abc";
  CHECK(refusal(log_event(a)) == "invalid --run-id");
  a.run_id = "adapter-fixture-0001\n";
  CHECK(refusal(log_event(a)) == "invalid --run-id");
}

TEST_CASE("run_start with specs: record, mirror, index, pointer, output (test 57)", "[event-log]") {
  LogFixture f;
  const auto outcome = f.run_start();
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.stderr_lines.empty());
  const ordered_json result = parse(outcome.stdout_line);
  std::vector<std::string> keys;
  for (const auto& [key, value] : result.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"event_id", "run_id", "project_log", "global_log", "global_written",
                                         "pointer_written", "deduplicated", "degraded"});
  CHECK(outcome.stdout_line.find("\\u8fd0\\u884c\\u65e5\\u5fd7.jsonl") != std::string::npos);  // ASCII only
  CHECK(std::all_of(outcome.stdout_line.begin(), outcome.stdout_line.end(), [](char c) { return c > 0 && c < 0x7F; }));
  CHECK(result["project_log"] == f.project_log());
  CHECK(result["global_written"] == true);
  CHECK(result["pointer_written"] == true);
  CHECK(result["deduplicated"] == false);
  CHECK(result["degraded"] == false);
  const std::string global = result["global_log"];
  CHECK(fs::path(global).parent_path().parent_path() == fs::path(f.home) / "runs");
  CHECK(fs::path(global).filename() == "adapter-fixture-0001.jsonl");

  const std::string project_text = read_text(f.project_log());
  CHECK(project_text == read_text(global));  // identical single lines
  const auto rows = jsonl(f.project_log());
  REQUIRE(rows.size() == 1);
  std::vector<std::string> record_keys;
  for (const auto& [key, value] : rows[0].items()) record_keys.push_back(key);
  CHECK(record_keys == std::vector<std::string>{"schema_version", "run_id", "at", "workflow", "event", "runtime", "project",
                                                "detail", "phase", "project_path", "specs_path", "event_id"});
  CHECK(rows[0]["schema_version"] == 1);
  CHECK(rows[0]["project"] == "project");
  CHECK(rows[0]["project_path"] == f.project);
  CHECK(rows[0]["event_id"] == result["event_id"]);
  CHECK(project_text == strata::store::python_json(rows[0], false, false) + "\n");

  const auto index = jsonl(f.home + "/index.jsonl");
  REQUIRE(index.size() == 1);
  CHECK(index[0].dump() ==
        ordered_json({{"schema_version", 1}, {"at", rows[0]["at"]}, {"run_id", "adapter-fixture-0001"},
                      {"status", "running"}, {"workflow", "cm-prd"}, {"runtime", "codex"}, {"project", "project"},
                      {"project_path", f.project}, {"specs_path", f.specs},
                      {"log_file", "runs/" + fs::path(global).parent_path().filename().string() + "/adapter-fixture-0001.jsonl"}})
            .dump());
  const std::string pointer_text = read_text(f.specs + "/.cm-run.json");
  CHECK(pointer_text.back() == '\n');
  CHECK(parse(pointer_text).dump() == ordered_json({{"schema_version", 1}, {"run_id", "adapter-fixture-0001"},
                                                    {"workflow", "cm-prd"}, {"status", "running"}, {"global_log", global},
                                                    {"global_written", true}, {"updated_at", rows[0]["at"]}})
                                          .dump());
}

TEST_CASE("data keys follow the envelope in input order; records are Python-compact", "[event-log]") {
  LogFixture f;
  LogEventArgs a = f.args("progress", "execute", R"({ "zeta" : 1.0, "alpha" : [true, null], "名" : "值" })");
  a.project = "示例";
  a.at = "2026-08-06T10:00:00-07:00";
  REQUIRE(log_event(a).exit_code == 0);
  const std::string line = read_text(f.project_log());
  CHECK(line.find(R"("project":"示例","detail":"progress fixture","phase":"execute","project_path":")") != std::string::npos);
  CHECK(line.find(R"("zeta":1.0,"alpha":[true,null],"名":"值","event_id":")") != std::string::npos);
}

TEST_CASE("exact retry of run_done: deduplicated, index [running, done] (test 59)", "[event-log]") {
  LogFixture f;
  REQUIRE(f.run_start().exit_code == 0);
  LogEventArgs done = f.args("run_done", "complete", "{}");
  done.at = "2026-08-06T11:00:00+00:00";
  const auto first = log_event(done);
  const auto second = log_event(done);
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(parse(first.stdout_line)["deduplicated"] == false);
  CHECK(parse(second.stdout_line)["deduplicated"] == true);
  CHECK(parse(first.stdout_line)["event_id"] == parse(second.stdout_line)["event_id"]);
  const auto index = jsonl(f.home + "/index.jsonl");
  REQUIRE(index.size() == 2);
  CHECK(index[0]["status"] == "running");
  CHECK(index[1]["status"] == "done");
  std::vector<std::string> keys;
  for (const auto& [key, value] : index[1].items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"schema_version", "at", "run_id", "status", "workflow", "runtime", "project", "log_file"});
  CHECK(parse(read_text(f.specs + "/.cm-run.json"))["status"] == "done");
  CHECK(jsonl(f.project_log()).size() == 2);
}

TEST_CASE("claim and completion state checks in specs mode (spec §2.8, tests 68, 70, 71, 78)", "[event-log]") {
  LogFixture f;
  REQUIRE(f.run_start().exit_code == 0);

  SECTION("usage without a claim for adapter openai-compatible is refused") {
    CHECK(refusal(log_event(f.args("model_usage", "complete", kUsage))) ==
          "managed model_usage requires a prior model_call claim");
  }
  SECTION("claim, then usage; an identical claim is deduplicated; a different one is refused") {
    const auto claim = log_event(f.args("model_call", "claimed", kClaim));
    REQUIRE(claim.exit_code == 0);
    CHECK(parse(claim.stdout_line)["deduplicated"] == false);
    const auto again = log_event(f.args("model_call", "claimed", kClaim));
    REQUIRE(again.exit_code == 0);
    CHECK(parse(again.stdout_line)["deduplicated"] == true);
    ordered_json other = parse(kClaim);
    other["purpose"] = "cm-prd:other";
    CHECK(refusal(log_event(f.args("model_call", "claimed", other.dump()))) ==
          "model_call call_id already claimed with different payload");

    SECTION("identity mismatch") {
      for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
               {"stage", "\"other\""}, {"role", "\"coder\""}, {"requested_model", "\"m2\""}, {"purpose", "\"p\""}, {"source", "\"x\""}}) {
        INFO(key);
        CHECK(refusal(log_event(f.args("model_usage", "complete", usage_with(key, value)))) ==
              "model_usage identity does not match model_call claim");
      }
      LogEventArgs other_runtime = f.args("model_usage", "complete", kUsage);
      other_runtime.runtime = "claude";
      CHECK(refusal(log_event(other_runtime)) == "model_usage identity does not match model_call claim");
    }
    SECTION("usage; its exact retry; a different usage; a claim after completion") {
      const auto usage = log_event(f.args("model_usage", "complete", kUsage));
      REQUIRE(usage.exit_code == 0);
      CHECK(parse(usage.stdout_line)["deduplicated"] == false);
      const auto retry = log_event(f.args("model_usage", "complete", kUsage));
      REQUIRE(retry.exit_code == 0);
      CHECK(parse(retry.stdout_line)["deduplicated"] == true);
      CHECK(refusal(log_event(f.args("model_usage", "complete", usage_with("output_tokens", "301")))) ==
            "model_usage call_id already used with different payload");
      CHECK(refusal(log_event(f.args("model_call", "claimed", kClaim))) == "model_call call_id already completed");
      CHECK(jsonl(f.project_log()).size() == 3);  // run_start, claim, usage
      CHECK(jsonl(parse(usage.stdout_line)["global_log"]).size() == 3);
    }
  }
  SECTION("the same call id in another run is independent") {
    REQUIRE(log_event(f.args("model_call", "claimed", kClaim)).exit_code == 0);
    LogEventArgs other_run = f.args("model_call", "claimed", kClaim);
    other_run.run_id = "adapter-fixture-0002";
    const auto outcome = log_event(other_run);
    REQUIRE(outcome.exit_code == 0);
    CHECK(parse(outcome.stdout_line)["deduplicated"] == false);
  }
}

TEST_CASE("global-only model_usage (tests 65-67, 76)", "[event-log]") {
  LogFixture f;
  const std::string company = R"({"call_id":"planner-call-0001","stage":"design_generation","role":"planner",)"
                              R"("adapter":"company-api","requested_model":"planner-default","source":"api",)"
                              R"("purpose":"cm-prd:design_generation","usage_state":"observed","duration_ms":2500,)"
                              R"("outcome":"success","input_tokens":1200,"output_tokens":300,"cache_read_tokens":800,)"
                              R"("cache_write_tokens":100})";
  const auto args = [&](const std::string& data) {
    LogEventArgs a = f.args("model_usage", "complete", data, /*with_specs=*/false);
    a.run_id = "usage-fixture-0001";
    return a;
  };
  const auto first = log_event(args(company));
  REQUIRE(first.exit_code == 0);
  const ordered_json result = parse(first.stdout_line);
  CHECK(result["project_log"].is_null());
  CHECK(result["pointer_written"].is_null());
  CHECK(result["global_written"] == true);
  CHECK(result["deduplicated"] == false);
  const std::string global = result["global_log"];
  CHECK(jsonl(global).front()["input_tokens"] == 1200);
  CHECK(jsonl(global).front()["cache_read_tokens"] == 800);
  CHECK_FALSE(fs::exists(f.home + "/index.jsonl"));  // an explicit run id that is not run_start is not a new run

  ordered_json second = parse(company);
  second["call_id"] = "planner-call-0002";
  const auto two = log_event(args(second.dump()));
  REQUIRE(two.exit_code == 0);
  CHECK(parse(two.stdout_line)["deduplicated"] == false);
  CHECK(jsonl(global).size() == 2);
  const auto retry = log_event(args(second.dump()));
  REQUIRE(retry.exit_code == 0);
  CHECK(parse(retry.stdout_line)["deduplicated"] == true);
  CHECK(jsonl(global).size() == 2);
  second["output_tokens"] = 301;
  CHECK(refusal(log_event(args(second.dump()))) == "model_usage call_id already used with different payload");

  const auto unavailable = log_event(args(
      R"({"call_id":"coder-call-0001","stage":"s","role":"coder","adapter":"company-api","requested_model":"m",)"
      R"("source":"api","purpose":"p","usage_state":"unavailable","duration_ms":700,"outcome":"success"})"));
  REQUIRE(unavailable.exit_code == 0);
  CHECK(parse(unavailable.stdout_line)["global_written"] == true);

  // Without a run id every global-only write mints a new run (YYYYMMDDTHHMMSSZ-xxxxxxxx).
  LogEventArgs minted = f.args("progress", std::nullopt, "{}", false);
  minted.run_id.reset();
  const auto m = log_event(minted);
  REQUIRE(m.exit_code == 0);
  const std::string run = parse(m.stdout_line)["run_id"];
  REQUIRE(run.size() == 25);
  CHECK(strata::store::event_log::is_run_id(run));
  CHECK(run[8] == 'T');
  CHECK(run[15] == 'Z');
  CHECK(run.find_first_not_of("0123456789abcdef", 17) == std::string::npos);
  CHECK(jsonl(f.home + "/index.jsonl").size() == 1);
}

TEST_CASE("run selection without --run-id follows the pointer and the project log (spec §2.6)", "[event-log]") {
  LogFixture f;
  LogEventArgs start = f.args("run_start", "start", "{}");
  start.run_id.reset();
  const auto first = log_event(start);
  REQUIRE(first.exit_code == 0);
  const std::string run = parse(first.stdout_line)["run_id"];
  LogEventArgs progress = f.args("progress", std::nullopt, "{}");
  progress.run_id.reset();
  CHECK(parse(log_event(progress).stdout_line)["run_id"] == run);
  fs::remove(f.specs + "/.cm-run.json");  // the project log still shows the run as running
  progress.detail = "second";
  CHECK(parse(log_event(progress).stdout_line)["run_id"] == run);
  LogEventArgs done = f.args("run_done", std::nullopt, "{}");
  done.run_id.reset();
  CHECK(parse(log_event(done).stdout_line)["run_id"] == run);
  progress.detail = "after done";
  CHECK(parse(log_event(progress).stdout_line)["run_id"] != run);  // a new run
  CHECK(jsonl(f.home + "/index.jsonl").size() == 3);              // running, done, running
}

TEST_CASE("permissions of the log home (test 64)", "[event-log]") {
  LogFixture f;
  const mode_t previous_umask = ::umask(022);
  const auto outcome = f.run_start();
  ::umask(previous_umask);
  REQUIRE(outcome.exit_code == 0);
  const std::string global = parse(outcome.stdout_line)["global_log"];
  CHECK(mode_of(f.home) == 0700);
  CHECK(mode_of(f.home + "/runs") == 0700);
  CHECK(mode_of(fs::path(global).parent_path().string()) == 0700);
  CHECK(mode_of(global) == 0600);
  CHECK(mode_of(f.home + "/index.jsonl") == 0600);
  CHECK(mode_of(f.home + "/.cm-write.lock") == 0600);
  CHECK(mode_of(f.project_log()) == 0644);
  CHECK(mode_of(f.specs + "/.cm-run.json") == 0644);
  CHECK(read_text(f.home + "/.cm-write.lock") == "0");
  CHECK(read_text(f.specs + "/.cm-run.lock") == "0");
  // Modes are re-applied on every write.
  fs::permissions(f.home, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(global, fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
  REQUIRE(log_event(f.args("progress", std::nullopt, "{}")).exit_code == 0);
  CHECK(mode_of(f.home) == 0700);
  CHECK(mode_of(global) == 0600);
}

TEST_CASE("a log home that is a regular file degrades in specs mode, fails without (test 63)", "[event-log]") {
  LogFixture f;
  { std::ofstream(f.home) << "not a directory"; }
  LogEventArgs test_run = f.args("test_run", "start", R"({"suite":"unit"})");
  const auto first = log_event(test_run);
  REQUIRE(first.exit_code == 0);
  CHECK(first.stderr_lines == std::vector<std::string>{"global mirror unavailable; project log retained"});
  ordered_json result = parse(first.stdout_line);
  CHECK(result["global_written"] == false);
  CHECK(result["degraded"] == true);
  CHECK(result["pointer_written"] == true);
  test_run.detail = "second test run event";
  test_run.phase = "complete";  // a second start would be refused by the test_run lifecycle
  REQUIRE(log_event(test_run).exit_code == 0);
  const auto rows = jsonl(f.project_log());
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]["event"] == "test_run");
  CHECK(rows[1]["event"] == "degrade");
  CHECK(rows[2]["event"] == "test_run");
  CHECK(rows[1]["phase"] == "global_log");
  CHECK(rows[1]["error_type"] == "FileExistsError");
  CHECK(rows[1]["detail"] == "全局日志镜像写入失败，项目日志继续作为权威来源");
  std::vector<std::string> keys;
  for (const auto& [key, value] : rows[1].items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"schema_version", "run_id", "at", "workflow", "event", "phase", "runtime", "project",
                                         "detail", "error_type", "project_path", "specs_path", "event_id"});
  CHECK(rows[1]["event_id"] == strata::store::event_id_for(rows[1]));
  CHECK(parse(read_text(f.specs + "/.cm-run.json"))["global_written"] == false);

  const auto global_only = log_event(f.args("progress", std::nullopt, "{}", /*with_specs=*/false));
  CHECK(global_only.exit_code == 1);
  CHECK(global_only.stdout_line.empty());
  CHECK(global_only.stderr_lines == std::vector<std::string>{"global-only log lock failed: FileExistsError"});
}

TEST_CASE("month stability: a run keeps its first month file (test 81)", "[event-log]") {
  LogFixture f;
  { std::ofstream(f.home) << "broken"; }
  LogEventArgs a = f.args("progress", "execute", R"({"feature":"1.month"})");
  a.at = "2026-06-30T23:00:00-07:00";
  const auto degraded = log_event(a);
  REQUIRE(degraded.exit_code == 0);
  CHECK(parse(degraded.stdout_line)["degraded"] == true);
  fs::remove(f.home);
  fs::remove(f.specs + "/.cm-run.json");
  a.at = "2026-07-31T23:00:00-07:00";
  const auto repaired = log_event(a);
  REQUIRE(repaired.exit_code == 0);
  const ordered_json result = parse(repaired.stdout_line);
  CHECK(result["event_id"] == parse(degraded.stdout_line)["event_id"]);
  CHECK(result["deduplicated"] == true);
  CHECK(result["global_log"] == f.home + "/runs/2026-06/adapter-fixture-0001.jsonl");
  CHECK(jsonl(result["global_log"]).front()["at"] == "2026-06-30T23:00:00-07:00");
}

TEST_CASE("two global run files for one run id are refused", "[event-log]") {
  LogFixture f;
  fs::create_directories(f.home + "/runs/2026-06");
  fs::create_directories(f.home + "/runs/2026-07");
  std::ofstream(f.home + "/runs/2026-06/usage-fixture-0001.jsonl") << "\n";
  std::ofstream(f.home + "/runs/2026-07/usage-fixture-0001.jsonl") << "\n";
  LogEventArgs a = f.args("progress", std::nullopt, "{}", false);
  a.run_id = "usage-fixture-0001";
  CHECK(refusal(log_event(a)) ==
        "multiple global log files found for run_id usage-fixture-0001; repair the local mirror before continuing");
}

TEST_CASE("locks: flock on the lock file, polled until the timeout", "[event-log]") {
  LogFixture f;
  using namespace strata::store::event_log;
  const std::string path = f.specs + "/.cm-run.lock";
  {
    FileLock held = acquire_file_lock(path, false, 100);
    const int other = ::open(path.c_str(), O_RDWR);
    REQUIRE(other >= 0);
    CHECK(::flock(other, LOCK_EX | LOCK_NB) != 0);  // a BSD flock, seen by other open files
    ::close(other);
    try {
      acquire_file_lock(path, false, 120);
      FAIL("the second lock was granted");
    } catch (const OsError& e) {
      CHECK(e.type() == "TimeoutError");
    }
  }
  FileLock again = acquire_file_lock(path, false, 100);  // released with the first descriptor
  CHECK(read_text(path) == "0");
}
