// Test support: model/results/statistics, model/results/mcnemar_power, model/results/cluster_robust and
// model/results/multiplicity on the cases given as JSON on stdin, results as JSON on stdout, so
// tests/cli/statistics_test.sh and tests/cli/power_statistics_test.sh can check them against an
// independent computation in Python.
// Input: [{"kind": "wilson", "successes": k, "n": n} | {"kind": "mcnemar", "b": b, "c": c, "n": n}
//         | {"kind": "wilcoxon", "differences": [...]}
//         | {"kind": "power", "pairs": n, "effect": e, "discordance": d, "alpha": a}
//         | {"kind": "mde", "pairs": n, "discordance": d, "alpha": a, "power": p}
//         | {"kind": "pairs-needed", "effect": e, "discordance": d, "alpha": a, "power": p}
//         | {"kind": "clustered-mean", "values": [...], "clusters": [names]}
//         | {"kind": "ratio", "baseline": [...], "current": [...], "clusters": [names]}
//         | {"kind": "adjust", "p": [...], "method": "holm" | "bh" | "none" | other}
//         | {"kind": "agreement", "observations": [{"measurements": {...}}, ...]}]
// Output, one per case: the power ({"power"}), the detectable effect ({"effect"}, null for none),
// the pairs needed ({"pairs"}, null for none), a clustered estimate ({"estimate", "interval",
// "standard_error", "clusters", "design_effect"}, or null), the adjusted p-values ({"adjusted"},
// null for an unknown method), the verified agreement (model/results/verified_agreement's JSON).
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "strata/model/results/cluster_robust.hpp"
#include "strata/model/json/json.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/results/mcnemar_power.hpp"
#include "strata/model/results/multiplicity.hpp"
#include "strata/model/results/statistics.hpp"
#include "strata/model/results/verified_agreement.hpp"

using strata::model::Json;

namespace {

std::size_t count(const Json& c, const char* name) { return static_cast<std::size_t>(c[name].get<double>()); }

Json interval(const strata::model::Interval& i) { return Json::array({i.low, i.high}); }

Json clustered(const std::optional<strata::model::ClusteredEstimate>& e) {
  if (!e) return nullptr;
  return {{"estimate", e->estimate},
          {"interval", interval(e->interval)},
          {"standard_error", e->standard_error},
          {"clusters", static_cast<double>(e->clusters)},
          {"design_effect", e->design_effect}};
}

std::vector<std::string> cluster_names(const Json& c) { return c["clusters"].get<std::vector<std::string>>(); }

Json evaluate(const Json& c) {
  const std::string kind = c["kind"].get<std::string>();
  if (kind == "power")
    return {{"power", strata::model::mcnemar_power(count(c, "pairs"), c["effect"].get<double>(), c["discordance"].get<double>(),
                                                   c["alpha"].get<double>())}};
  if (kind == "mde")
    return {{"effect", strata::model::number_or_null(strata::model::mcnemar_minimum_detectable_effect(
                           count(c, "pairs"), c["discordance"].get<double>(), c["alpha"].get<double>(), c["power"].get<double>()))}};
  if (kind == "pairs-needed") {
    const auto pairs = strata::model::mcnemar_pairs_needed(c["effect"].get<double>(), c["discordance"].get<double>(),
                                                           c["alpha"].get<double>(), c["power"].get<double>());
    return {{"pairs", pairs ? Json(static_cast<double>(*pairs)) : Json(nullptr)}};
  }
  if (kind == "clustered-mean") return clustered(strata::model::clustered_mean(c["values"].get<std::vector<double>>(), cluster_names(c)));
  if (kind == "ratio")
    return clustered(strata::model::ratio_of_means(c["baseline"].get<std::vector<double>>(), c["current"].get<std::vector<double>>(),
                                                   cluster_names(c)));
  if (kind == "adjust") {
    const auto method = strata::model::parse_multiplicity(c["method"].get<std::string>());
    if (!method) return {{"adjusted", nullptr}};
    return {{"adjusted", strata::model::adjust_p_values(c["p"].get<std::vector<double>>(), *method)}};
  }
  if (kind == "agreement") {
    strata::model::VerifiedAgreement agreement;
    for (const auto& observation : c["observations"]) agreement.add(observation);
    return agreement.to_json();
  }
  if (kind == "wilson") return {{"interval", interval(strata::model::wilson_interval(count(c, "successes"), count(c, "n")))}};
  if (kind == "mcnemar")
    return {{"p", strata::model::number_or_null(strata::model::mcnemar_exact_p(count(c, "b"), count(c, "c")))},
            {"interval", interval(strata::model::paired_proportion_difference_interval(count(c, "b"), count(c, "c"), count(c, "n")))}};
  const auto differences = c["differences"].get<std::vector<double>>();
  Json out = Json::object();
  if (const auto test = strata::model::wilcoxon_signed_rank(differences))
    out["test"] = {{"statistic", test->statistic}, {"p", test->p_value}, {"exact", test->exact}, {"pairs", static_cast<double>(test->pairs)}};
  else
    out["test"] = nullptr;
  if (const auto shift = strata::model::hodges_lehmann(differences))
    out["shift"] = {{"estimate", shift->estimate}, {"interval", interval(shift->interval)}};
  else
    out["shift"] = nullptr;
  return out;
}

}  // namespace

int main() {
  const Json cases = Json::parse(std::string(std::istreambuf_iterator<char>(std::cin), {}));
  Json results = Json::array();
  for (const auto& c : cases) results.push_back(evaluate(c));
  std::cout << results.dump() << "\n";
  return 0;
}
