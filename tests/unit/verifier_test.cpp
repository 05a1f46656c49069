// The verifier's pure parts (issue 42, docs/VERIFIER.md): how a check's end is judged, what an
// observation records of a verified run, what the plan reads from the suite and the sealed
// configuration, and how the rubric and the adjudicator request use the verified counts.
#include <catch2/catch.hpp>

#include "fixture.hpp"
#include "strata/engine/attempt_outcome.hpp"
#include "strata/model/adjudication/adjudication.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/model/study/provider_request.hpp"
#include "strata/model/verifier/check_verdict.hpp"
#include "strata/model/verifier/verified_record.hpp"
#include "strata/model/verifier/verifier_plan.hpp"

using namespace strata::model;
using strata::test::fixture;
using strata::test::fixture_suite;
using strata::test::message_of;

namespace {

CheckEnd exited(int code) { return CheckEnd{CheckEnd::exited, code}; }

CheckOutcome outcome(const std::string& id, CheckResult result) {
  CheckOutcome o;
  o.id = id;
  o.result = result;
  return o;
}

// A sealed verifier config of `payload`'s members.
Json verifier_config(const std::string& members) {
  return create_artifact(ArtifactKind::verifier_config,
                         parse_json(R"({"type":"strata-verifier-config","schemaVersion":1)" + members + "}"));
}

const Json& repository_config() {
  static const Json r = create_artifact(ArtifactKind::repository_config, parse_json(R"({
    "type":"controlled-study-repository-config","schemaVersion":1,"configVersion":"v1",
    "repositories":[{"id":"consumer-01","root":"/srv/consumer-01"}]})"));
  return r;
}

}  // namespace

TEST_CASE("a check passes when it exits 0 within its bounds; 126 and 127 are not executed", "[verifier]") {
  const CheckRule none;
  CHECK(judge_check(exited(0), "", none) == CheckResult::passed);
  CHECK(judge_check(exited(1), "", none) == CheckResult::failed);
  CHECK(judge_check(exited(2), "OK", none) == CheckResult::failed);
  CHECK(judge_check(exited(127), "", none) == CheckResult::not_executed);
  CHECK(judge_check(exited(126), "", none) == CheckResult::not_executed);
  CHECK(judge_check(CheckEnd{CheckEnd::not_started, -1}, "", none) == CheckResult::not_executed);
  CHECK(judge_check(CheckEnd{CheckEnd::signaled, -1}, "", none) == CheckResult::failed);
  CHECK(judge_check(CheckEnd{CheckEnd::timed_out, -1}, "", none) == CheckResult::timed_out);
  CHECK(judge_check(CheckEnd{CheckEnd::output_limit, -1}, "", none) == CheckResult::output_limit);
  CHECK(std::string(check_result_name(CheckResult::not_executed)) == "not-executed");
  CHECK(std::string(check_result_name(CheckResult::output_limit)) == "output-limit");
}

TEST_CASE("stdoutContains and jsonResult judge a check that exited 0", "[verifier]") {
  CheckRule contains;
  contains.stdout_contains = "sum 5";
  CHECK(judge_check(exited(0), "log\nsum 5\n", contains) == CheckResult::passed);
  CHECK(judge_check(exited(0), "sum 4\n", contains) == CheckResult::failed);
  CHECK(judge_check(exited(1), "sum 5\n", contains) == CheckResult::failed);
  CheckRule json;
  json.json_result = "passed";
  CHECK(judge_check(exited(0), "log line\n{\"passed\": true}\n\n  \n", json) == CheckResult::passed);
  CHECK(judge_check(exited(0), "{\"passed\": true}\nlater line\n", json) == CheckResult::failed);  // not the last line
  CHECK(judge_check(exited(0), "{\"passed\": false}\n", json) == CheckResult::failed);
  CHECK(judge_check(exited(0), "{\"passed\": 1}\n", json) == CheckResult::failed);  // true, not truthy
  CHECK(judge_check(exited(0), "{\"passed\": tru", json) == CheckResult::failed);
  CHECK(judge_check(exited(0), "", json) == CheckResult::failed);
  CHECK(judge_check(exited(0), "[true]\n", json) == CheckResult::failed);
}

