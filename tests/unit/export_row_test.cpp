// model/results/export_row: RFC 4180 fields and the flat row of an observation (strata export).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "strata/model/results/export_row.hpp"
#include "strata/model/study/observation_builder.hpp"

using strata::model::Json;

TEST_CASE("CSV fields: quoted exactly when RFC 4180 needs it", "[export]") {
  CHECK(strata::model::csv_field(Json("plain")) == "plain");
  CHECK(strata::model::csv_field(Json("a,b")) == "\"a,b\"");
  CHECK(strata::model::csv_field(Json("say \"hi\"")) == "\"say \"\"hi\"\"\"");
  CHECK(strata::model::csv_field(Json("two\nlines")) == "\"two\nlines\"");
  CHECK(strata::model::csv_field(Json("cr\rhere")) == "\"cr\rhere\"");
  CHECK(strata::model::csv_field(Json(" spaced ")) == " spaced ");
  CHECK(strata::model::csv_field(Json("")) == "");
  CHECK(strata::model::csv_field(Json(nullptr)) == "");
  CHECK(strata::model::csv_field(Json(614.0)) == "614");
  CHECK(strata::model::csv_field(Json(0.001161)) == "0.001161");
  CHECK(strata::model::csv_field(Json(1e-7)) == "1e-7");
  CHECK(strata::model::csv_field(Json(1e21)) == "1e+21");
  CHECK(strata::model::csv_field(Json(true)) == "true");
}

TEST_CASE("an observation's row: nested members, absent values, the adjudicated result", "[export]") {
  Json observation = {{"runId", "run-1"},
                      {"observedAt", "2026-12-02T00:00:00.000Z"},
                      {"planHash", "p"},
                      {"task", {{"taskId", "t"}, {"repositoryId", "r"}, {"category", "discovery"}, {"scenarioId", "s"},
                                {"modelId", "m"}, {"replicate", 0.0}, {"variantId", "v"}}},
                      {"execution", {{"status", "completed"}, {"exitCode", 0.0}, {"signal", nullptr}, {"durationMs", 12.0},
                                     {"responseBytes", 3.0}, {"stderrBytes", 0.0}, {"inputTokens", 10.0}, {"outputTokens", 2.0},
                                     {"tokenMethod", "provider"}}},
                      {"contextBytes", 40.0},
                      {"evidenceIds", Json::array({"a", "b"})},
                      {"measurements", {{"cachedInputTokens", 4.0}, {"agentCostUsd", 0.5}, {"z, odd", 1.0}}},
                      {"adjudication", {{"status", "pending"}, {"actor", "judge"}, {"method", "independent-rubric-v1"}}},
                      {"contentHash", "h"}};
  const auto& columns = strata::model::export_columns();
  const auto values = strata::model::export_values(observation);
  REQUIRE(values.size() == columns.size());
  const auto value = [&](const std::string& name) {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name) return values[i];
    FAIL("no column " << name);
    return Json();
  };
  CHECK(value("taskId") == "t");
  CHECK(value("difficulty").is_null());
  CHECK(value("signal").is_null());
  CHECK(value("round").is_null());
  CHECK(value("cachedInputTokens") == 4.0);
  CHECK(value("costUsd") == 0.5);
  CHECK(value("evidenceCount") == 2.0);
  CHECK(value("result") == "pending");
  CHECK(value("resultSource") == "pending");
  CHECK(value("observationHash") == "h");
  CHECK(value("executionKey") == strata::model::execution_key(observation["task"]));
  CHECK(value("executionKey").get<std::string>().size() == 64);

  observation["adjudication"] = {{"status", "automated"}, {"actor", "judge"}, {"method", "independent-rubric-v1"},
                                 {"outcome", "success"}, {"reasonCodes", Json::array({"x", "y"})}};
  const auto decided = strata::model::export_values(observation);
  CHECK(decided[std::find(columns.begin(), columns.end(), "result") - columns.begin()] == "success");
  CHECK(decided[std::find(columns.begin(), columns.end(), "resultSource") - columns.begin()] == "independent");
  CHECK(decided[std::find(columns.begin(), columns.end(), "adjudicationReasonCodes") - columns.begin()] == "x;y");

  std::set<std::string> names;
  strata::model::collect_measurement_names(observation, names);
  CHECK(names == std::set<std::string>{"agentCostUsd", "cachedInputTokens", "z, odd"});
  const std::string header = strata::model::csv_header(names);
  CHECK(header.substr(header.size() - 2) == "\r\n");
  CHECK(header.find(",measurements.agentCostUsd,measurements.cachedInputTokens,\"measurements.z, odd\"\r\n") != std::string::npos);
  const std::string row = strata::model::csv_row(observation, names);
  CHECK(row.substr(row.size() - 10) == ",0.5,4,1\r\n");
  const Json line = Json::parse(strata::model::jsonl_row(observation));
  CHECK(line["measurements"]["z, odd"] == 1.0);
  CHECK(line["round"].is_null());
}
