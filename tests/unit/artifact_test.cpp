#include <catch2/catch.hpp>

#include <string>

#include "fixture.hpp"
#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/verification.hpp"

using namespace strata::model;
using strata::test::fixture;
using strata::test::error_of;
using strata::test::payload_of;
using strata::test::observation_payload;

namespace {

Json provider_payload() {
  return parse_json(R"({"type":"study-provider-cli-config","schemaVersion":1,"configVersion":"example-v1",
    "providers":[{"modelId":"low-cost-model","scenarioIds":["repository-only","deterministic-doc-bridge"],
    "command":"node","providerNetwork":false,"maxInputBytes":1000000,"maxOutputBytes":10000}]})");
}

Json empty_ledger_payload() {
  return parse_json(R"({"type":"controlled-study-observation-ledger","schemaVersion":1,"ledgerVersion":"v1","observations":[]})");
}

Json with_bad_hash(Json sealed) {
  sealed["contentHash"] = std::string(64, 'a');
  return sealed;
}

}  // namespace

TEST_CASE("spec 6 case 2: the real run plan parses", "[artifact]") {
  const Json plan = parse_artifact(ArtifactKind::run_plan, fixture("run-plan-v1.json"));
  CHECK(plan["models"].size() == 2);
  CHECK(plan["scenarios"].size() == 3);
  CHECK(plan["taskIds"].size() == 24);
  CHECK(plan["contentHash"] == "29e95cc2d8fa7f3e6a789884943f9d2cf20896ddb5405196b5ae869e87577d28");
}

TEST_CASE("spec 6 case 3: the real task suite parses", "[artifact]") {
  const Json suite = parse_artifact(ArtifactKind::task_suite, fixture("task-suite-v1.json"));
  CHECK(suite["tasks"].size() == 24);
  CHECK(suite["contentHash"] == "d7810828bce3c6616f00897fd7c92dfa4ecdf12e549923795cd95cc81a2b0029");
}

TEST_CASE("every real sealed fixture verifies except the edited result", "[artifact]") {
  for (const char* name : {"run-plan-v1.json", "task-suite-v1.json", "protocol-v1.json", "ab-baseline-plan-v1.json",
                           "ab-adjudicated-cost-plan-v1.json", "ab-adjudicated-cost-plan-v2-v1.json",
                           "ab-baseline-result-v1.json"}) {
    INFO(name);
    CHECK(verify_document(fixture(name)).mismatches.empty());
  }
  // Spec 6 case 11: long decimals such as -5761.7021277 hash as the reference does.
  CHECK(verify_document(fixture("ab-baseline-result-v1.json")).content_hash ==
        "94ac03bcb9f1d600ded42084503ca27d6a3a8e730a338b05fdd3c365d5e5ed7a");
  const Verification edited = verify_document(fixture("ab-adjudicated-cost-result-v1.json"));
  REQUIRE(edited.mismatches.size() == 1);
  CHECK(edited.mismatches[0].path == "$.contentHash");
  CHECK(edited.mismatches[0].stored == "9589b4e36283c36face82acdacbd756b3b96e001c59f2fb0574f9b5be4ef034c");
}

TEST_CASE("spec 6 case 9: sealing materialises defaults before hashing", "[artifact]") {
  const Json sealed = create_artifact(ArtifactKind::provider_config, provider_payload());
  CHECK(sealed["contentHash"] == "01a0321464e783d2d85085e51e45068a47f02a52b3f61ba5af32ce2e283c70a4");
  CHECK(sealed["providers"][0]["args"] == Json::array());
  CHECK(sealed["providers"][0]["envAllowlist"] == Json::array());
  const std::string text = pretty_json(sealed);
  CHECK(text.find("\"args\": []") != std::string::npos);
  CHECK(text.find("\"envAllowlist\": []") != std::string::npos);
  // Seal members come last, contentHash first; parsing the sealed text round-trips.
  CHECK(text.find("\"contentHash\"") < text.find("\"contentHashAlgo\""));
  CHECK(pretty_json(parse_artifact(ArtifactKind::provider_config, parse_json(text))) == text);
}

