#include <catch2/catch.hpp>

#include <functional>

#include "fixture.hpp"
#include "strata/engine/attempt_outcome.hpp"
#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/ledger_index.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/model/study/provider_request.hpp"

using namespace strata::model;
using strata::test::fixture;

using strata::test::message_of;

using strata::test::fixture_suite;

namespace {

const Json& plan() {
  static const Json p = parse_artifact(ArtifactKind::run_plan, fixture("run-plan-v1.json"));
  return p;
}


// The default execution of spec §6: consumer-01-discovery / repository-only / low-cost / 0 / variant-a.
Json recorded() {
  return parse_json(R"({"taskId":"consumer-01-discovery","repositoryId":"consumer-01","category":"discovery",
    "scenarioId":"repository-only","modelId":"low-cost-model","replicate":0,"variantId":"variant-a","difficulty":"easy"})");
}

ObservationInputs inputs(std::size_t request_bytes = 128) {
  ObservationInputs in;
  in.plan = &plan();
  in.recorded_task = recorded();
  in.request.assign(request_bytes, 'x');
  in.observed_at = "2026-11-29T12:00:00.000Z";
  return in;
}

// Provider P(json): exit 0 with that stdout.
AttemptRecord printed(const std::string& stdout_text) {
  strata::exec::ProcessResult r;
  r.end = strata::exec::ProcessEnd::exited;
  r.exit_code = 0;
  r.stdout_data = stdout_text;
  r.stderr_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  return strata::engine::attempt_record(r, 256);
}

}  // namespace

TEST_CASE("spec 6 case 34: a provider's metrics become the observation", "[observation]") {
  const Json o = build_observation(inputs(128), printed(R"({"inputTokens":3,"outputTokens":5,"tokenMethod":"provider",
    "toolCalls":2,"firstEvidenceLatencyMs":17,"taskOutcome":"success","evidenceQuality":"high",
    "evidenceIds":["src/index.ts"],"measurements":{"searchHitRate":1},"unknownKey":"dropped"})"));
  const Json& e = o["execution"];
  CHECK(e["status"] == "completed");
  CHECK(e["inputTokens"] == 3);
  CHECK(e["outputTokens"] == 5);
  CHECK(e["firstEvidenceLatencyMs"] == 17);
  CHECK(e["stdoutHash"].get<std::string>().size() == 64);
  CHECK_FALSE(e.contains("errorCode"));
  CHECK(o["taskOutcome"] == "success");
  CHECK(o["evidenceQuality"] == "high");
  CHECK(o["evidenceIds"] == Json::array({"src/index.ts"}));
  CHECK(o["contextBytes"] == 128);
  CHECK(o["contextTokens"] == 32);
  CHECK(o["contextTokenMethod"] == "estimate");
  CHECK(o["firstEvidenceLatencyMs"] == 17);
  CHECK(compact_json(o["measurements"]) == R"({"searchHitRate":1,"providerTokenCostUnits":8})");
  CHECK(o["adjudication"] == Json{{"status", "pending"}});
  CHECK_FALSE(o.dump().find("unknownKey") != std::string::npos);
  CHECK(parse_artifact(ArtifactKind::observation, o) == o);  // spec 46: parsing round-trips
}

TEST_CASE("spec 6 case 35: caller-supplied context tokens", "[observation]") {
  ObservationInputs in = inputs();
  in.context_tokens = 29;
  in.context_token_method = "provider";
  const Json o = build_observation(in, printed("{}"));
  CHECK(o["contextTokens"] == 29);
  CHECK(o["contextTokenMethod"] == "provider");
  in.context_token_method.reset();
  CHECK(message_of([&] { build_observation(in, printed("{}")); }) ==
        "Context token counts require a provider or estimate method.");
}

TEST_CASE("spec 6 cases 38-41: budgets, metrics, JSON, output limit", "[observation]") {
  ObservationInputs small = inputs();
  Json tight_plan = plan();
  tight_plan["budget"]["maxTokens"] = 10;
  small.plan = &tight_plan;
  Json o = build_observation(small, printed(R"({"inputTokens":9,"outputTokens":2,"tokenMethod":"provider"})"));
  CHECK(o["execution"]["status"] == "budget-exceeded");
  CHECK(o["execution"]["errorCode"] == "token-budget");

  o = build_observation(inputs(), printed(R"({"inputTokens":"unknown"})"));
  CHECK(o["execution"]["status"] == "invalid-output");
  CHECK(o["execution"]["errorCode"] == "invalid-metrics");
  CHECK(o["evidenceIds"] == Json::array());

  for (const char* not_json : {"not-json", "{}{}", "", "{}\n{}"}) {
    INFO(not_json);
    o = build_observation(inputs(), printed(not_json));
    CHECK(o["execution"]["status"] == "invalid-output");
    CHECK(o["execution"]["errorCode"] == "invalid-json");
  }
  o = build_observation(inputs(), printed("[1,2]"));
  CHECK(o["execution"]["errorCode"] == "invalid-metrics");

  strata::exec::ProcessResult overflow;
  overflow.end = strata::exec::ProcessEnd::output_limit;
  overflow.stdout_data = "0123456789";
  o = build_observation(inputs(), strata::engine::attempt_record(overflow, 2));
  CHECK(o["execution"]["status"] == "budget-exceeded");
  CHECK(o["execution"]["errorCode"] == "output-limit");
  CHECK(o["execution"]["responseBytes"] == 2);
  CHECK(o["execution"]["signal"] == "SIGTERM");
  CHECK(o["execution"]["exitCode"].is_null());
}

