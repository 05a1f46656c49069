// The report's tables (provenance, arms, paired comparison, round comparison), its title and
// notes on method, and how it prints numbers.
#include <algorithm>
#include <cmath>

#include "plot_layout.hpp"
#include "plots.hpp"
#include "strata/model/results/decimal_text.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/report/report_parts.hpp"

namespace strata::report {
namespace {

using model::Json;
using model::str;

std::string or_not_recorded(const Json& value) { return value.is_null() ? "not recorded" : str(value); }

std::string counts_text(const Json& counts) {
  std::string text;
  for (const auto& [name, count] : counts.items()) text += (text.empty() ? "" : ", ") + name + " " + decimal(count, 0);
  return text.empty() ? "–" : text;
}

std::string with_p90(const Json& distribution, int decimals) {
  if (distribution.is_null() || distribution["median"].is_null()) return "–";
  return decimal(distribution["median"], decimals) + " (" + decimal(distribution["p90"], decimals) + ")";
}

Table provenance_table(const Json& header) {
  Table table{"Provenance", {"Item", "Value"}, {}};
  table.rows.push_back({"Ledger", str(header["ledger"])});
  table.rows.push_back({"Ledger hash", str(header["ledgerHash"])});
  table.rows.push_back({"Ledger version", str(header["ledgerVersion"])});
  table.rows.push_back({"Strata version", str(header["strataVersion"])});
  for (const char* kind : {"suite", "protocol"}) {
    const Json& artifact = header[kind];
    const std::string name = std::string(kind) == "suite" ? "Task suite" : "Protocol";
    if (artifact.is_null()) {
      table.rows.push_back({name, std::string("not given (--") + kind + ")"});
      continue;
    }
    table.rows.push_back({name, str(artifact["title"]) + " (" + str(artifact["path"]) + ")"});
    table.rows.push_back({name + " hash", str(artifact["hash"])});
  }
  return table;
}

Table runs_table(const Json& header) {
  Table table{"Runs and the inputs each was started with (from the ledger's .inputs record)",
              {"Run", "Plan hash", "Task suite hash", "Provider config hash", "Repository config hash"},
              {}};
  for (const auto& run : header["runs"]) {
    std::string plans;
    for (const auto& hash : run["planHashes"]) plans += (plans.empty() ? "" : " ") + str(hash);
    table.rows.push_back({str(run["runId"]), plans, or_not_recorded(run["taskSuiteHash"]), or_not_recorded(run["providerConfigHash"]),
                          or_not_recorded(run["repositoryConfigHash"])});
  }
  return table;
}

Table adjudicators_table(const Json& header) {
  Table table{"Adjudicators", {"Actor", "Method", "Configuration hash", "Observations"}, {}};
  for (const auto& judge : header["adjudicators"])
    table.rows.push_back({str(judge["actor"]), str(judge["method"]),
                          judge["configurationHash"].is_null() ? "– (none: the deterministic rubric)" : str(judge["configurationHash"]),
                          decimal(judge["observations"], 0)});
  return table;
}

// "75% (30.1% – 95.4%)" of a rate and its interval, or `none`.
std::string rate_with_interval(const Json& rate, const Json& interval, const char* none) {
  return rate.is_null() ? none : percent(rate.get<double>()) + " (" + percent_interval(interval) + ")";
}

Table arms_table(const Json& arms) {
  Table table{"Arms (model × scenario)",
              {"Arm", "Executions", "Status", "Result", "Success rate (95% interval)", "Tokens: median (P90)", "Cost (USD)",
               "Duration ms: median (P90)", "Evidence coverage", "Acceptance checks", "Error codes"},
              {}};
  // A ledger of strata run --verify: the verified rate and the claimed rate beside the success rate.
  const bool verified = !arms.empty() && arms[0].contains("verified");
  // The agent CLIs' own cost figures, apart from the configured pricing's (issue 36), when any arm has them.
  const bool reported = std::any_of(arms.begin(), arms.end(), [](const Json& arm) { return !arm.value("reportedCostUsd", Json()).is_null(); });
  if (reported) table.columns.insert(table.columns.begin() + 7, "Cost reported by the agent CLI (USD)");
  if (verified)
    table.columns.insert(table.columns.begin() + 5, {"Verified: all checks passed (95% interval)", "Claimed success (95% interval)"});
  for (const auto& arm : arms) {
    std::vector<std::string> row{arm_label(arm), decimal(arm["executions"], 0), counts_text(arm["status"]), counts_text(arm["result"]),
                                 rate_with_interval(arm["successRate"], arm["successInterval"], "– (all pending)"),
                                 with_p90(arm["totalTokens"], 1),
                                 arm["costUsd"].is_null() ? "not priced" : decimal(arm["costUsd"]["total"], 6),
                                 with_p90(arm["durationMs"], 0),
                                 arm["evidence"]["coverage"].is_null() ? "–" : percent(arm["evidence"]["coverage"].get<double>()),
                                 decimal(arm["acceptanceChecks"]["passed"], 0) + " / " + decimal(arm["acceptanceChecks"]["total"], 0),
                                 counts_text(arm["errorCodes"])};
    if (reported)
      row.insert(row.begin() + 7, arm.value("reportedCostUsd", Json()).is_null() ? "none reported" : decimal(arm["reportedCostUsd"]["total"], 6));
    if (verified) {
      const Json& v = arm["verified"];
      row.insert(row.begin() + 5, {rate_with_interval(v["verifiedRate"], v["verifiedInterval"], "– (none verified)"),
                                   rate_with_interval(v["claimedRate"], v["claimedInterval"], "– (no claim)")});
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

// The verifier against the claims (strata run --verify), per arm: how many executions fall in
// each cell of the agreement, and the share of claims that were true.
Table agreement_table(const Json& arms) {
  Table table{"Claims against Strata's verifier (strata run --verify)",
              {"Arm", "Verified", "Confirmed (claimed, passed)", "Claimed but failed", "Not claimed but passed", "Neither",
               "No claim", "Not verified", "Claims true (95% interval)"},
              {}};
  for (const auto& arm : arms) {
    const Json& v = arm["verified"];
    const Json& a = v["agreement"];
    const Json& rate = v["claimsTrueRate"];
    table.rows.push_back({arm_label(arm), decimal(v["verified"], 0), decimal(a["confirmed"], 0), decimal(a["claimedButFailed"], 0),
                          decimal(a["notClaimedButPassed"], 0), decimal(a["notClaimedNotPassed"], 0),
                          decimal(a["verifiedWithoutClaim"], 0), decimal(v["notVerified"], 0),
                          rate.is_null() ? "– (no verified claim)"
                                         : percent(rate.get<double>()) + " (" + decimal(a["confirmed"], 0) + " of " +
                                               decimal(v["claimsVerified"], 0) + ", " + percent_interval(v["claimsTrueInterval"]) + ")"});
  }
  return table;
}

// A clustered interval (of fractions as points when `scale` is 100), or why there is none.
std::string clustered_cell(const Json& clustered, int decimals, double scale, const std::string& unit) {
  if (clustered.is_null()) return "–";
  if (clustered["interval"].is_null()) return "– (" + str(clustered["note"]) + ")";
  return interval_text(clustered["interval"], decimals, scale) + unit + " (" + decimal(clustered["clusters"], 0) + " " +
         str(clustered["by"]) + " clusters)";
}

std::string adjusted_cell(const Json& holder) {
  return holder.contains("adjustedP") && !holder["adjustedP"].is_null() ? decimal(holder["adjustedP"], 4) : "–";
}

Table paired_table(const Json& paired) {
  Table table{"Paired comparison (same model, same tasks, two scenarios)",
              {"Model: baseline → current", "Measure", "Pairs", "Baseline", "Current", "Difference", "95% interval",
               "Clustered 95% interval", "Test", "p", "Adjusted p"},
              {}};
  for (const auto& pair : paired) {
    const std::string label = str(pair["modelId"]) + ": " + str(pair["baselineScenarioId"]) + " → " + str(pair["currentScenarioId"]);
    const Json& success = pair["success"];
    if (success.is_null()) {
      table.rows.push_back({label, "success rate", decimal(pair["pairs"], 0), "–", "–", "– (no decided pairs)", "–", "–", "–", "–", "–"});
    } else {
      table.rows.push_back({label, "success rate", decimal(success["pairs"], 0), percent(success["baselineRate"].get<double>()),
                            percent(success["currentRate"].get<double>()),
                            decimal(success["difference"].get<double>() * 100, 1) + " points",
                            interval_text(success["interval"], 1, 100) + " points", clustered_cell(success["clustered"], 1, 100, " points"),
                            "exact McNemar", success["mcnemarP"].is_null() ? "– (no discordant pairs)" : decimal(success["mcnemarP"], 4),
                            adjusted_cell(success)});
    }
    for (const auto& [measure, name, decimals] : {std::tuple{"totalTokens", "tokens per execution", 1},
                                                  std::tuple{"costUsd", "cost per execution (USD)", 6},
                                                  std::tuple{"durationMs", "duration (ms)", 0}}) {
      const Json& values = pair[measure];
      if (values.is_null()) continue;
      table.rows.push_back({label, std::string(name) + ", median", decimal(values["pairs"], 0), decimal(values["baselineMedian"], decimals),
                            decimal(values["currentMedian"], decimals), decimal(values["medianDifference"], decimals),
                            interval_text(values["interval"], decimals), "–", "Wilcoxon signed-rank",
                            values["wilcoxon"].is_null() ? "– (" + str(values["note"]) + ")" : decimal(values["wilcoxon"]["p"], 4),
                            adjusted_cell(values)});
      const Json& ratio = values["meanRatio"];
      if (ratio.is_null()) continue;
      table.rows.push_back({label, std::string(name) + ", ratio of means", decimal(values["pairs"], 0), "", "",
                            decimal(ratio["ratio"], 3) + "×", interval_text(ratio["interval"], 3),
                            clustered_cell(ratio["clustered"], 3, 1, ""), "–", "–", "–"});
    }
  }
  return table;
}

Table comparison_table(const Json& comparison) {
  const auto side = [](const Json& which) {
    return which.contains("round") ? "round " + str(which["round"]) : "run " + str(which["runId"]);
  };
  Table table{"Targets: " + side(comparison["baseline"]) + " → " + side(comparison["current"]),
              {"Metric", "Direction", "Threshold", "Arm", "Baseline", "Current", "Relative change", "Verdict"},
              {}};
  for (const auto& target : comparison["targets"]) {
    const Json& change = target["relativeChange"];
    table.rows.push_back({str(target["metricId"]), str(target["direction"]), decimal(target["threshold"], 4),
                          str(target["modelId"]) + " / " + str(target["scenarioId"]), decimal(target["baseline"], 4),
                          decimal(target["current"], 4), change.is_null() ? "–" : percent(change.get<double>()),
                          str(target["verdict"])});
  }
  return table;
}

std::string multiplicity_text(const Json& multiplicity) {
  const std::string method = str(multiplicity["method"]);
  const std::string name = method == "holm" ? "Holm–Bonferroni" : method == "bh" ? "Benjamini–Hochberg" : "none (raw p-values)";
  return name + " over " + decimal(multiplicity["tests"], 0) + " tests, the family being " + str(multiplicity["family"]);
}

}  // namespace

std::string decimal(double value, int decimals) { return std::isfinite(value) ? model::decimal_text(value, decimals) : "–"; }

std::string decimal(const Json& value, int decimals) { return value.is_null() ? "–" : decimal(value.get<double>(), decimals); }

std::string percent(double fraction, int decimals) { return decimal(fraction * 100, decimals) + "%"; }

std::string percent_interval(const Json& interval) {
  if (interval.is_null()) return "–";
  return percent(interval[0].get<double>()) + " – " + percent(interval[1].get<double>());
}

std::string interval_text(const Json& interval, int decimals, double scale) {
  if (interval.is_null()) return "–";
  return decimal(interval[0].get<double>() * scale, decimals) + " to " + decimal(interval[1].get<double>() * scale, decimals);
}

std::string report_title(const Json& data) {
  const Json& suite = data["header"]["suite"];
  return "Study report: " + (suite.is_null() ? str(data["header"]["ledger"]) : str(suite["title"]));
}

ReportTables report_tables(const Json& data) {
  const Json& metrics = data["metrics"];
  ReportTables tables;
  tables.provenance = {provenance_table(data["header"]), runs_table(data["header"]), adjudicators_table(data["header"])};
  tables.arms = {arms_table(metrics["arms"])};
  if (!metrics["arms"].empty() && metrics["arms"][0].contains("verified")) tables.arms.push_back(agreement_table(metrics["arms"]));
  if (!data["missingArms"].empty()) {
    Table missing{"Arms with no observation (reported with --allow-missing-arms)", {"Model", "Scenario"}, {}};
    for (const auto& arm : data["missingArms"]) missing.rows.push_back({str(arm["modelId"]), str(arm["scenarioId"])});
    tables.arms.push_back(std::move(missing));
  }
  tables.comparisons = {paired_table(metrics["paired"])};
  if (metrics.contains("comparison")) tables.comparisons.push_back(comparison_table(metrics["comparison"]));
  return tables;
}

std::vector<Plot> report_plots(const Json& data) {
  const Json& metrics = data["metrics"];
  std::vector<Plot> plots{success_plot(metrics["arms"]), tokens_plot(metrics["arms"]), cost_plot(metrics["arms"]),
                          forest_plot(metrics["paired"]), heat_map_plot(data["heatMap"])};
  // A ledger of strata run --verify: claimed against verified, right after the success rates.
  if (!metrics["arms"].empty() && metrics["arms"][0].contains("verified")) plots.insert(plots.begin() + 1, claims_plot(metrics["arms"]));
  return plots;
}

Findings report_findings(const Json& data) {
  const Json& metrics = data["metrics"];
  Findings findings;
  for (const auto& finding : metrics["findings"]) findings.items.push_back(finding);
  findings.adjustment = "95% intervals; clustered ones by " + str(metrics["clustering"]["by"]) + ". Adjusted p-values: " +
                        multiplicity_text(metrics["multiplicity"]) + ".";
  return findings;
}

std::vector<std::string> method_notes(const Json& data) {
  std::vector<std::string> notes{
      "An arm is a model × scenario. Its result is the independent adjudicator's when it judged, else the deterministic "
      "rubric's; pending executions are counted apart and left out of every rate. The success rate's 95% interval is "
      "Wilson's score interval.",
      "The paired comparison pairs the two scenarios of a model on the same task (task, repository, replicate). The "
      "difference in success rate has Agresti and Min's 95% interval and the exact McNemar test on the discordant pairs. "
      "Tokens, cost and duration: the Hodges–Lehmann median difference with its 95% interval and the Wilcoxon signed-rank "
      "test; with fewer than 6 non-zero differences no interval or p-value is given. Tokens and cost also have the ratio "
      "of their means with a 95% interval on the log scale.",
      "Clustered intervals treat the pairs of one " + str(data["metrics"]["clustering"]["by"]) +
          " as related (cluster-robust variance, Student's t on clusters − 1 degrees of freedom); with fewer than " +
          decimal(data["metrics"]["clustering"]["minimumClusters"], 0) +
          " clusters none is given. When the plain interval excludes 0 and the clustered one does not, the effect is not "
          "consistent across clusters.",
      "Adjusted p-values: " + multiplicity_text(data["metrics"]["multiplicity"]) +
          ". A finding says a measure changed when its adjusted p is below 0.05; otherwise it says what difference in "
          "success the sample could have detected (exact McNemar power 80% at the observed share of discordant pairs).",
      "Tokens per execution are input plus output tokens as each provider reported them. Cost (measurements.agentCostUsd) "
      "is the provider entry's configured pricing applied to those tokens, or, for a provider without pricing, the figure "
      "it reported under that name; never estimated. An agent CLI's own figure (measurements.agentReportedCostUsd) is a "
      "column of its own."};
  if (data["metrics"].contains("comparison"))
    notes.push_back("Targets compare the baseline with the current " +
                    std::string(data["metrics"]["comparison"]["baseline"].contains("round") ? "round" : "run") +
                    " per arm, with the semantics of strata metrics (docs/METRICS.md).");
  return notes;
}

}  // namespace strata::report