TEST_CASE("repository config and empty ledger seal to the spec's hashes", "[artifact]") {
  const Json repositories = create_artifact(ArtifactKind::repository_config, parse_json(R"({
    "type":"controlled-study-repository-config","schemaVersion":1,"configVersion":"v1",
    "repositories":[{"id":"public-fixture","root":"/srv/fixture"}]})"));
  CHECK(repositories["contentHash"] == "c01e2962e520b3e34c4aa5209cdf369fee3cd9405ce9b4c819e49f46aa52abe8");
  CHECK(create_artifact(ArtifactKind::ledger, empty_ledger_payload())["contentHash"] ==
        "d7aacae053872796b29fbb6cca38a41a5fb2d542c7a5628c0671c9add14f9955");
}

TEST_CASE("spec 6 case 10: a replaced contentHash is reported per kind", "[artifact]") {
  CHECK(error_of([] { parse_artifact(ArtifactKind::run_plan, with_bad_hash(fixture("run-plan-v1.json"))); }) ==
        "$.contentHash: Invalid controlled run-plan content hash.");
  CHECK(error_of([] { parse_artifact(ArtifactKind::task_suite, with_bad_hash(fixture("task-suite-v1.json"))); }) ==
        "$.contentHash: Invalid task-suite content hash.");
  CHECK(error_of([] {
          parse_artifact(ArtifactKind::ledger, with_bad_hash(create_artifact(ArtifactKind::ledger, empty_ledger_payload())));
        }) == "$.contentHash: Invalid observation-ledger content hash.");
  CHECK(error_of([] {
          parse_artifact(ArtifactKind::observation,
                         with_bad_hash(create_artifact(ArtifactKind::observation, observation_payload())));
        }) == "$.contentHash: Invalid controlled observation content hash.");
  CHECK(error_of([] {
          parse_artifact(ArtifactKind::provider_config,
                         with_bad_hash(create_artifact(ArtifactKind::provider_config, provider_payload())));
        }) == "$.contentHash: Invalid study provider CLI config content hash.");
  const Json repositories = create_artifact(ArtifactKind::repository_config, parse_json(R"({
    "type":"controlled-study-repository-config","schemaVersion":1,"configVersion":"v1",
    "repositories":[{"id":"a","root":"/srv/a"}]})"));
  CHECK(error_of([&] { parse_artifact(ArtifactKind::repository_config, with_bad_hash(repositories)); }) ==
        "$.contentHash: Invalid study repository config content hash.");
  CHECK(error_of([] { parse_artifact(ArtifactKind::protocol, with_bad_hash(fixture("protocol-v1.json"))); }) ==
        "$.contentHash: Invalid content hash: expected fe26951579d9003f1cd616f12fb6d6007a60ec69db5efbb9acd5d80c817002d1.");
}

