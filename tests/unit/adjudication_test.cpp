#include <catch2/catch.hpp>

#include <cmath>

#include "fixture.hpp"
#include "strata/model/adjudication/adjudication.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/study/payload_shapes.hpp"
#include "strata/model/study/provider_request.hpp"

using namespace strata::model;

TEST_CASE("spec 6 case 61: batch selection walks run id, offset, limit", "[adjudication]") {
  const std::vector<std::string> observations{"x", "y", "x", "x"};  // their run ids
  BatchSelection s;
  s.run_id = "x";
  s.offset = 1;
  s.limit = 1;
  CHECK(select_for_adjudication(observations, s) == std::vector<std::size_t>{2});
  CHECK(select_for_adjudication(observations, BatchSelection{}) == std::vector<std::size_t>{0, 1, 2, 3});
  BatchSelection offset_only;
  offset_only.offset = 3;
  CHECK(select_for_adjudication(observations, offset_only) == std::vector<std::size_t>{3});
  BatchSelection other;
  other.run_id = "z";
  CHECK(select_for_adjudication(observations, other).empty());
}

TEST_CASE("JavaScript Number() for --limit and --offset", "[adjudication]") {
  CHECK(javascript_number("10") == 10);
  CHECK(javascript_number("1e1") == 10);
  CHECK(javascript_number(" 7 ") == 7);
  CHECK(javascript_number("") == 0);
  CHECK(javascript_number("0x10") == 16);
  CHECK(javascript_number("1.5") == 1.5);
  CHECK(std::isnan(javascript_number("abc")));
  CHECK(std::isnan(javascript_number("10abc")));
  CHECK(std::isnan(javascript_number("inf")));
  CHECK(std::isinf(javascript_number("Infinity")));
}

TEST_CASE("spec 6 case 64 and 4.2: the adjudicator request is anonymised", "[adjudication]") {
  const Json suite = parse_artifact(ArtifactKind::task_suite, strata::test::fixture("task-suite-v1.json"));
  const Json& task = *find_task(suite, "consumer-01-discovery");
  const Json observation = parse_json(R"({"runId":"secret-run","task":{"taskId":"consumer-01-discovery","modelId":"m",
    "scenarioId":"repository-only","variantId":"variant-a","repositoryId":"consumer-01"},
    "execution":{"status":"completed","exitCode":0,"signal":null,"durationMs":5,"responseBytes":2,"stderrBytes":0},
    "evidenceIds":["entrypoint-evidence","x"],"taskOutcome":"success",
    "measurements":{"acceptanceChecksPassed":1,"acceptanceChecksTotal":1}})");
  const Json request = adjudicator_request(observation, task);
  const std::string text = request.dump();
  for (const char* hidden : {"secret-run", "repository-only", "variant-a", "\"m\"", "consumer-01\""}) {
    INFO(hidden);
    CHECK(text.find(hidden) == std::string::npos);
  }
  CHECK(request["protocol"] == "doc-bridge.study-adjudicator.v1");
  const Json& c = request["candidate"];
  CHECK(c["taskOutcome"] == "success");
  CHECK(c["evidenceQuality"].is_null());
  CHECK(c["evidenceCoverage"]["required"] == parse_json(R"([{"id":"entrypoint-evidence","present":true}])"));
  CHECK(c["evidenceCoverage"]["referenceCount"] == 2);
  CHECK(c["acceptanceExecution"]["executed"].is_null());
  CHECK(c["acceptanceExecution"]["measurementPresent"] == false);  // executed is missing
  CHECK(request["task"]["rubric"]["success"].size() == task["rubric"]["success"].size());
  CHECK(request["task"]["mechanical"] == Json::array());
  CHECK(conform(request, adjudicator_request_shape()) == request);
}
