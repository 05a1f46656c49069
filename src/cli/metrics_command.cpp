// strata metrics <ledger> [--run-id ID]... [--protocol P] [--baseline-round R1 --current-round R2 |
// --baseline-run-id A --current-run-id B] [--allow-regressions] [--text|--json]
#include <cstdio>
#include <memory>

#include "command.hpp"
#include "selection_flags.hpp"
#include "strata/app/results/study_metrics.hpp"
#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/store/ledger_source.hpp"

namespace strata::cli {
namespace {

using model::Json;
using model::str;

struct MetricsOptions {
  std::string ledger, protocol;
  SelectionFlags selection;
  bool allow_regressions = false;
  OutputFormat format;
};

// A number for a line: "-" when absent, else at most 4 decimals.
std::string shown(const Json& value) {
  if (value.is_null()) return "-";
  const double v = value.get<double>();
  char text[64];
  std::snprintf(text, sizeof text, "%.4f", v);
  std::string out = text;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out;
}

// "9/16 (0.5625 [0.33, 0.77])": a count of a total, its rate and the rate's 95% interval.
std::string rate_text(const Json& count, const Json& total, const Json& rate, const Json& interval) {
  std::string text = number_text(count) + "/" + number_text(total);
  if (!rate.is_null()) text += " (" + shown(rate) + " [" + shown(interval[0]) + ", " + shown(interval[1]) + "])";
  return text;
}

// The verifier's lines of an arm (--verify): the verified and the claimed rate, the agreement.
void verified_lines(const Json& v, std::vector<std::string>& lines) {
  const Json& a = v["agreement"];
  lines.push_back("  verified: all checks passed " + rate_text(v["verifiedPassed"], v["verified"], v["verifiedRate"], v["verifiedInterval"]) +
                  " (" + number_text(v["notVerified"]) + " not verified); claimed " +
                  rate_text(v["claimedPassed"], v["claimed"], v["claimedRate"], v["claimedInterval"]) + "; claims true " +
                  rate_text(a["confirmed"], v["claimsVerified"], v["claimsTrueRate"], v["claimsTrueInterval"]));
  lines.push_back("  agreement: confirmed " + number_text(a["confirmed"]) + ", claimed but failed " + number_text(a["claimedButFailed"]) +
                  ", not claimed but passed " + number_text(a["notClaimedButPassed"]) + ", neither " +
                  number_text(a["notClaimedNotPassed"]) + ", no claim " + number_text(a["verifiedWithoutClaim"]));
}

std::vector<std::string> arm_lines(const Json& arms) {
  std::vector<std::string> lines;
  for (const auto& arm : arms) {
    const Json& result = arm["result"];
    const double pending = result.value("pending", 0.0);
    lines.push_back("Arm " + str(arm["modelId"]) + " / " + str(arm["scenarioId"]) + ": " + number_text(arm["executions"]) +
                    " executions, success rate " + shown(arm["successRate"]) + " (" + number_text(result.value("success", Json(0.0))) +
                    " of " + model::ecmascript_number(arm["executions"].get<double>() - pending) + " decided, " +
                    model::ecmascript_number(pending) + " pending)");
    lines.push_back("  tokens median " + shown(arm["totalTokens"]["median"]) + " (p90 " + shown(arm["totalTokens"]["p90"]) +
                    "), duration median " + shown(arm["durationMs"]["median"]) + " ms (p90 " + shown(arm["durationMs"]["p90"]) +
                    " ms), cost " + (arm["costUsd"].is_null() ? std::string("not priced") : "$" + shown(arm["costUsd"]["total"])) +
                    (arm["reportedCostUsd"].is_null() ? std::string() : " (the agent CLI reported $" + shown(arm["reportedCostUsd"]["total"]) + ")") +
                    ", evidence coverage " + shown(arm["evidence"]["coverage"]) + ", acceptance checks " +
                    number_text(arm["acceptanceChecks"]["passed"]) + "/" + number_text(arm["acceptanceChecks"]["total"]));
    if (arm.contains("verified")) verified_lines(arm["verified"], lines);
  }
  return lines;
}

// "+0.25 [-0.1, 0.6]" for an estimate and its 95% interval.
std::string with_interval(const Json& estimate, const Json& interval) {
  std::string text = (estimate.get<double>() >= 0 ? "+" : "") + shown(estimate);
  if (!interval.is_null()) text += " [" + shown(interval[0]) + ", " + shown(interval[1]) + "]";
  return text;
}

std::vector<std::string> paired_lines(const Json& paired) {
  std::vector<std::string> lines;
  for (const auto& pair : paired) {
    lines.push_back("Paired " + str(pair["modelId"]) + ": " + str(pair["baselineScenarioId"]) + " -> " +
                    str(pair["currentScenarioId"]) + " on " + number_text(pair["pairs"]) + " tasks");
    const Json& success = pair["success"];
    if (success.is_null()) {
      lines.push_back("  success: no decided pairs");
    } else {
      const Json& clustered = success["clustered"];
      lines.push_back("  success " + shown(success["baselineRate"]) + " -> " + shown(success["currentRate"]) + ", difference " +
                      with_interval(success["difference"], success["interval"]) + ", McNemar p " +
                      (success["mcnemarP"].is_null() ? std::string("- (no discordant pairs)")
                                                     : shown(success["mcnemarP"]) + " (adjusted " + shown(success["adjustedP"]) + ")") +
                      ", clustered by " + str(clustered["by"]) + " " +
                      (clustered["interval"].is_null() ? "- (" + str(clustered["note"]) + ")"
                                                       : "[" + shown(clustered["interval"][0]) + ", " + shown(clustered["interval"][1]) + "]"));
    }
    for (const char* measure : {"totalTokens", "costUsd", "durationMs"}) {
      const Json& values = pair[measure];
      if (values.is_null()) continue;
      lines.push_back(std::string("  ") + measure + " median " + shown(values["baselineMedian"]) + " -> " +
                      shown(values["currentMedian"]) + ", paired difference " +
                      with_interval(values["medianDifference"], values["interval"]) + ", Wilcoxon p " +
                      (values["wilcoxon"].is_null() ? "- (" + str(values["note"]) + ")"
                                                    : shown(values["wilcoxon"]["p"]) + " (adjusted " + shown(values["adjustedP"]) + ")"));
    }
  }
  return lines;
}

std::vector<std::string> report_lines(const Json& report) {
  std::vector<std::string> lines{"Observations: " + number_text(report["observations"])};
  std::string runs;
  for (const auto& id : report["runIds"]) runs += (runs.empty() ? "" : ", ") + str(id);
  lines.push_back("Runs: " + runs);
  lines.push_back("Findings (" + str(report["multiplicity"]["method"]) + "-adjusted over " +
                  number_text(report["multiplicity"]["tests"]) + " tests):");
  for (const auto& finding : report["findings"]) lines.push_back("  " + str(finding["sentence"]));
  for (auto& line : arm_lines(report["arms"])) lines.push_back(std::move(line));
  for (auto& line : paired_lines(report["paired"])) lines.push_back(std::move(line));
  if (!report.contains("comparison")) return lines;
  const Json& comparison = report["comparison"];
  const auto side = [](const Json& which) {
    return which.contains("round") ? "round " + str(which["round"]) : "run " + str(which["runId"]);
  };
  lines.push_back("Comparison: " + side(comparison["baseline"]) + " -> " + side(comparison["current"]));
  for (const auto& target : comparison["targets"]) {
    const Json& change = target["relativeChange"];
    std::string moved = change.is_null() ? "" : " (" + std::string(change.get<double>() >= 0 ? "+" : "") +
                                                  shown(Json(change.get<double>() * 100)) + "%)";
    lines.push_back("  " + str(target["metricId"]) + " " + str(target["direction"]) + " " + shown(target["threshold"]) + ", " +
                    str(target["modelId"]) + " / " + str(target["scenarioId"]) + ": " + shown(target["baseline"]) + " -> " +
                    shown(target["current"]) + moved + ": " + str(target["verdict"]));
  }
  lines.push_back("Regressions: " + number_text(comparison["regressions"]));
  return lines;
}

int metrics(const MetricsOptions& options) {
  app::MetricsRequest request = metrics_request(options.ledger, options.selection);
  if (!options.protocol.empty())
    request.targets = load_artifact(model::ArtifactKind::protocol, options.protocol)["stopping"]["targets"];
  const std::unique_ptr<store::LedgerSource> ledger = open_ledger(options.ledger);
  const Json report = app::metrics_report(*ledger, request);
  if (options.format.text) {
    print_lines(report_lines(report));
  } else {
    print_json(Json{{"ok", true}, {"report", report}});
  }
  const bool regressed = report.contains("comparison") && report["comparison"]["regressions"].get<double>() > 0;
  return regressed && !options.allow_regressions ? 1 : 0;
}

}  // namespace

void add_metrics_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<MetricsOptions>();
  auto* sub = app.add_subcommand("metrics", "Per-arm results of a ledger, and a baseline compared with a current round or run");
  sub->add_option("ledger", options->ledger, "The observation ledger (verified first)")->required();
  sub->add_option("--protocol", options->protocol, "Study protocol whose stopping.targets the comparison evaluates");
  add_selection_flags(*sub, options->selection);
  sub->add_flag("--allow-regressions", options->allow_regressions, "Exit 0 even when a target regressed");
  add_format_flags(*sub, options->format);
  sub->footer(
      "An arm is a model x scenario. Its success rate counts the adjudicated result (the independent\n"
      "adjudicator's when it judged, else the deterministic rubric's) over the decided executions; pending ones\n"
      "are counted apart. Tokens, cost and duration: total, median and p90 per execution (cost only when priced).\n"
      "A comparison evaluates the protocol's stopping targets (without --protocol: the success rate must not fall)\n"
      "per arm as met, missed, regressed or not-measured (docs/METRICS.md).\n"
      "Paired comparisons of each model's scenarios come with intervals clustered by repository (--cluster), p-values\n"
      "adjusted over every test of the report (--multiplicity), and findings: one plain sentence per model, comparison\n"
      "and measure (success, tokens, cost), saying how much changed, or what difference the sample could have detected.\n"
      "Exit 0; 1 when a target regressed (unless --allow-regressions); 2 on invalid input.");
  sub->callback([options, &action] { action = [options] { return metrics(*options); }; });
}

}  // namespace strata::cli