TEST_CASE("shape errors name the JSON path", "[artifact]") {
  Json plan = fixture("run-plan-v1.json");
  plan["budget"]["surprise"] = 1;
  CHECK(error_of([&] { parse_artifact(ArtifactKind::run_plan, plan); }) == "$.budget.surprise: unknown key \"surprise\"");

  plan = fixture("run-plan-v1.json");
  plan.erase("runId");
  CHECK(error_of([&] { parse_artifact(ArtifactKind::run_plan, plan); }) == "$: missing required key \"runId\"");

  plan = fixture("run-plan-v1.json");
  plan["budget"]["maxAttempts"] = "1";
  CHECK(error_of([&] { parse_artifact(ArtifactKind::run_plan, plan); }) ==
        "$.budget.maxAttempts: expected an integer from 1 to 3, got a string");

  plan = fixture("run-plan-v1.json");
  plan["budget"]["maxAttempts"] = 1.5;
  CHECK(error_of([&] { parse_artifact(ArtifactKind::run_plan, plan); }) ==
        "$.budget.maxAttempts: expected an integer from 1 to 3, got 1.5");

  plan = fixture("run-plan-v1.json");
  plan["models"][1]["id"] = "Reference";
  CHECK(error_of([&] { parse_artifact(ArtifactKind::run_plan, plan); }) ==
        "$.models[1].id: expected an identifier (^[a-z][a-z0-9-]{0,127}$)");

  plan = fixture("run-plan-v1.json");
  plan["scenarios"][2]["agentBudget"] = nullptr;
  CHECK(error_of([&] { parse_artifact(ArtifactKind::run_plan, plan); }) ==
        "$.scenarios[2].agentBudget: expected an object, got null (omit optional fields instead)");

  plan = fixture("run-plan-v1.json");
  plan["sampling"]["strategy"] = "everything";
  CHECK(error_of([&] { parse_artifact(ArtifactKind::run_plan, plan); }) ==
        "$.sampling.strategy: expected one of \"balanced-task-strata\", \"pairwise-task-strata\"");

  Json suite = fixture("task-suite-v1.json");
  suite["tasks"][3]["rubric"]["success"] = Json::array();
  CHECK(error_of([&] { parse_artifact(ArtifactKind::task_suite, suite); }) ==
        "$.tasks[3].rubric.success: expected at least 1 items, got 0");
}

TEST_CASE("nullable execution members must still be present", "[artifact]") {
  Json o = observation_payload();
  o["execution"].erase("signal");
  CHECK(error_of([&] { create_artifact(ArtifactKind::observation, o); }) == "$.execution: missing required key \"signal\"");
  o = observation_payload();
  o["execution"]["inputTokens"] = 3;
  CHECK(error_of([&] { create_artifact(ArtifactKind::observation, o); }) ==
        "$.execution: Token counts require a provider or estimate method.");
  o = observation_payload();
  o["contextTokens"] = 32;
  CHECK(error_of([&] { create_artifact(ArtifactKind::observation, o); }) ==
        "$: Context token counts require a provider or estimate method.");
  o = observation_payload();
  o["adjudication"] = {{"status", "automated"}, {"actor", "x"}};
  CHECK(error_of([&] { create_artifact(ArtifactKind::observation, o); }) ==
        "$.adjudication: Automated adjudication requires actor, method, and outcome.");
  o = observation_payload();
  o["task"]["modelId"] = "reference-model";
  CHECK(error_of([&] { create_artifact(ArtifactKind::observation, o); }) ==
        "Observation task model reference-model does not match model low-cost-model.");
}

TEST_CASE("a ledger refuses duplicate observations", "[artifact]") {
  const Json observation = create_artifact(ArtifactKind::observation, observation_payload());
  Json ledger = empty_ledger_payload();
  ledger["observations"].push_back(observation);
  const Json sealed = create_artifact(ArtifactKind::ledger, ledger);
  CHECK(parse_artifact(ArtifactKind::ledger, sealed) == sealed);
  ledger["observations"].push_back(observation);
  CHECK(error_of([&] { create_artifact(ArtifactKind::ledger, ledger); }).find("Duplicate observation id.") !=
        std::string::npos);
}

TEST_CASE("parse of a ledger does not recompute nested hashes, verify does", "[artifact]") {
  Json observation = create_artifact(ArtifactKind::observation, observation_payload());
  observation["contextBytes"] = 129.0;  // edited after sealing
  Json ledger = empty_ledger_payload();
  ledger["observations"].push_back(observation);
  const Json sealed = create_artifact(ArtifactKind::ledger, ledger);
  CHECK_NOTHROW(parse_artifact(ArtifactKind::ledger, sealed));
  const Verification v = verify_document(sealed);
  REQUIRE(v.mismatches.size() == 1);
  CHECK(v.mismatches[0].path == "$.observations[0].contentHash");
}

