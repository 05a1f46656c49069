#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "fixture.hpp"
#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/sampling.hpp"

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

namespace {

// The fixture suite grown to 128 tasks (the most a suite may hold) with one replicate: task i
// is a copy of fixture task i mod 24 under a new id (its variant group follows it).
Json suite_of_128_tasks() {
  Json suite = fixture_suite();
  const Json base = suite["tasks"];
  Json tasks = Json::array();
  for (std::size_t i = 0; i < 128; ++i) {
    Json task = base[i % base.size()];
    const std::string id = "task-" + std::to_string(1000 + i);
    task["id"] = id;
    task["variantGroup"] = id;
    tasks.push_back(task);
  }
  suite["tasks"] = tasks;
  suite["replicatesPerTask"] = 1;
  return suite;
}

std::string selection_error(const Json& suite, const Json& sampling) {
  try {
    select_executions(suite, sampling);
  } catch (const strata::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("spec 3.1 step 4: a sample size equal to the whole matrix runs every cell in key order", "[sampling]") {
  const Json suite = suite_of_128_tasks();
  const auto matrix = full_matrix(suite);
  REQUIRE(matrix.size() == 768);  // 128 tasks x 2 models x 3 scenarios

  SECTION("balanced-task-strata 768: every cell exactly once, in the matrix's order") {
    const auto selection = select_executions(suite, {{"strategy", "balanced-task-strata"}, {"sampleSize", 768}});
    REQUIRE(selection.size() == 768);
    std::set<std::string> cells;
    for (std::size_t i = 0; i < selection.size(); ++i) {
      CHECK(selection[i] == matrix[i]);
      cells.insert(cell_text(selection[i]));
    }
    CHECK(cells.size() == 768);
    std::map<std::string, int> per_task;
    for (const auto& cell : selection) ++per_task[cell["taskId"].get<std::string>()];
    CHECK(per_task.size() == 128);
    for (const auto& [task, count] : per_task) CHECK(count == 6);
  }
  SECTION("768.0 is the same integer") {
    CHECK(select_executions(suite, {{"strategy", "balanced-task-strata"}, {"sampleSize", 768.0}}).size() == 768);
  }
  SECTION("no sample size: the whole matrix too") {
    CHECK(select_executions(suite, {{"strategy", "balanced-task-strata"}}) == matrix);
  }
  SECTION("one below and one above keep their paths and messages") {
    CHECK(selection_error(suite, {{"strategy", "balanced-task-strata"}, {"sampleSize", 767}}) ==
          "Sample size must be divisible by the 6 model/scenario strata.");
    CHECK(selection_error(suite, {{"strategy", "balanced-task-strata"}, {"sampleSize", 769}}) ==
          "Sample size must be an integer between 1 and 768.");
    CHECK(selection_error(suite, {{"strategy", "balanced-task-strata"}, {"sampleSize", 762}}) ==
          "Unable to select a balanced execution for task 128.");
    CHECK(selection_error(suite, {{"strategy", "balanced-task-strata"}, {"sampleSize", 768.5}}) ==
          "Sample size must be an integer between 1 and 768.");
  }
  SECTION("pairwise: the whole matrix of its two scenarios is the same as its own path") {
    const Json pair = {"repository-only", "deterministic-doc-bridge"};
    const auto whole = select_executions(suite, {{"strategy", "pairwise-task-strata"}, {"sampleSize", 512}, {"scenarioIds", pair}});
    REQUIRE(whole.size() == 512);
    for (const auto& cell : whole) CHECK(cell["scenarioId"] != "registry-assisted");
    CHECK(selection_error(suite, {{"strategy", "pairwise-task-strata"}, {"sampleSize", 513}, {"scenarioIds", pair}}) ==
          "Sample size must be an integer between 1 and 512.");
    CHECK(select_executions(suite, {{"strategy", "pairwise-task-strata"}, {"sampleSize", 508}, {"scenarioIds", pair}}).size() == 508);
  }
}

TEST_CASE("spec 3.1 step 4: the real suite's 288 cells (two replicates) when asked for exactly 288", "[sampling]") {
  // The plan check refuses 288 (it ignores replicates); the selector itself follows step 4.
  const auto selection = select_executions(fixture_suite(), {{"strategy", "balanced-task-strata"}, {"sampleSize", 288}});
  CHECK(selection == full_matrix(fixture_suite()));
  CHECK(error_of({{"strategy", "balanced-task-strata"}, {"sampleSize", 287}}) ==
        "Sample size must be an integer between 1 and 144.");
}