TEST_CASE("a failed process that printed valid metrics still contributes them", "[observation]") {
  strata::exec::ProcessResult failed;
  failed.end = strata::exec::ProcessEnd::exited;
  failed.exit_code = 1;
  failed.stdout_data = R"({"inputTokens":3,"outputTokens":4,"tokenMethod":"provider","taskOutcome":"blocked"})";
  const Json o = build_observation(inputs(), strata::engine::attempt_record(failed, 256));
  CHECK(o["execution"]["status"] == "failed");
  CHECK(o["execution"]["errorCode"] == "non-zero-exit");
  CHECK(o["execution"]["exitCode"] == 1);
  CHECK(o["execution"]["inputTokens"] == 3);
  CHECK(o["taskOutcome"] == "blocked");
}

TEST_CASE("token counts without a method make the observation invalid", "[observation]") {
  CHECK(message_of([] { build_observation(inputs(), printed(R"({"inputTokens":3})")); }) ==
        "Token counts require a provider or estimate method.");
}

TEST_CASE("invalid UTF-8 on stdout is decoded with U+FFFD before parsing", "[observation]") {
  const Json o = build_observation(inputs(), printed("{\"evidenceIds\":[\"a\xFF\"]}"));
  CHECK(o["execution"]["status"] == "completed");
  CHECK(o["evidenceIds"][0] == "a\xEF\xBF\xBD");
}

TEST_CASE("agent cost uses the provider's pricing and cached input", "[observation]") {
  Json provider = parse_json(R"({"pricing":{"currency":"USD","inputPerMillionUsd":2,"cachedInputPerMillionUsd":1,"outputPerMillionUsd":4}})");
  ObservationInputs in = inputs();
  in.provider = &provider;
  const Json o = build_observation(in, printed(R"({"inputTokens":1500,"outputTokens":1000,"tokenMethod":"estimate","measurements":{"cachedInputTokens":500}})"));
  CHECK(o["measurements"]["agentCostUsd"] == 0.0065);
  CHECK_FALSE(o["measurements"].contains("providerTokenCostUnits"));  // estimate, not provider
}

// Issue 36: an agent CLI's own figure (agentReportedCostUsd) and Strata's pricing (agentCostUsd)
// sit side by side; neither replaces the other.
TEST_CASE("the agent CLI's reported cost is kept apart from the configured pricing's", "[observation]") {
  Json provider = parse_json(R"({"pricing":{"currency":"USD","inputPerMillionUsd":2,"cachedInputPerMillionUsd":1,"outputPerMillionUsd":4}})");
  ObservationInputs in = inputs();
  in.provider = &provider;
  const std::string response =
      R"({"inputTokens":1500,"outputTokens":1000,"tokenMethod":"provider","measurements":{"cachedInputTokens":500,"agentReportedCostUsd":0.0272355}})";
  const Json priced = build_observation(in, printed(response));
  CHECK(priced["measurements"]["agentCostUsd"] == 0.0065);
  CHECK(priced["measurements"]["agentReportedCostUsd"] == 0.0272355);
  const Json unpriced = build_observation(inputs(), printed(response));
  CHECK_FALSE(unpriced["measurements"].contains("agentCostUsd"));
  CHECK(unpriced["measurements"]["agentReportedCostUsd"] == 0.0272355);
}

TEST_CASE("spec 6 case 45: the session id", "[observation]") {
  Json task = recorded();
  CHECK(session_id("phase-7-canonical-metrics-01", task) == "943d89810d470b215a49f998a9c17471");
}

TEST_CASE("spec 6 cases 46, 47, 50: upsert and the plan-hash guard", "[observation]") {
  const Json o = build_observation(inputs(), printed("{}"));
  LedgerIndex index(plan()["runId"].get<std::string>(), plan()["contentHash"].get<std::string>());
  CHECK(index.upsert(o) == LedgerIndex::Upsert::appended);
  CHECK(index.upsert(o) == LedgerIndex::Upsert::unchanged);
  CHECK(index.has_execution(recorded()));
  const Json other = build_observation(inputs(), printed(R"({"reworkCount":1})"));
  CHECK(message_of([&] { index.upsert(other); }) ==
        "Observation phase-7-canonical-metrics-01 already exists with different contents.");

  LedgerIndex other_plan(plan()["runId"].get<std::string>(), std::string(64, 'b'));
  CHECK(message_of([&] { other_plan.add_existing(o); }) ==
        "Ledger already contains run phase-7-canonical-metrics-01 with a different plan hash.");
  // Difficulty and category are not part of the skip key.
  Json without_difficulty = recorded();
  without_difficulty.erase("difficulty");
  without_difficulty["category"] = "architecture";
  CHECK(index.has_execution(without_difficulty));
}