TEST_CASE("spec 6 cases 22-26: run plan validation", "[artifact]") {
  const Json base = payload_of(fixture("run-plan-v1.json"));
  SECTION("22: pairwise 96 with a new run id is accepted") {
    Json plan = base;
    plan["sampling"] = {{"strategy", "pairwise-task-strata"}, {"sampleSize", 96}, {"scenarioIds", {"repository-only", "deterministic-doc-bridge"}}};
    plan["runId"] = "phase-9-pairwise-01";
    CHECK_NOTHROW(create_artifact(ArtifactKind::run_plan, plan));
  }
  SECTION("23: sample size 25") {
    Json plan = base;
    plan["sampling"]["sampleSize"] = 25;
    CHECK(error_of([&] { create_artifact(ArtifactKind::run_plan, plan); }) ==
          "Sampling must be a positive balanced subset of the task strata.");
  }
  SECTION("24: registry-assisted without agent") {
    Json plan = base;
    plan["scenarios"][2] = {{"id", "registry-assisted"}, {"network", false}};
    CHECK(error_of([&] { create_artifact(ArtifactKind::run_plan, plan); }).find("require agent identity and version") !=
          std::string::npos);
  }
  SECTION("25: promptVersion on repository-only") {
    Json plan = base;
    Json scenario = {{"id", "repository-only"}, {"promptVersion", "v2"}, {"network", false}};
    plan["scenarios"][0] = scenario;
    CHECK(error_of([&] { create_artifact(ArtifactKind::run_plan, plan); }) ==
          "$.scenarios[0]: Only registry-assisted scenarios may declare an agent.");
  }
  SECTION("26: two reference models") {
    Json plan = base;
    plan["models"][0]["role"] = "reference";
    CHECK(error_of([&] { create_artifact(ArtifactKind::run_plan, plan); }) ==
          "The run plan requires one low-cost and one reference model.");
  }
  SECTION("duplicate task ids and pairwise scenarios") {
    Json plan = base;
    plan["taskIds"][1] = plan["taskIds"][0];
    CHECK(error_of([&] { create_artifact(ArtifactKind::run_plan, plan); }) == "Duplicate task id.");
    plan = base;
    plan["sampling"] = {{"strategy", "pairwise-task-strata"}, {"sampleSize", 8}, {"scenarioIds", {"repository-only"}}};
    CHECK(error_of([&] { create_artifact(ArtifactKind::run_plan, plan); }) ==
          "Pairwise sampling requires exactly two scenarios.");
  }
}

TEST_CASE("spec 6 cases 27-30: task suite validation", "[artifact]") {
  const Json base = payload_of(fixture("task-suite-v1.json"));
  SECTION("27: 23 tasks") {
    Json suite = base;
    suite["tasks"].erase(suite["tasks"].size() - 1);
    CHECK(error_of([&] { create_artifact(ArtifactKind::task_suite, suite); }) ==
          "The controlled task suite must contain exactly 24 tasks; received 23.");
  }
  SECTION("28: budget over the suite maximum") {
    Json suite = base;
    suite["tasks"][0]["budget"]["maxTokens"] = suite["maxTokensPerTask"].get<double>() + 1;
    CHECK(error_of([&] { create_artifact(ArtifactKind::task_suite, suite); }) ==
          "Task consumer-01-discovery exceeds the suite budget.");
  }
  SECTION("29: unsafe public text") {
    Json suite = base;
    suite["title"] = "file:///private/task";
    CHECK(error_of([&] { create_artifact(ArtifactKind::task_suite, suite); }) ==
          "$.title: Public study text cannot contain paths, URLs, credentials, or secret material");
  }
  SECTION("30: retrieval queries without expectations, documents that are not references") {
    Json suite = base;
    suite["tasks"][0]["retrievalQueries"] = {"where is the entrypoint"};
    CHECK(error_of([&] { create_artifact(ArtifactKind::task_suite, suite); }).find("expected entities or documents") !=
          std::string::npos);
    suite = base;
    suite["tasks"][0]["expectedDocuments"] = {"docs/alpha.md"};
    CHECK(error_of([&] { create_artifact(ArtifactKind::task_suite, suite); }) ==
          "$.tasks[0].expectedDocuments[0]: expected a reference (^[a-z0-9][a-z0-9._:-]{0,255}$)");
    suite = base;
    suite["tasks"][0]["expectedEntities"] = Json::array();
    CHECK(error_of([&] { create_artifact(ArtifactKind::task_suite, suite); }) ==
          "$.tasks[0].expectedEntities: Declare at least one expected entity or omit the field.");
  }
  SECTION("per-task rules") {
    Json suite = base;
    suite["tasks"][2]["variantGroup"] = "other";
    CHECK(error_of([&] { create_artifact(ArtifactKind::task_suite, suite); }) ==
          "Task " + suite["tasks"][2]["id"].get<std::string>() + " must own its variant group.");
    suite = base;
    suite["tasks"][0]["variants"][1]["label"] = suite["tasks"][0]["variants"][0]["label"];
    CHECK(error_of([&] { create_artifact(ArtifactKind::task_suite, suite); }) ==
          "Task consumer-01-discovery variants must be distinguishable.");
    suite = base;
    suite["tasks"][0]["surfaces"]["ui"].erase("reason");
    CHECK(error_of([&] { create_artifact(ArtifactKind::task_suite, suite); }) ==
          "$.tasks[0].surfaces.ui: Non-applicable surfaces require a reason.");
    suite = base;
    suite["tasks"][1]["category"] = "discovery";
    CHECK(error_of([&] { create_artifact(ArtifactKind::task_suite, suite); }) ==
          "Repository consumer-01 must cover discovery, architecture, documentation, and implementation.");
  }
}

