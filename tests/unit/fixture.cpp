#include "fixture.hpp"

#include <fstream>

#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/store/artifact_file.hpp"

namespace strata::test {

std::string fixture_path(const std::string& name) { return std::string(STRATA_FIXTURES) + "/" + name; }

std::vector<std::string> captured_stream(const std::string& name) {
  std::ifstream file(std::string(STRATA_TEST_STREAMS) + "/" + name);
  if (!file) throw Error("cannot read the captured stream " + name);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  return lines;
}

const model::Json& fixture_suite() {
  static const model::Json suite = model::parse_artifact(model::ArtifactKind::task_suite, fixture("task-suite-v1.json"));
  return suite;
}

const char* const kRolePacket =
    R"({"stable_prefix":{"safety":"DO_NOT_LOG_STABLE safety boundary","workflow":"cm-prd design generation",
  "project_rules":"stay inside the approved requirement","role":"planner","output_schema":"return the compact plan only"},
  "dynamic_packet":{"workflow":"cm-prd","stage":"design_generation","role":"planner","objective":"DO_NOT_LOG_DYNAMIC create one plan",
  "identifiers":{"feature":"1.fixture"},"constraints":["no implementation"],"expected_output":"plan"}})";

model::Json fixture(const std::string& name) { return store::read_json_file(fixture_path(name)); }

std::string error_of(const std::function<void()>& operation) {
  try {
    operation();
  } catch (const Error& e) {
    return e.describe();
  }
  return "no error";
}

std::string message_of(const std::function<void()>& operation) {
  try {
    operation();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

model::Json payload_of(model::Json sealed) {
  sealed.erase("contentHash");
  sealed.erase("contentHashAlgo");
  return sealed;
}

model::Json observation_payload() {
  const model::Json plan = fixture("run-plan-v1.json");
  model::Json o = model::parse_json(R"({"type":"controlled-study-observation","schemaVersion":1,"observationVersion":"v1",
    "observedAt":"2026-08-31T12:00:00.000Z","runId":"run-01",
    "task":{"taskId":"consumer-01-discovery","repositoryId":"consumer-01","category":"discovery",
            "scenarioId":"repository-only","modelId":"low-cost-model","replicate":0,"variantId":"variant-a",
            "difficulty":"easy"},
    "execution":{"status":"completed","exitCode":0,"signal":null,"durationMs":12,"responseBytes":2,"stderrBytes":0},
    "contextBytes":128,"evidenceIds":["src/index.ts"],"adjudication":{"status":"pending"}})");
  o["planHash"] = plan["contentHash"];
  // Schema order: planHash comes after runId; model and scenario after task.
  model::Json ordered = model::Json::object();
  for (auto& [key, value] : o.items()) {
    if (key == "planHash") continue;
    ordered[key] = value;
    if (key == "runId") ordered["planHash"] = plan["contentHash"];
    if (key == "task") {
      ordered["model"] = plan["models"][0];
      ordered["scenario"] = plan["scenarios"][0];
    }
  }
  return ordered;
}

}  // namespace strata::test
