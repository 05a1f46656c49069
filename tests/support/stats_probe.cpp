// Test support: model/statistics on the cases given as JSON on stdin, results as JSON on stdout,
// so tests/cli/statistics_test.sh can check them against an independent computation in Python.
// Input: [{"kind": "wilson", "successes": k, "n": n} | {"kind": "mcnemar", "b": b, "c": c, "n": n}
//         | {"kind": "wilcoxon", "differences": [...]}]
#include <iostream>
#include <iterator>
#include <string>

#include "strata/model/json.hpp"
#include "strata/model/json_access.hpp"
#include "strata/model/statistics.hpp"

using strata::model::Json;

namespace {

std::size_t count(const Json& c, const char* name) { return static_cast<std::size_t>(c[name].get<double>()); }

Json interval(const strata::model::Interval& i) { return Json::array({i.low, i.high}); }

Json evaluate(const Json& c) {
  const std::string kind = c["kind"].get<std::string>();
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