TEST_CASE("safe study text rules", "[artifact]") {
  for (const char* unsafe : {"/tmp/x", "C:\\Users\\me", "home/notes", "API_KEY=1", "api-key : x", "Token: abc",
                             "max token: 5", "password=", "SECRET\t=", "-----BEGIN RSA", "file:///private/task"}) {
    INFO(unsafe);
    CHECK_FALSE(is_safe_study_text(unsafe));
  }
  for (const char* safe : {"Locate the entrypoints.", "tmp files", "/tmpx/", "homework/", "token count", "a secret"}) {
    INFO(safe);
    CHECK(is_safe_study_text(safe));
  }
}

TEST_CASE("spec 6 case 31: duplicate provider mapping fails on parse only", "[artifact]") {
  Json payload = provider_payload();
  Json provider = payload["providers"][0];
  provider["scenarioIds"] = {"repository-only"};
  payload["providers"] = Json::array({provider, provider});
  Json sealed;
  REQUIRE_NOTHROW(sealed = create_artifact(ArtifactKind::provider_config, payload));
  CHECK(error_of([&] { parse_artifact(ArtifactKind::provider_config, sealed); }) ==
        "Duplicate study provider mapping for low-cost-model:repository-only.");
}

TEST_CASE("provider command fields", "[artifact]") {
  Json payload = provider_payload();
  payload["providers"][0]["command"] = "node\nrm";
  CHECK(error_of([&] { create_artifact(ArtifactKind::provider_config, payload); }) ==
        "$.providers[0].command: Command cannot contain control characters.");
  payload = provider_payload();
  payload["providers"][0]["args"] = {"ok", std::string("a\0b", 3)};
  CHECK(error_of([&] { create_artifact(ArtifactKind::provider_config, payload); }) ==
        "$.providers[0].args[1]: Arguments cannot contain control characters.");
  payload = provider_payload();
  payload["providers"][0]["envAllowlist"] = {"lower"};
  CHECK(error_of([&] { create_artifact(ArtifactKind::provider_config, payload); }).find("$.providers[0].envAllowlist[0]") == 0);
  payload = provider_payload();
  payload["providers"][0]["maxOutputBytes"] = 256001;
  CHECK(error_of([&] { create_artifact(ArtifactKind::provider_config, payload); }) ==
        "$.providers[0].maxOutputBytes: expected an integer from 1 to 256000, got 256001");
}