TEST_CASE("the verified measurements: numbers only, not-executed checks left out", "[verifier]") {
  VerifiedRun run;
  run.checks = {outcome("unit", CheckResult::passed), outcome("lint", CheckResult::failed),
                outcome("gone", CheckResult::not_executed), outcome("slow", CheckResult::timed_out)};
  run.checks[0].stdout_text = "secret-output";
  run.duration_ms = 42;
  Json m = parse_json(R"({"acceptanceChecksPassed":4,"acceptanceChecksTotal":4,"acceptanceChecksExecuted":4})");
  add_verified_measurements(m, run);
  CHECK(m["verifiedChecksTotal"] == 4);
  CHECK(m["verifiedChecksExecuted"] == 3);
  CHECK(m["verifiedChecksPassed"] == 1);
  CHECK(m["verifiedChecksTimedOut"] == 1);
  CHECK(m["verifiedChecksOutputLimit"] == 0);
  CHECK(m["verifiedCheck.unit"] == 1);
  CHECK(m["verifiedCheck.lint"] == 0);
  CHECK(m["verifiedCheck.slow"] == 0);
  CHECK_FALSE(m.contains("verifiedCheck.gone"));
  CHECK(m["verifierDurationMs"] == 42);
  CHECK(m["acceptanceChecksPassed"] == 4);  // the claim kept
  CHECK(m["verifiedClaimAgrees"] == 0);      // it claimed 4 of 4; 1 of 4 passed
  CHECK(m.dump().find("secret-output") == std::string::npos);
  const auto counts = verified_counts(m);
  REQUIRE(counts);
  CHECK(counts->total == 4);
  CHECK(counts->executed == 3);
  CHECK(counts->passed == 1);
  drop_verified_measurements(m);
  CHECK_FALSE(m.contains("verifiedClaimAgrees"));
  CHECK_FALSE(verified_counts(m));
  CHECK(m == parse_json(R"({"acceptanceChecksPassed":4,"acceptanceChecksTotal":4,"acceptanceChecksExecuted":4})"));
}

TEST_CASE("the claim agrees when it said every check passed exactly when every check did", "[verifier]") {
  VerifiedRun all, some;
  all.checks = {outcome("a", CheckResult::passed), outcome("b", CheckResult::passed)};
  some.checks = {outcome("a", CheckResult::passed), outcome("b", CheckResult::failed)};
  auto agrees = [](const std::string& claim, const VerifiedRun& run) {
    Json m = parse_json(claim);
    add_verified_measurements(m, run);
    return m.contains("verifiedClaimAgrees") ? std::optional<double>(m["verifiedClaimAgrees"].get<double>()) : std::nullopt;
  };
  const std::string claims_all = R"({"acceptanceChecksPassed":2,"acceptanceChecksTotal":2})";
  const std::string claims_one = R"({"acceptanceChecksPassed":1,"acceptanceChecksTotal":2})";
  CHECK(agrees(claims_all, all) == 1);   // confirmed
  CHECK(agrees(claims_all, some) == 0);  // claimed, failed
  CHECK(agrees(claims_one, all) == 0);   // not claimed, passed
  CHECK(agrees(claims_one, some) == 1);  // not claimed, not passed
  CHECK(agrees(R"({"acceptanceChecksPassed":3,"acceptanceChecksTotal":3})", all) == 0);  // another task's count
  CHECK_FALSE(agrees("{}", all));                                   // no claim: no agreement
  CHECK_FALSE(agrees(R"({"acceptanceChecksPassed":2})", all));
  CHECK(claimed_all_passed(parse_json(claims_all), 2) == std::optional<bool>(true));
  CHECK(claimed_all_passed(parse_json(claims_one), 2) == std::optional<bool>(false));
}

TEST_CASE("an execution key as a file stem: the patch and the verifier output share it", "[verifier]") {
  CHECK(execution_file_stem("run:a/b:c") == "run-a-b-c");
  CHECK(execution_file_stem("0123abcd") == "0123abcd");
}

TEST_CASE("the verifier output file: every check, bounded outputs as UTF-8", "[verifier]") {
  VerifiedRun run;
  run.checks = {outcome("unit", CheckResult::failed), outcome("gone", CheckResult::not_executed)};
  run.checks[0].exit_code = 1;
  run.checks[0].stdout_text = std::string("bad \xff byte");
  run.checks[0].stdout_bytes = 10;
  const Json out = verifier_output("run:key/1", run);
  CHECK(out["executionKey"] == "run:key/1");
  REQUIRE(out["checks"].size() == 2);
  CHECK(out["checks"][0]["result"] == "failed");
  CHECK(out["checks"][0]["exitCode"] == 1);
  CHECK(out["checks"][0]["stdout"] == "bad \xef\xbf\xbd byte");
  CHECK(out["checks"][0]["maxOutputBytes"] == 0);
  CHECK(out["checks"][1]["result"] == "not-executed");
  CHECK(out["checks"][1]["exitCode"].is_null());
}

