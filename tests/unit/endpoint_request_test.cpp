// Endpoint providers (docs/ENDPOINTS.md): the provider-config extension, the request body, and
// measured usage in the observation.
#include <catch2/catch.hpp>

#include "fixture.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/cm/cm_packet.hpp"
#include "strata/model/study/endpoint_request.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/model/study/provider_request.hpp"

using namespace strata::model;
using strata::test::fixture;
using strata::test::message_of;

using strata::test::fixture_suite;

namespace {


// The compact study request of one execution of the fixture suite.
std::string request_for(const std::string& task_id, const std::string& scenario, double replicate) {
  const Json* task = nullptr;
  for (const auto& t : fixture_suite()["tasks"])
    if (t["id"] == task_id) task = &t;
  REQUIRE(task != nullptr);
  Json cell = {{"taskId", task_id},   {"repositoryId", (*task)["repositoryId"]}, {"category", (*task)["category"]},
               {"scenarioId", scenario}, {"modelId", "hosted-model"},          {"replicate", replicate},
               {"variantId", "variant-a"}};
  return compact_json(provider_request(recorded_task(cell, *task), *task));
}

Json endpoint_provider() {
  return parse_json(R"({"modelId":"hosted-model","scenarioIds":["repository-only"],"providerNetwork":true,
    "maxInputBytes":1000000,"maxOutputBytes":65536,
    "endpoint":{"protocol":"openai-chat-completions","baseUrlEnv":"STUDY_BASE_URL","apiKeyEnv":"STUDY_API_KEY",
                "model":"org/model-1","parameters":{"temperature":0.2,"max_tokens":500}}})");
}

Json config_with(const Json& provider) {
  return Json{{"type", "study-provider-cli-config"}, {"schemaVersion", 1}, {"configVersion", "v1"},
              {"providers", Json::array({provider})}};
}

}  // namespace

TEST_CASE("an endpoint provider entry is sealed with its defaults", "[endpoint]") {
  const Json sealed = create_artifact(ArtifactKind::provider_config, config_with(endpoint_provider()));
  const Json& entry = sealed["providers"][0];
  CHECK_FALSE(entry.contains("command"));
  CHECK(entry["args"] == Json::array());
  CHECK(entry["endpoint"]["transportRetries"] == 3);
  CHECK(parse_artifact(ArtifactKind::provider_config, sealed)["contentHash"] == sealed["contentHash"]);
}

TEST_CASE("command or endpoint, never both or neither", "[endpoint]") {
  Json both = endpoint_provider();
  both["command"] = "node";
  CHECK(message_of([&] { create_artifact(ArtifactKind::provider_config, config_with(both)); }) ==
        "A provider entry has either command or endpoint, not both.");
  Json neither = endpoint_provider();
  neither.erase("endpoint");
  CHECK(message_of([&] { create_artifact(ArtifactKind::provider_config, config_with(neither)); }) ==
        "A provider entry needs command or endpoint.");
  Json args = endpoint_provider();
  args["args"] = Json::array({"--x"});
  CHECK(message_of([&] { create_artifact(ArtifactKind::provider_config, config_with(args)); }) ==
        "args apply to command providers only.");
  Json offline = endpoint_provider();
  offline["providerNetwork"] = false;
  CHECK(message_of([&] { create_artifact(ArtifactKind::provider_config, config_with(offline)); }) ==
        "An endpoint provider must declare providerNetwork true.");
  Json model_override = endpoint_provider();
  model_override["endpoint"]["parameters"]["model"] = "other";
  CHECK(message_of([&] { create_artifact(ArtifactKind::provider_config, config_with(model_override)); }) ==
        "unknown key \"model\"");
  Json bad_model = endpoint_provider();
  bad_model["endpoint"]["model"] = "has space";
  CHECK(message_of([&] { create_artifact(ArtifactKind::provider_config, config_with(bad_model)); }) ==
        "Endpoint model names use letters, digits and ._:/+@- (at most 128).");
}

TEST_CASE("the system message is the same for every execution; the user message carries the request", "[endpoint]") {
  const Json endpoint = endpoint_provider()["endpoint"];
  const std::string first_request = request_for("consumer-01-discovery", "repository-only", 0);
  const std::string second_request = request_for("consumer-02-architecture", "deterministic-doc-bridge", 3);
  const Json first = cm::parse_strict(endpoint_request_body(EndpointRole::provider, endpoint, first_request), "body");
  const Json second = cm::parse_strict(endpoint_request_body(EndpointRole::provider, endpoint, second_request), "body");
  CHECK(first["model"] == "org/model-1");
  CHECK(first["stream"] == false);
  CHECK(first["temperature"] == 0.2);
  CHECK(first["max_tokens"] == 500);
  const std::string system = first["messages"][0]["content"];
  CHECK(system == second["messages"][0]["content"]);
  CHECK(system == endpoint_system_message(EndpointRole::provider));
  CHECK(system != endpoint_system_message(EndpointRole::adjudicator));
  CHECK(system.rfind("[safety]\n", 0) == 0);
  const Json packet = cm::parse_strict(second["messages"][1]["content"].get<std::string>(), "packet");
  CHECK(cm::python_canonical_json(packet["context"]["request"]) ==
        cm::python_canonical_json(cm::parse_strict(second_request, "request")));
  CHECK(packet["identifiers"]["replicate"] == 3);
  // Python-style canonical text: integers stay integers, keys sorted.
  CHECK(second["messages"][1]["content"].get<std::string>().find("\"replicate\":3,") != std::string::npos);
  CHECK(packet["role"] == "study-provider");
}

TEST_CASE("measured usage replaces the model's own token counts", "[endpoint]") {
  const Json plan = parse_artifact(ArtifactKind::run_plan, fixture("run-plan-v1.json"));
  Json provider = endpoint_provider();
  provider["pricing"] = {{"currency", "USD"}, {"inputPerMillionUsd", 1.0}, {"cachedInputPerMillionUsd", 0.1},
                         {"outputPerMillionUsd", 2.0}};
  ObservationInputs in;
  in.plan = &plan;
  in.provider = &provider;
  in.recorded_task = parse_json(R"({"taskId":"consumer-01-discovery","repositoryId":"consumer-01","category":"discovery",
    "scenarioId":"repository-only","modelId":"low-cost-model","replicate":0,"variantId":"variant-a","difficulty":"easy"})");
  in.request = "{}";
  in.observed_at = "2026-11-30T00:00:00.000Z";
  AttemptRecord attempt;
  attempt.status = "completed";
  attempt.stdout_text = R"({"taskOutcome":"partial","inputTokens":1,"outputTokens":1,"tokenMethod":"estimate"})";
  attempt.stderr_hash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";  // of nothing
  attempt.measured_usage = AttemptRecord::Usage{1000, 200, 400};
  const Json observation = build_observation(in, attempt);
  CHECK(observation["execution"]["inputTokens"] == 1000);
  CHECK(observation["execution"]["outputTokens"] == 200);
  CHECK(observation["execution"]["tokenMethod"] == "provider");
  CHECK(observation["measurements"]["cachedInputTokens"] == 400);
  CHECK(observation["measurements"]["providerTokenCostUnits"] == 1200);
}
