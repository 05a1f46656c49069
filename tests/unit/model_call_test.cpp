#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "fixture.hpp"
#include "strata/app/cm/model_call.hpp"
#include "strata/model/json/json.hpp"
#include "test_https_server.hpp"

using namespace strata::app;
using strata::model::Json;
using strata::testing::TestHttpsServer;

namespace {

using strata::testing::shared_test_certificates;

using strata::test::kRolePacket;

// An in-memory event log with the claim rules of usage-boundary §2.8.
struct FakeLog {
  std::vector<EventWrite> writes;
  std::map<std::string, std::string> claims;  // call id -> data
  bool fail_usage = false;
  bool completed_before = false;

  EventWriteResult operator()(const EventWrite& w) {
    writes.push_back(w);
    const Json data = Json::parse(w.data_json);
    const std::string call = data["call_id"];
    if (w.event == "model_call") {
      if (completed_before) return {2, "", "cm-log-event: model_call call_id already completed\n"};
      const bool duplicate = claims.count(call) > 0;
      claims[call] = w.data_json;
      return {0, std::string("{\"deduplicated\":") + (duplicate ? "true" : "false") + "}", ""};
    }
    if (fail_usage) return {1, "", "cm-log-event: authoritative project log write failed: PermissionError\n"};
    return {0, "{\"deduplicated\":false}", ""};
  }
};

struct Call {
  CallOptions options;
  std::map<std::string, std::string> env;
  std::string stdin_text = kRolePacket;
  FakeLog log;
  std::string out;
  bool stdout_broken = false;

  explicit Call(const std::string& base_url) {
    options.workflow = "cm-prd";
    options.stage = "design_generation";
    options.role = "planner";
    options.runtime = "codex";
    options.requested_model = "planner-default";
    options.call_id = "planner-call-0001";
    options.project_root = std::filesystem::temp_directory_path().string();
    options.run_id = "adapter-fixture-0001";
    options.timeout_seconds = 2;
    env = {{"CM_OPENAI_COMPATIBLE_ENABLED", "true"},
           {"CM_OPENAI_COMPATIBLE_BASE_URL", base_url},
           {"CM_OPENAI_COMPATIBLE_API_KEY", "fixture-api-secret"}};
  }

  CallOutcome run() {
    return perform_model_call(
        options, env, [this](std::size_t limit) { return stdin_text.substr(0, limit); },
        [this](const EventWrite& w) { return log(w); },
        [this](const std::string& text) {
          if (stdout_broken) return false;
          out += text;
          return true;
        },
        shared_test_certificates().ca_file);
  }
};

std::string joined(const CallOutcome& o) {
  std::string s;
  for (const auto& m : o.messages) s += m + "|";
  return s;
}

Json usage_event(const FakeLog& log) { return Json::parse(log.writes.back().data_json); }

}  // namespace

