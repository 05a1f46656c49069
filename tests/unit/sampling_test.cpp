#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "fixture.hpp"
#include "strata/error.hpp"
#include "strata/model/artifact.hpp"
#include "strata/model/json_writer.hpp"
#include "strata/model/sampling.hpp"

using namespace strata::model;

using strata::test::fixture_suite;

namespace {


std::string cell_text(const Json& c) {
  return c["taskId"].get<std::string>() + "/" + c["repositoryId"].get<std::string>() + "/" +
         c["category"].get<std::string>() + "/" + c["scenarioId"].get<std::string>() + "/" +
         c["modelId"].get<std::string>() + "/" + std::to_string(c["replicate"].get<int>()) + "/" +
         c["variantId"].get<std::string>();
}

std::string error_of(const Json& sampling) {
  try {
    select_executions(fixture_suite(), sampling);
  } catch (const strata::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("spec 6 cases 12-14: the full matrix of the real suite", "[sampling]") {
  const auto matrix = full_matrix(fixture_suite());
  REQUIRE(matrix.size() == 288);
  CHECK(cell_text(matrix[0]) ==
        "consumer-02-documentation/consumer-02/documentation/deterministic-doc-bridge/low-cost-model/1/variant-b");
  CHECK(cell_text(matrix[1]) ==
        "consumer-01-architecture/consumer-01/architecture/registry-assisted/reference-model/0/variant-a");
  CHECK(matrix[2]["taskId"] == "consumer-03-implementation");
  CHECK(matrix[2]["scenarioId"] == "repository-only");
  CHECK(matrix[2]["modelId"] == "low-cost-model");
  CHECK(matrix[2]["variantId"] == "variant-a");
  // Cells are in the §1.5 member order.
  CHECK(compact_json(matrix[1]) ==
        R"({"taskId":"consumer-01-architecture","repositoryId":"consumer-01","category":"architecture","scenarioId":"registry-assisted","modelId":"reference-model","replicate":0,"variantId":"variant-a"})");
  CHECK(full_matrix(fixture_suite()) == matrix);
  std::map<std::string, std::map<std::string, int>> variants;
  for (const auto& cell : matrix) ++variants[cell["taskId"].get<std::string>()][cell["variantId"].get<std::string>()];
  CHECK(variants.size() == 24);
  for (const auto& [task, counts] : variants) {
    INFO(task);
    CHECK(counts.at("variant-a") == 6);
    CHECK(counts.at("variant-b") == 6);
  }
}

TEST_CASE("spec 6 case 15: balanced sample of 24", "[sampling]") {
  const Json sampling = {{"strategy", "balanced-task-strata"}, {"sampleSize", 24}};
  const auto sample = select_executions(fixture_suite(), sampling);
  REQUIRE(sample.size() == 24);
  for (std::size_t i = 0; i < 24; ++i) CHECK(sample[i]["taskId"] == fixture_suite()["tasks"][i]["id"]);
  std::map<std::string, int> strata;
  for (const auto& cell : sample) ++strata[cell["modelId"].get<std::string>() + "/" + cell["scenarioId"].get<std::string>()];
  CHECK(strata.size() == 6);
  for (const auto& [stratum, n] : strata) CHECK(n == 4);
  const char* first_six[] = {
      "consumer-01-discovery/consumer-01/discovery/repository-only/low-cost-model/0/variant-a",
      "consumer-01-architecture/consumer-01/architecture/repository-only/reference-model/0/variant-b",
      "consumer-01-documentation/consumer-01/documentation/deterministic-doc-bridge/low-cost-model/0/variant-a",
      "consumer-01-implementation/consumer-01/implementation/deterministic-doc-bridge/reference-model/0/variant-a",
      "consumer-02-discovery/consumer-02/discovery/registry-assisted/low-cost-model/0/variant-a",
      "consumer-02-architecture/consumer-02/architecture/registry-assisted/reference-model/0/variant-a"};
  for (int i = 0; i < 6; ++i) CHECK(cell_text(sample[static_cast<std::size_t>(i)]) == first_six[i]);
}

TEST_CASE("spec 6 cases 16-18: sample size errors", "[sampling]") {
  CHECK(error_of({{"strategy", "balanced-task-strata"}, {"sampleSize", 23}}) ==
        "Sample size must be divisible by the 6 model/scenario strata.");
  CHECK(error_of({{"strategy", "balanced-task-strata"}, {"sampleSize", 300}}) ==
        "Sample size must be an integer between 1 and 144.");
  CHECK(error_of({{"strategy", "balanced-task-strata"}, {"sampleSize", 48}}) ==
        "Unable to select a balanced execution for task 24.");
  CHECK(error_of({{"strategy", "pairwise-task-strata"}, {"sampleSize", 8}, {"scenarioIds", {"repository-only"}}}) ==
        "Pairwise sampling requires exactly two scenarios.");
}

TEST_CASE("spec 6 cases 19-20: pairwise samples", "[sampling]") {
  const Json pair = {"repository-only", "deterministic-doc-bridge"};
  const Json sampling96 = {{"strategy", "pairwise-task-strata"}, {"sampleSize", 96}, {"scenarioIds", pair}};
  const auto sample = select_executions(fixture_suite(), sampling96);
  REQUIRE(sample.size() == 96);
  std::map<std::string, std::set<std::string>> per_task;
  for (const auto& cell : sample) {
    CHECK(cell["replicate"] == 0);
    per_task[cell["taskId"].get<std::string>()].insert(cell["modelId"].get<std::string>() + "/" +
                                                      cell["scenarioId"].get<std::string>());
  }
  CHECK(per_task.size() == 24);
  for (const auto& [task, pairs] : per_task) CHECK(pairs.size() == 4);
  CHECK(cell_text(sample[0]).rfind("consumer-05-discovery/consumer-05/discovery/deterministic-doc-bridge/reference-model/0/variant-b", 0) == 0);

  const Json sampling16 = {{"strategy", "pairwise-task-strata"}, {"sampleSize", 16}, {"scenarioIds", pair}};
  std::set<std::string> chosen;
  for (const auto& cell : select_executions(fixture_suite(), sampling16)) chosen.insert(cell["taskId"].get<std::string>());
  CHECK(chosen == std::set<std::string>{"consumer-06-implementation", "consumer-02-implementation",
                                        "consumer-03-architecture", "consumer-03-documentation"});
}
