#include "strata/model/study/assisted_arm.hpp"

#include "strata/model/study/provider_request.hpp"

namespace strata::model {
namespace {

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

AssistedArm unavailable(std::string reason) {
  AssistedArm arm;
  arm.reason = std::move(reason);
  return arm;
}

}  // namespace

AssistedArm assess_assisted_arm(const Json& plan, const Json& suite, const Json& provider_config) {
  const Json* scenario = nullptr;
  for (const auto& s : plan["scenarios"])
    if (s["id"] == "registry-assisted") scenario = &s;
  if (scenario == nullptr) return unavailable("The run plan declares no registry-assisted scenario.");
  if (!scenario->contains("agentId") || !scenario->contains("agentVersion"))
    return unavailable(
        "The registry-assisted scenario names no agent identity and version, so nothing it produced could be "
        "attributed.");
  std::vector<std::string> unmapped;
  for (const auto& model : suite["modelIds"])
    if (find_provider(provider_config, model.get<std::string>(), "registry-assisted") == nullptr)
      unmapped.push_back(model.get<std::string>());
  if (!unmapped.empty())
    return unavailable("No provider CLI is configured for the registry-assisted scenario and model(s) " +
                       joined(unmapped, ", ") + ".");
  AssistedArm arm;
  arm.ready = true;
  for (const char* name : {"promptVersion", "agentBudget"})
    if (!scenario->contains(name)) arm.undeclared.emplace_back(name);
  if (!arm.undeclared.empty())
    arm.reason = "The registry-assisted scenario declares no " + joined(arm.undeclared, " or ") +
                 "; the arm runs, but it cannot be " + (scenario->contains("promptVersion") ? "costed" : "reproduced") +
                 " from this ledger alone.";
  return arm;
}

Json AssistedArm::to_json() const {
  Json out = {{"status", ready ? "ready" : "unavailable"}};
  if (!reason.empty()) out["reason"] = reason;
  if (!undeclared.empty()) out["undeclared"] = undeclared;
  out["recorded"] = static_cast<double>(recorded);
  return out;
}

std::vector<std::string> AssistedArm::text_lines() const {
  std::string line = std::string("Assisted arm: ") + (ready ? "ready" : "unavailable");
  if (recorded > 0) line += " (" + std::to_string(recorded) + " execution(s) recorded as unavailable)";
  if (!undeclared.empty()) line += " (undeclared: " + joined(undeclared, ", ") + ")";
  std::vector<std::string> lines{line};
  if (!reason.empty()) lines.push_back("  " + reason);
  return lines;
}

}  // namespace strata::model
