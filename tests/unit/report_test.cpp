// strata report's data and rendering (app/results/study_report, report/): what a hostile ledger value
// becomes in HTML and Markdown, how numbers print, when the heat map switches to categories,
// and that the same data give the same bytes.
#include <catch2/catch.hpp>

#include <string>

#include "fixture.hpp"
#include "strata/app/results/study_report.hpp"
#include "strata/report/report_parts.hpp"
#include "strata/store/ledger_source.hpp"

using strata::model::Json;

namespace {

Json observation(const std::string& model, const std::string& scenario, const std::string& task, const Json& outcome,
                 const std::string& category = "discovery") {
  Json adjudication = outcome.is_null() ? Json{{"status", "pending"}, {"actor", "judge"}, {"method", "independent-rubric-v1"}}
                                        : Json{{"status", "automated"}, {"actor", "deterministic-rubric-v1"},
                                               {"method", "deterministic-rubric-v1"}, {"outcome", outcome}};
  return Json{{"runId", "run-1"},
              {"planHash", std::string(64, 'a')},
              {"task", {{"taskId", task}, {"repositoryId", "repo"}, {"category", category}, {"modelId", model}, {"scenarioId", scenario},
                        {"replicate", 0.0}, {"variantId", "v"}}},
              {"execution", {{"status", "completed"}, {"durationMs", 10.0}, {"inputTokens", 100.0}, {"outputTokens", 10.0}}},
              {"evidenceIds", Json::array()},
              {"adjudication", adjudication}};
}

Json report_of(const Json& observations, bool allow_missing_arms = false) {
  strata::store::LedgerSource ledger(Json{{"ledgerVersion", "v1"}, {"contentHash", std::string(64, 'b')}, {"observations", observations}});
  strata::app::ReportRequest request;
  request.metrics.ledger_path = "no-such-dir/ledger.json";  // no <ledger>.inputs: "not recorded"
  request.allow_missing_arms = allow_missing_arms;
  request.strata_version = "test";
  return strata::app::report_data(ledger, request);
}

}  // namespace

TEST_CASE("ids from the ledger are escaped in HTML, SVG and Markdown", "[report]") {
  const std::string hostile = "m<script>alert(1)</script>&\"|";
  Json observations = Json::array();
  for (const auto* scenario : {"repository-only", "deterministic-doc-bridge"})
    for (const auto* task : {"t1", "t2"}) observations.push_back(observation(hostile, scenario, task, "success"));
  const Json data = report_of(observations);
  const std::string html = strata::report::html_report(data);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("m&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;|") != std::string::npos);
  const auto markdown = strata::report::markdown_report(data, "study");
  CHECK(markdown.markdown.find("m<script>alert(1)</script>&\"\\|") != std::string::npos);  // a pipe cannot split a cell
  for (const auto& [name, svg] : markdown.svg_files) CHECK(svg.find("<script") == std::string::npos);
  CHECK(markdown.svg_files.size() == 5);
}

TEST_CASE("numbers print with at most the decimals asked, no trailing zeros", "[report]") {
  using strata::report::decimal;
  using strata::report::percent;
  CHECK(decimal(0.1 + 0.2, 4) == "0.3");
  CHECK(decimal(-0.0001, 2) == "0");
  CHECK(decimal(1200.0, 0) == "1200");
  CHECK(decimal(2.5, 0) == "2");  // printf rounds half to even
  CHECK(decimal(Json(nullptr), 2) == "–");
  CHECK(percent(0.253) == "25.3%");
  CHECK(percent(1.0, 0) == "100%");
}

TEST_CASE("the heat map has a row per task up to 60 tasks, per category beyond", "[report]") {
  const auto with_tasks = [](int tasks) {
    Json observations = Json::array();
    for (int i = 0; i < tasks; ++i)
      for (const auto* scenario : {"repository-only", "deterministic-doc-bridge"})
        observations.push_back(observation("m", scenario, "task-" + std::to_string(i), i % 2 ? "success" : "partial",
                                           i % 3 ? "discovery" : "documentation"));
    return report_of(observations)["heatMap"];
  };
  const Json sixty = with_tasks(60);
  CHECK(sixty["rowsAre"] == "task");
  CHECK(sixty["rows"].size() == 60);
  const Json more = with_tasks(61);
  CHECK(more["rowsAre"] == "category");
  CHECK(more["rows"].size() == 2);
  CHECK(more["tasks"] == 61);
  // documentation: tasks 0, 3, ..., 60 (21 tasks), success on the odd ones (10) in each arm.
  CHECK(more["rows"][1]["id"] == "documentation");
  CHECK(more["rows"][1]["cells"][0]["observations"] == 21);
  CHECK(more["rows"][1]["cells"][0]["success"] == 10);
}

TEST_CASE("an arm without observations is refused unless allowed; all pending is refused", "[report]") {
  Json observations = Json::array();
  observations.push_back(observation("a", "repository-only", "t1", "success"));
  observations.push_back(observation("a", "deterministic-doc-bridge", "t1", "success"));
  observations.push_back(observation("b", "repository-only", "t1", "success"));
  CHECK(strata::test::message_of([&] { report_of(observations); }).find("has no observations for arm b / deterministic-doc-bridge") !=
        std::string::npos);
  const Json allowed = report_of(observations, true);
  CHECK(allowed["missingArms"] == Json::array({Json{{"modelId", "b"}, {"scenarioId", "deterministic-doc-bridge"}}}));

  Json pending = Json::array({observation("a", "repository-only", "t1", nullptr), observation("a", "deterministic-doc-bridge", "t1", nullptr)});
  CHECK(strata::test::message_of([&] { report_of(pending); }).find("is pending: there is no result to report yet") != std::string::npos);
}

TEST_CASE("an arm whose results are all pending is drawn as such, and the same data give the same bytes", "[report]") {
  Json observations = Json::array();
  observations.push_back(observation("a", "repository-only", "t1", "success"));
  observations.push_back(observation("a", "deterministic-doc-bridge", "t1", nullptr));
  const Json data = report_of(observations);
  const std::string html = strata::report::html_report(data);
  CHECK(html.find(">all pending</text>") != std::string::npos);
  CHECK(html.find("– (all pending)") != std::string::npos);
  CHECK(html == strata::report::html_report(data));
}