TEST_CASE("the verifier plan: the suite's checks with the defaults, the configuration's overrides", "[verifier]") {
  const Json& suite = fixture_suite();
  const VerifierPlan defaults = verifier_plan(nullptr, "/cfg", suite, repository_config());
  const std::string task = suite["tasks"][0]["id"];
  const std::string check = suite["tasks"][0]["acceptanceChecks"][0]["id"];
  REQUIRE(defaults.checks_by_task.count(task) == 1);
  const VerifierCheck& plain = defaults.checks_by_task.at(task).at(0);
  CHECK(plain.command == suite["tasks"][0]["acceptanceChecks"][0]["command"]);
  CHECK(plain.timeout_ms == kDefaultCheckTimeoutMs);
  CHECK(plain.max_output_bytes == kDefaultCheckOutputBytes);
  CHECK(plain.max_processes == kDefaultCheckProcesses);
  CHECK_FALSE(plain.network);
  CHECK_FALSE(defaults.config_hash);

  const std::string repository = repository_config()["repositories"][0]["id"];
  const Json config = verifier_config(
      R"(,"defaults":{"timeoutMs":5000,"maxProcesses":64},"checks":[{"taskId":")" + task + R"(","checkId":")" + check +
      R"(","command":"make test","maxOutputBytes":100,"network":true,"stdoutContains":"OK"}],
      "repositories":[{"repositoryId":")" + repository + R"(","setup":"make","hiddenChecks":{"directory":"hidden","mountAt":"t/h"}}])");
  const VerifierPlan plan = verifier_plan(&config, "/cfg", suite, repository_config());
  const VerifierCheck& set = plan.checks_by_task.at(task).at(0);
  CHECK(set.command == "make test");
  CHECK(set.timeout_ms == 5000);
  CHECK(set.max_output_bytes == 100);
  CHECK(set.max_processes == 64);
  CHECK(set.network);
  CHECK(set.rule.stdout_contains == std::optional<std::string>("OK"));
  CHECK(plan.config_hash == std::optional<std::string>(config["contentHash"].get<std::string>()));
  const RepositoryPreparation* preparation = plan.preparation(repository);
  REQUIRE(preparation != nullptr);
  CHECK(preparation->setup == std::optional<std::string>("make"));
  CHECK(preparation->hidden_directory == std::optional<std::string>("/cfg/hidden"));
  CHECK(preparation->mount_at == "t/h");
  CHECK(plan.preparation("no-such") == nullptr);
}

TEST_CASE("the verifier plan refuses what the study has not, naming the entry", "[verifier]") {
  const Json& suite = fixture_suite();
  const std::string task = suite["tasks"][0]["id"];
  const std::string repository = repository_config()["repositories"][0]["id"];
  auto refusal = [&](const std::string& members) {
    const Json config = verifier_config(members);
    return message_of([&] { verifier_plan(&config, "/cfg", suite, repository_config()); });
  };
  CHECK_THAT(refusal(R"(,"checks":[{"taskId":"nope","checkId":"x"}])"), Catch::Contains("the suite has no task nope"));
  CHECK_THAT(refusal(R"(,"checks":[{"taskId":")" + task + R"(","checkId":"nope"}])"),
             Catch::Contains("has no acceptance check nope"));
  CHECK_THAT(refusal(R"(,"repositories":[{"repositoryId":"nope"}])"), Catch::Contains("has no repository nope"));
  for (const char* mount : {"../out", "/abs", "a/../b", "a//b", "."}) {
    INFO(mount);
    CHECK_THAT(refusal(R"(,"repositories":[{"repositoryId":")" + repository +
                       R"(","hiddenChecks":{"directory":"h","mountAt":")" + mount + R"("}}])"),
               Catch::Contains("must be a relative path inside the repository"));
  }
  CHECK_THAT(strata::test::error_of([&] {
               create_artifact(ArtifactKind::verifier_config,
                               parse_json(R"({"type":"strata-verifier-config","schemaVersion":1,"defaults":{"maxProcesses":2}})"));
             }),
             Catch::Contains("maxProcesses"));
  CHECK_THAT(message_of([&] {
               verifier_config(R"(,"checks":[{"taskId":")" + task + R"(","checkId":"a"},{"taskId":")" + task +
                               R"(","checkId":"a"}])");
             }),
             Catch::Contains("Duplicate verifier-config check"));
}

