#include "strata/model/study/provider_request.hpp"

namespace strata::model {

const std::string_view kProviderResponseContract =
    "Return one JSON object matching the output schema. Required keys: taskOutcome, evidenceQuality, safetyOutcome, "
    "evidenceIds, clarificationRequests, reworkCount, and measurements. Each measurement is "
    "{name:string,value:number>=0}. Run every available acceptance check and report observed acceptanceChecksPassed, "
    "acceptanceChecksTotal, and acceptanceChecksExecuted; include firstEvidenceLatencyMs only when observed. Use "
    "canonical names when observed: tokensToFirstEvidence (tokens consumed before correct grounded evidence was in "
    "hand), registryAgentInputTokens, registryAgentOutputTokens, registryAgentCostUsd, registryAgentRuns (the "
    "enrichment agent of the assisted arm, reported apart from your own cost), searchHitRate, acceptanceChecksPassed, "
    "acceptanceChecksTotal, acceptanceChecksExecuted, entrypointEvidenceCount, ownershipEvidenceCount, "
    "architectureRelationCount, documentationClaimEvidenceCount, sourceComparisonEvidenceCount, "
    "verificationEvidenceCount, errorRate, documentationFindingCount, documentationExampleRate, "
    "documentationFreshnessRate, documentationCorrectnessRate, documentationCompletenessRate, "
    "documentationClarityRate, documentationMaintainabilityRate, timeToFirstEvidenceMs, analysisCostUsd, and "
    "agentCostUsd. Omit unknown values; never invent. Output no markdown, prose, logs, token counts, or extra keys; "
    "stdout must contain only the JSON object.";

Json recorded_task(const Json& cell, const Json& task) {
  Json recorded = cell;
  recorded["difficulty"] = task["difficulty"];
  return recorded;
}

Json provider_request(const Json& recorded, const Json& task) {
  return Json{{"protocol", "doc-bridge.study-provider.v1"},
              {"response", kProviderResponseContract},
              {"task", recorded},
              {"objective", task["objective"]},
              {"initialContext", task["initialContext"]},
              {"expectedOutcome", task["expectedOutcome"]},
              {"evidenceRequirements", task["evidenceRequirements"]},
              {"acceptanceChecks", task["acceptanceChecks"]},
              {"allowedTools", task["allowedTools"]},
              {"forbiddenActions", task["forbiddenActions"]}};
}

const Json* find_task(const Json& suite, const std::string& task_id) {
  for (const auto& task : suite["tasks"])
    if (task["id"] == task_id) return &task;
  return nullptr;
}

const Json* find_provider(const Json& provider_config, const std::string& model_id, const std::string& scenario_id) {
  for (const auto& provider : provider_config["providers"]) {
    if (provider["modelId"] != model_id) continue;
    for (const auto& scenario : provider["scenarioIds"])
      if (scenario == scenario_id) return &provider;
  }
  return nullptr;
}

}  // namespace strata::model