TEST_CASE("usage-boundary 4.1: rejections send nothing and claim nothing", "[call]") {
  TestHttpsServer server(shared_test_certificates());
  auto rejected = [&](Call& c, const std::string& message) {
    const CallOutcome o = c.run();
    INFO(joined(o));
    CHECK(o.exit_code == 2);
    CHECK(joined(o) == message + "|");
    CHECK(c.log.writes.empty());
    CHECK(c.out.empty());
  };
  Call c(server.url());
  c.env.erase("CM_OPENAI_COMPATIBLE_ENABLED");
  rejected(c, "OpenAI-compatible calls are not explicitly enabled; set CM_OPENAI_COMPATIBLE_ENABLED=true");
  for (const auto& [url, message] : std::vector<std::pair<std::string, std::string>>{
           {"http://[::1", "CM_OPENAI_COMPATIBLE_BASE_URL must be a valid HTTP(S) URL"},
           {"https://models.example.invalid:bad/v1", "CM_OPENAI_COMPATIBLE_BASE_URL must be a valid HTTP(S) URL"},
           {"http://127.0.0.1:9/v1\r\nX-Test: injected", "CM_OPENAI_COMPATIBLE_BASE_URL contains unsupported characters"},
           {"https://m\xC3\xB8" "del.example/v1", "CM_OPENAI_COMPATIBLE_BASE_URL contains unsupported characters"},
           {"ftp://127.0.0.1/v1", "CM_OPENAI_COMPATIBLE_BASE_URL must be an HTTP(S) URL"},
           {"https:///v1", "CM_OPENAI_COMPATIBLE_BASE_URL must be an HTTP(S) URL"},
           {"https://user:pw@models.example/v1", "CM_OPENAI_COMPATIBLE_BASE_URL cannot contain credentials or query data"},
           {"https://models.example/v1?x=1", "CM_OPENAI_COMPATIBLE_BASE_URL cannot contain credentials or query data"},
           {"https://models.example/v1#frag", "CM_OPENAI_COMPATIBLE_BASE_URL cannot contain credentials or query data"},
           {"http://10.0.0.5/v1", "non-loopback OpenAI-compatible endpoints require HTTPS"}}) {
    Call bad(url);
    rejected(bad, message);
  }
  for (const std::string& key : std::vector<std::string>{"fixture-secret-line-one\r\nfixture-secret-line-two", "fixture-secret-\xE5\xAF\x86\xE9\x92\xA5",
                                std::string(4097, 'a')}) {
    Call bad(server.url());
    bad.env["CM_OPENAI_COMPATIBLE_API_KEY"] = key;
    rejected(bad, "API key contains unsupported characters");
  }
  Call no_run(server.url());
  no_run.options.run_id.reset();
  rejected(no_run, "--run-id is required without --specs-dir");
  Call bad_role(server.url());
  bad_role.options.role = "1planner";
  rejected(bad_role, "--role is not a valid identifier");
  Call bad_root(server.url());
  bad_root.options.project_root = "/nonexistent";
  rejected(bad_root, "--project-root is not an existing directory");
  Call big(server.url());
  big.stdin_text.assign(1048577, ' ');
  rejected(big, "role packet exceeds 1 MiB");
  Call nan(server.url());
  nan.stdin_text = R"({"t":NaN})";
  rejected(nan, "stdin is not valid strict UTF-8 JSON");
  CHECK(server.requests() == 0);
}

