#include "strata/model/study/observation_builder.hpp"

#include <cmath>

#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/study/cost.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/study/payload_shapes.hpp"
#include "strata/model/json/shape.hpp"

namespace strata::model {
namespace {

constexpr const char* kRubricActor = "deterministic-rubric-v1";
constexpr const char* kRubricReason =
    "Independent bounded evaluation of execution status, acceptance metrics, and exact required evidence coverage.";
constexpr const char* kVerifiedRubricReason =
    "Independent bounded evaluation of execution status, the acceptance checks run by Strata's verifier (not the "
    "agent's own report), and exact required evidence coverage.";


Json observation_head(const ObservationInputs& in) {
  const Json& plan = *in.plan;
  const Json* model = nullptr;
  const Json* scenario = nullptr;
  for (const auto& m : plan["models"])
    if (m["id"] == in.recorded_task["modelId"]) model = &m;
  for (const auto& s : plan["scenarios"])
    if (s["id"] == in.recorded_task["scenarioId"]) scenario = &s;
  if (model == nullptr || scenario == nullptr) throw Error("The run plan does not declare the execution's model or scenario.");
  return Json{{"type", "controlled-study-observation"},
              {"schemaVersion", 1.0},
              {"observationVersion", "v1"},
              {"observedAt", in.observed_at},
              {"runId", plan["runId"]},
              {"planHash", plan["contentHash"]},
              {"task", in.recorded_task},
              {"model", *model},
              {"scenario", *scenario}};
}

Json execution_record(const AttemptRecord& attempt, const Json& response) {
  Json execution = {{"status", attempt.status},
                    {"exitCode", attempt.exit_code ? Json(*attempt.exit_code) : Json(nullptr)},
                    {"signal", attempt.signal ? Json(*attempt.signal) : Json(nullptr)},
                    {"durationMs", attempt.duration_ms},
                    {"responseBytes", static_cast<double>(attempt.stdout_text.size())},
                    {"stderrBytes", attempt.stderr_bytes},
                    {"stdoutHash", sha256_hex(attempt.stdout_text)},
                    {"stderrHash", attempt.stderr_hash}};
  for (const char* key : {"inputTokens", "outputTokens", "tokenMethod", "toolCalls", "firstEvidenceLatencyMs"})
    if (response.contains(key)) execution[key] = response[key];
  if (attempt.error_code) execution["errorCode"] = *attempt.error_code;
  return execution;
}

Json measurements_of(const Json& response, const ObservationInputs& in) {
  Json measurements = response.value("measurements", Json::object());
  const auto input = number_member(response, "inputTokens");
  const auto output = number_member(response, "outputTokens");
  if (response.value("tokenMethod", "") == "provider" && input && output)
    measurements["providerTokenCostUnits"] = *input + *output;
  if (in.provider != nullptr && in.provider->contains("pricing")) {
    if (auto cost = cost_usd(pricing_from((*in.provider)["pricing"]), input, number_member(measurements, "cachedInputTokens"), output))
      measurements["agentCostUsd"] = *cost;
  }
  return measurements;
}

}  // namespace

std::string session_id(const std::string& run_id, const Json& recorded_task) {
  const Json identity = {{"runId", run_id}, {"execution", recorded_task}};
  return content_hash(identity).substr(0, 32);
}

std::string execution_key(const Json& task) {
  const Json key = {{"taskId", task["taskId"]},       {"repositoryId", task["repositoryId"]},
                    {"scenarioId", task["scenarioId"]}, {"modelId", task["modelId"]},
                    {"replicate", task["replicate"]},   {"variantId", task["variantId"]}};
  return content_hash(key);
}

std::string execution_file_stem(const std::string& execution_key) {
  std::string stem = execution_key;
  for (char& c : stem)
    if (c == ':' || c == '/') c = '-';
  return stem;
}

namespace {

// The unsealed observation of §3.7 with adjudication pending.
Json observation_payload(const ObservationInputs& in, const AttemptRecord& attempt_in) {
  AttemptRecord attempt = attempt_in;
  // The provider's response if stdout is one JSON text of the response shape.
  std::optional<Json> parsed = conformed_text(attempt.stdout_text, provider_response_shape());
  if (attempt.status == "completed" && !parsed) {
    attempt.status = "invalid-output";
    attempt.error_code = "invalid-metrics";
  }
  Json response = parsed ? *parsed : Json::object();
  if (parsed && attempt.measured_usage) {  // what the endpoint counted, not what the model says
    response["inputTokens"] = attempt.measured_usage->input_tokens;
    response["outputTokens"] = attempt.measured_usage->output_tokens;
    response["tokenMethod"] = "provider";
    if (attempt.measured_usage->cached_input_tokens) {
      if (!response.contains("measurements")) response["measurements"] = Json::object();
      response["measurements"]["cachedInputTokens"] = *attempt.measured_usage->cached_input_tokens;
    }
  }
  if (attempt.workspace_change) {  // measured by Strata, so it replaces anything the provider said
    if (!response.contains("measurements")) response["measurements"] = Json::object();
    response["measurements"]["workspaceChangedFiles"] = attempt.workspace_change->files;
    response["measurements"]["workspaceChangedBytes"] = attempt.workspace_change->bytes;
  }
  // The verified names are Strata's alone: a provider that reports one (claiming a verification
  // that never ran) has it dropped, with or without --verify.
  if (response.contains("measurements") && response["measurements"].is_object()) drop_verified_measurements(response["measurements"]);
  if (attempt.verification) {  // Strata's own, under names of their own: the agent's claim stays as it is
    if (!response.contains("measurements")) response["measurements"] = Json::object();
    add_verified_measurements(response["measurements"], *attempt.verification);
  }
  if (attempt.trajectory_kept) {  // Strata's, so it replaces anything the provider said
    if (!response.contains("measurements")) response["measurements"] = Json::object();
    response["measurements"]["trajectoryKept"] = *attempt.trajectory_kept ? 1.0 : 0.0;
  }
  const double tokens = number_member(response, "inputTokens").value_or(0) + number_member(response, "outputTokens").value_or(0);
  if (tokens > (*in.plan)["budget"]["maxTokens"].get<double>()) {
    attempt.status = "budget-exceeded";
    attempt.error_code = "token-budget";
  }
  Json observation = observation_head(in);
  observation["execution"] = execution_record(attempt, response);
  const double context_bytes = static_cast<double>(in.request.size());
  observation["contextBytes"] = context_bytes;
  if (in.context_tokens && !in.context_token_method)
    throw Error("Context token counts require a provider or estimate method.");
  observation["contextTokens"] = in.context_tokens.value_or(std::ceil(context_bytes / 4));
  observation["contextTokenMethod"] = in.context_token_method.value_or("estimate");
  observation["evidenceIds"] = response.value("evidenceIds", Json::array());
  if (in.round) observation["round"] = *in.round;
  for (const char* key : {"taskOutcome", "evidenceQuality", "safetyOutcome", "firstEvidenceLatencyMs",
                          "clarificationRequests", "reworkCount"})
    if (response.contains(key)) observation[key] = response[key];
  if (Json measurements = measurements_of(response, in); !measurements.empty())
    observation["measurements"] = std::move(measurements);
  observation["adjudication"] = Json{{"status", "pending"}};
  return observation;
}

// The deterministic rubric's adjudication of an (unsealed or sealed) observation.
Json rubric_adjudication(const Json& observation, const Json& task);

}  // namespace

Json build_observation(const ObservationInputs& in, const AttemptRecord& attempt) {
  return create_artifact(ArtifactKind::observation, observation_payload(in, attempt));
}

Json build_judged_observation(const ObservationInputs& in, const AttemptRecord& attempt, const Json& task) {
  Json observation = observation_payload(in, attempt);
  observation["adjudication"] = rubric_adjudication(observation, task);
  return create_artifact(ArtifactKind::observation, std::move(observation));
}

std::string rubric_outcome(bool blocked, bool incorrect, double passed, double checks, double present,
                           double requirements) {
  if (blocked) return "blocked";
  if (incorrect) return "incorrect";
  if (passed == checks && present == requirements) return "success";
  if (passed == 0 && present == 0) return "incomplete";
  return "partial";
}

namespace {

Json rubric_adjudication(const Json& observation, const Json& task) {
  const Json measurements = observation.value("measurements", Json::object());
  const auto checks = static_cast<double>(task["acceptanceChecks"].size());
  const bool completed = observation["execution"]["status"] == "completed";
  // Verified counts, when the verifier ran, are the facts: a check it could not execute is simply
  // not passed. The self-report must be whole and consistent, or the record is blocked.
  const std::optional<VerifiedCounts> verified = verified_counts(measurements);
  std::optional<double> passed;
  bool blocked = !completed;
  if (verified) {
    passed = verified->passed;
    blocked = blocked || verified->total != checks;
  } else {
    passed = number_member(measurements, "acceptanceChecksPassed");
    const auto total = number_member(measurements, "acceptanceChecksTotal");
    const auto executed = number_member(measurements, "acceptanceChecksExecuted");
    blocked = blocked || !passed || total != checks || executed != checks || *passed > *executed;
  }
  double present = 0;
  for (const auto& requirement : task["evidenceRequirements"])
    for (const auto& id : observation["evidenceIds"])
      if (id == requirement["id"]) {
        ++present;
        break;
      }
  const std::string outcome = rubric_outcome(blocked, false, passed.value_or(0), checks, present,
                                             static_cast<double>(task["evidenceRequirements"].size()));
  return Json{{"status", "automated"}, {"actor", kRubricActor},     {"method", kRubricActor},
              {"outcome", outcome},    {"reason", verified ? kVerifiedRubricReason : kRubricReason}};
}

}  // namespace

Json apply_deterministic_rubric(Json observation, const Json& task) {
  observation["adjudication"] = rubric_adjudication(observation, task);
  observation.erase("contentHash");
  observation.erase("contentHashAlgo");
  return create_artifact(ArtifactKind::observation, std::move(observation));
}

Json unavailable_arm_observation(const ObservationInputs& in, const std::string& reason) {
  Json observation = observation_head(in);
  observation["execution"] = Json{{"status", "unavailable"}, {"exitCode", nullptr}, {"signal", nullptr},
                                  {"durationMs", 0.0},       {"responseBytes", 0.0}, {"stderrBytes", 0.0},
                                  {"errorCode", "registry-unavailable"}};
  observation["contextBytes"] = 0.0;
  observation["evidenceIds"] = Json::array();
  if (in.round) observation["round"] = *in.round;
  observation["adjudication"] = Json{{"status", "automated"}, {"actor", kRubricActor}, {"method", kRubricActor},
                                     {"outcome", "blocked"},  {"reason", reason}};
  return create_artifact(ArtifactKind::observation, std::move(observation));
}

}  // namespace strata::model
