#pragma once
// Assisted-arm readiness (spec §3.11): can the registry-assisted scenario run, and can
// what it produces be attributed, reproduced and costed from the ledger alone?
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"

namespace strata::model {

struct AssistedArm {
  bool ready = false;
  std::string reason;                   // empty when there is nothing to say
  std::vector<std::string> undeclared;  // promptVersion, agentBudget (ready arms only)
  int recorded = 0;                     // executions recorded as unavailable by a run

  Json to_json() const;
  // "Assisted arm: ..." plus, when there is a reason, "  <reason>".
  std::vector<std::string> text_lines() const;
};

AssistedArm assess_assisted_arm(const Json& plan, const Json& suite, const Json& provider_config);

}  // namespace strata::model