TEST_CASE("spec 6 cases 52-54: the deterministic rubric on a run's observation", "[observation]") {
  const Json& task = *find_task(fixture_suite(), "consumer-01-discovery");
  auto judged = [&](const std::string& evidence, const std::string& measurements) {
    const Json o = build_observation(
        inputs(), printed(R"({"taskOutcome":"success","evidenceIds":)" + evidence +
                          R"(,"inputTokens":3,"outputTokens":5,"tokenMethod":"provider","measurements":)" +
                          measurements + "}"));
    return apply_deterministic_rubric(o, task);
  };
  const std::string full = R"({"acceptanceChecksPassed":1,"acceptanceChecksTotal":1,"acceptanceChecksExecuted":1})";
  Json o = judged(R"(["entrypoint-evidence"])", full);
  CHECK(o["adjudication"]["status"] == "automated");
  CHECK(o["adjudication"]["actor"] == "deterministic-rubric-v1");
  CHECK(o["adjudication"]["method"] == "deterministic-rubric-v1");
  CHECK(o["adjudication"]["outcome"] == "success");
  CHECK(o["measurements"]["providerTokenCostUnits"] == 8);
  CHECK(o["observedAt"] == "2026-11-29T12:00:00.000Z");
  CHECK(judged(R"(["entrypoint-evidence"])", R"({"acceptanceChecksPassed":1,"acceptanceChecksTotal":1})")["adjudication"]["outcome"] == "blocked");
  CHECK(judged(R"(["unrelated-evidence"])", full)["adjudication"]["outcome"] == "partial");
  CHECK(judged(R"(["entrypoint-evidence:foo"])", full)["adjudication"]["outcome"] == "partial");
  CHECK(judged(R"([])", R"({"acceptanceChecksPassed":0,"acceptanceChecksTotal":1,"acceptanceChecksExecuted":1})")["adjudication"]["outcome"] == "incomplete");
  CHECK(judged(R"(["entrypoint-evidence"])", R"({"acceptanceChecksPassed":1,"acceptanceChecksTotal":1,"acceptanceChecksExecuted":0})")["adjudication"]["outcome"] == "blocked");
}

TEST_CASE("spec 6 case 55: the rubric evaluator", "[observation]") {
  CHECK(rubric_outcome(false, false, 1, 1, 1, 1) == "success");
  CHECK(rubric_outcome(false, false, 0, 1, 0, 1) == "incomplete");
  CHECK(rubric_outcome(false, false, 1, 1, 0, 1) == "partial");
  CHECK(rubric_outcome(true, false, 1, 1, 1, 1) == "blocked");
  CHECK(rubric_outcome(false, true, 1, 1, 1, 1) == "incorrect");
}

TEST_CASE("spec 6 case 37 and 3.5: attempt outcome rules", "[observation]") {
  strata::exec::ProcessResult r;
  r.end = strata::exec::ProcessEnd::spawn_failed;
  AttemptRecord a = strata::engine::attempt_record(r, 10);
  CHECK(a.status == "unavailable");
  CHECK(a.error_code == "unavailable");
  CHECK_FALSE(a.exit_code.has_value());
  r = {};
  r.end = strata::exec::ProcessEnd::timed_out;
  a = strata::engine::attempt_record(r, 10);
  CHECK(a.status == "timed-out");
  CHECK(a.signal == "SIGTERM");
  CHECK(a.error_code == "timeout");
  r = {};
  r.end = strata::exec::ProcessEnd::signaled;
  r.term_signal = 9;
  a = strata::engine::attempt_record(r, 10);
  CHECK(a.status == "failed");
  CHECK(a.signal == "SIGKILL");
  CHECK_FALSE(a.exit_code.has_value());
}

TEST_CASE("an unavailable assisted arm is recorded without a process", "[observation]") {
  ObservationInputs in = inputs();
  in.recorded_task["scenarioId"] = "registry-assisted";
  const Json o = unavailable_arm_observation(in, "No provider CLI is configured for the registry-assisted scenario and model(s) low-cost-model.");
  CHECK(o["execution"]["status"] == "unavailable");
  CHECK(o["execution"]["errorCode"] == "registry-unavailable");
  CHECK(o["contextBytes"] == 0);
  CHECK_FALSE(o.contains("contextTokens"));
  CHECK(o["adjudication"]["outcome"] == "blocked");
}
