#include "strata/model/results/claim_findings.hpp"

#include <string>

#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/results/decimal_text.hpp"

namespace strata::model {
namespace {

std::string percent(const Json& fraction) { return decimal_text(fraction.get<double>() * 100, 1) + "%"; }
std::string count(const Json& value) { return ecmascript_number(value.get<double>()); }

}  // namespace

Json claim_findings(const Json& arms) {
  Json out = Json::array();
  for (const auto& arm : arms) {
    if (!arm.contains("verified")) continue;
    const Json& v = arm["verified"];
    const Json& agreement = v["agreement"];
    if (agreement["claimedButFailed"].get<double>() == 0) continue;  // no claim found false: nothing to say first
    const Json& interval = v["claimsTrueInterval"];
    const std::string arm_name = str(arm["modelId"]) + " / " + str(arm["scenarioId"]);
    const std::string sentence = arm_name + ": claims confirmed " + count(agreement["confirmed"]) + " of " +
                                 count(v["claimsVerified"]) + " (" + percent(v["claimsTrueRate"]) + ", 95% CI " +
                                 percent(interval[0]) + " to " + percent(interval[1]) + "): " +
                                 count(agreement["claimedButFailed"]) +
                                 " claimed success where Strata's verifier found a check failing; this arm's "
                                 "self-reported outcomes are not evidence.";
    out.push_back({{"modelId", arm["modelId"]},
                   {"scenarioId", arm["scenarioId"]},
                   {"measure", "claims"},
                   {"verdict", "unreliable"},
                   {"estimate", v["claimsTrueRate"]},
                   {"interval", interval},
                   {"confirmed", agreement["confirmed"]},
                   {"claimsVerified", v["claimsVerified"]},
                   {"sentence", sentence}});
  }
  return out;
}

}  // namespace strata::model