namespace {

const Json& run_plan() {
  static const Json p = parse_artifact(ArtifactKind::run_plan, fixture("run-plan-v1.json"));
  return p;
}

// An observation of consumer-01-discovery (one check) whose agent claims `claim`, verified as `verified`.
Json verified_observation(const std::string& claim, std::optional<CheckResult> verified, const std::string& outcome_reported) {
  ObservationInputs in;
  in.plan = &run_plan();
  in.recorded_task = parse_json(R"({"taskId":"consumer-01-discovery","repositoryId":"consumer-01","category":"discovery",
    "scenarioId":"repository-only","modelId":"low-cost-model","replicate":0,"variantId":"variant-a","difficulty":"easy"})");
  in.request = "{}";
  in.observed_at = "2026-12-07T12:00:00.000Z";
  strata::exec::ProcessResult r;
  r.end = strata::exec::ProcessEnd::exited;
  r.exit_code = 0;
  r.stdout_data = R"({"taskOutcome":")" + outcome_reported + R"(","evidenceIds":["entrypoint-evidence"],"inputTokens":3,)"
                  R"("outputTokens":5,"tokenMethod":"provider","measurements":)" + claim + "}";
  AttemptRecord record = strata::engine::attempt_record(r, 256);
  if (verified) {
    VerifiedRun run;
    run.checks = {outcome(fixture_suite()["tasks"][0]["acceptanceChecks"][0]["id"], *verified)};
    record.verification = run;
  }
  return build_judged_observation(in, record, *find_task(fixture_suite(), "consumer-01-discovery"));
}

const std::string kClaimsAll = R"({"acceptanceChecksPassed":1,"acceptanceChecksTotal":1,"acceptanceChecksExecuted":1})";

}  // namespace

TEST_CASE("the rubric judges the verified counts when the verifier ran, and says so", "[verifier]") {
  const Json claimed = verified_observation(kClaimsAll, std::nullopt, "success");
  CHECK(claimed["adjudication"]["outcome"] == "success");
  CHECK(claimed["adjudication"]["reason"].get<std::string>().find("verifier") == std::string::npos);
  const Json lie = verified_observation(kClaimsAll, CheckResult::failed, "success");
  CHECK(lie["adjudication"]["outcome"] == "partial");  // its evidence cited, its check failed
  CHECK(lie["adjudication"]["reason"].get<std::string>().find("Strata's verifier") != std::string::npos);
  CHECK(lie["measurements"]["acceptanceChecksPassed"] == 1);  // the claim kept as it was
  CHECK(lie["measurements"]["verifiedChecksPassed"] == 0);
  // Verified, the agent's missing claim does not block: the facts are Strata's.
  const Json silent = verified_observation("{}", CheckResult::passed, "success");
  CHECK(silent["adjudication"]["outcome"] == "success");
  // A check the verifier could not execute is not passed.
  CHECK(verified_observation(kClaimsAll, CheckResult::not_executed, "success")["adjudication"]["outcome"] == "partial");
  // A provider claiming a verification of its own has it dropped.
  const Json forged = verified_observation(R"({"verifiedChecksPassed":1,"verifiedChecksTotal":1,"verifiedChecksExecuted":1,)"
                                           R"("verifiedCheck.x":1,"verifierDurationMs":1})", std::nullopt, "success");
  CHECK_FALSE(forged["measurements"].contains("verifiedChecksPassed"));
  CHECK_FALSE(forged["measurements"].contains("verifiedCheck.x"));
  CHECK(forged["adjudication"]["outcome"] == "blocked");
}

TEST_CASE("the adjudicator request carries the verified counts and says whose they are", "[verifier]") {
  const Json& task = *find_task(fixture_suite(), "consumer-01-discovery");
  const Json lie = adjudicator_request(verified_observation(kClaimsAll, CheckResult::failed, "success"), task);
  const Json& acceptance = lie["candidate"]["acceptanceExecution"];
  CHECK(acceptance["passed"] == 0);
  CHECK(acceptance["total"] == 1);
  CHECK(acceptance["executed"] == 1);
  CHECK(acceptance["measurementPresent"] == true);
  CHECK(acceptance["source"] == "strata-verifier");
  CHECK(lie["candidate"]["measurements"]["acceptanceChecksPassed"] == 1);
  CHECK(lie["instruction"].get<std::string>().find("Strata's verifier") != std::string::npos);
  const Json claimed = adjudicator_request(verified_observation(kClaimsAll, std::nullopt, "success"), task);
  CHECK(claimed["candidate"]["acceptanceExecution"]["passed"] == 1);
  CHECK_FALSE(claimed["candidate"]["acceptanceExecution"].contains("source"));
  CHECK(claimed["instruction"].get<std::string>().find("Strata's verifier") == std::string::npos);
}