TEST_CASE("usage-boundary 32-33: a successful call", "[call]") {
  TestHttpsServer server(shared_test_certificates());
  Call c(server.url());
  c.env["CM_OPENAI_COMPATIBLE_ENABLED"] = "TRUE";
  const CallOutcome o = c.run();
  INFO(joined(o));
  REQUIRE(o.exit_code == 0);
  CHECK(o.messages.empty());
  CHECK(c.out == "hello from the test server\n");
  CHECK(server.requests() == 1);
  const std::string request = server.last_request();
  CHECK(request.find("POST /v1/chat/completions HTTP/1.1") == 0);
  CHECK(request.find("Authorization: Bearer fixture-api-secret") != std::string::npos);
  CHECK(request.find(R"("messages":[{"role":"system","content":"[safety]\nDO_NOT_LOG_STABLE)") != std::string::npos);
  REQUIRE(c.log.writes.size() == 2);
  CHECK(c.log.writes[0].event == "model_call");
  CHECK(c.log.writes[0].data_json ==
        R"({"call_id":"planner-call-0001","stage":"design_generation","role":"planner","adapter":"openai-compatible","requested_model":"planner-default","source":"api","purpose":"cm-prd:design_generation"})");
  CHECK(c.log.writes[0].detail == "planner model call claimed");
  const Json usage = usage_event(c.log);
  CHECK(c.log.writes[1].detail == "planner model call success");
  CHECK(usage["usage_state"] == "observed");
  CHECK(usage["input_tokens"] == 11);
  CHECK(usage["output_tokens"] == 7);
  CHECK(usage["effective_model"] == "test-model-1");
  CHECK(usage["outcome"] == "success");
  for (const auto& w : c.log.writes) {
    CHECK(w.data_json.find("fixture-api-secret") == std::string::npos);
    CHECK(w.data_json.find("DO_NOT_LOG") == std::string::npos);
  }
}

TEST_CASE("usage-boundary 35, 47-49: claim rejections", "[call]") {
  TestHttpsServer server(shared_test_certificates());
  Call first(server.url());
  REQUIRE(first.run().exit_code == 0);
  Call twin(server.url());
  twin.log.claims = first.log.claims;  // an identical claim exists already
  CallOutcome o = twin.run();
  CHECK(o.exit_code == 2);
  CHECK(joined(o) == "call_id already claimed; use a new call_id|");
  Call done(server.url());
  done.log.completed_before = true;
  o = done.run();
  CHECK(joined(o) == "call_id already completed; use a new call_id|");
  CHECK(server.requests() == 1);
}

TEST_CASE("usage-boundary 36-44, 50-54: failures and exit codes", "[call]") {
  TestHttpsServer server(shared_test_certificates());
  auto with_fault = [&](const std::string& fault) {
    server.set_fault(fault);
    Call c(server.url());
    c.options.call_id = "call-" + fault.substr(0, fault.find(':'));
    const CallOutcome o = c.run();
    return std::tuple<CallOutcome, Json, std::string>{o, usage_event(c.log), c.out};
  };
  auto [o36, u36, out36] = with_fault("usage-missing");
  CHECK(o36.exit_code == 0);
  CHECK(u36["usage_state"] == "unavailable");
  CHECK_FALSE(u36.contains("input_tokens"));
  auto [o37, u37, out37] = with_fault("status:503");
  CHECK(o37.exit_code == 1);
  CHECK(joined(o37) == "HTTP 503|");
  CHECK(out37.empty());
  CHECK(u37["outcome"] == "error");
  CHECK(u37["usage_state"] == "unavailable");
  auto [o42, u42, out42] = with_fault("redirect");
  CHECK(joined(o42) == "HTTP 302|");
  auto [o43, u43, out43] = with_fault("reset");
  CHECK(joined(o43) == "request failed|");
  CHECK(u43["outcome"] == "error");
  auto [o44, u44, out44] = with_fault("deep");
  CHECK(joined(o44) == "provider response exceeds the maximum JSON nesting depth|");
  auto [o51, u51, out51] = with_fault("huge");
  CHECK(joined(o51) == "provider response exceeds 8 MiB|");
  auto [o52, u52, out52] = with_fault("invalid-json");
  CHECK(joined(o52) == "provider response is not valid strict UTF-8 JSON|");
  auto [o53, u53, out53] = with_fault("nan");
  CHECK(joined(o53) == "provider response is not valid strict UTF-8 JSON|");
  auto [o54, u54, out54] = with_fault("slow-headers");
  CHECK(joined(o54) == "request failed|");
  CHECK(u54["duration_ms"].get<double>() >= 1500);

  server.set_fault("ok");
  Call broken(server.url());
  broken.options.call_id = "call-broken-stdout";
  broken.stdout_broken = true;
  CallOutcome o = broken.run();
  CHECK(o.exit_code == 1);
  CHECK(joined(o) == "result output failed|");
  CHECK(usage_event(broken.log)["outcome"] == "error");
  CHECK(usage_event(broken.log)["usage_state"] == "observed");

  Call unlogged_ok(server.url());
  unlogged_ok.options.call_id = "call-unlogged-ok";
  unlogged_ok.log.fail_usage = true;
  o = unlogged_ok.run();
  CHECK(o.exit_code == 3);
  CHECK(joined(o) == "model call completed but usage log failed; do not retry the model call automatically|");
  CHECK(unlogged_ok.out == "hello from the test server\n");

  server.set_fault("status:503");
  Call unlogged_error(server.url());
  unlogged_error.options.call_id = "call-unlogged-error";
  unlogged_error.log.fail_usage = true;
  o = unlogged_error.run();
  CHECK(o.exit_code == 4);
  CHECK(joined(o) == "HTTP 503|usage log failed|");
}
