// Shapes of every artifact of spec §1, in schema member order.
#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/cm/cm_packet.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/study/payload_shapes.hpp"
#include "strata/model/study/verifier_config_shape.hpp"

namespace strata::model {
namespace {

const std::vector<std::string> kOutcomes = {"success", "partial", "incorrect", "incomplete", "blocked"};
const std::vector<std::string> kScenarios = {"repository-only", "deterministic-doc-bridge", "registry-assisted"};
const std::vector<std::string> kCategories = {"discovery", "architecture", "documentation", "implementation"};
const std::vector<std::string> kTokenMethods = {"provider", "estimate"};

ShapePtr identifier() { return text(TextRule::identifier); }
ShapePtr reference() { return text(TextRule::reference); }
ShapePtr hash() { return text(TextRule::hash); }
ShapePtr safe_text() { return text(TextRule::safe_text); }
ShapePtr positive_int() { return integer(1); }
ShapePtr count() { return integer(0); }
ShapePtr measurements() { return map_of(number(0), 1, 128); }

[[noreturn]] void refuse(const JsonPath& path, const std::string& message) { throw Error(message, path.str()); }

bool has(const Json& object, const char* key) { return object.contains(key); }

ShapePtr pricing() {
  return object({required("currency", constant("USD")), required("inputPerMillionUsd", number(0)),
                 required("cachedInputPerMillionUsd", number(0)), required("outputPerMillionUsd", number(0))});
}

// Strata extension: a hosted OpenAI-compatible model called in-process instead of a command.
// The environment variables are named, never their values.
ShapePtr endpoint() {
  auto parameters = object({optional("temperature", number(0, 2)), optional("top_p", number(0, 1)),
                            optional("max_tokens", integer(1, 1000000)), optional("seed", integer(0, 9007199254740991.0)),
                            optional("presence_penalty", number(-2, 2)), optional("frequency_penalty", number(-2, 2)),
                            optional("stop", array_of(text(1, 256), 1, 4))});
  return object({required("protocol", constant("openai-chat-completions")),
                 required("baseUrlEnv", text(TextRule::environment_name)),
                 required("apiKeyEnv", text(TextRule::environment_name)), required("model", text(1, 128)),
                 optional("parameters", parameters), optional("maxConcurrency", integer(1, 1024)),
                 optional("requestsPerMinute", integer(1, 1000000)), defaulted("transportRetries", integer(0, 10), 3)},
                [](const Json& v, const JsonPath& path) {
                  if (!cm::is_model_name(v["model"].get<std::string>()))
                    refuse(path.member("model"), "Endpoint model names use letters, digits and ._:/+@- (at most 128).");
                });
}

std::vector<Field> command_fields() {
  return {optional("command", text(TextRule::command)),
          defaulted("args", array_of(text(TextRule::argument), 0, 64), Json::array()),
          defaulted("envAllowlist", array_of(text(TextRule::environment_name), 0, 64), Json::array()),
          required("providerNetwork", boolean()),
          required("maxInputBytes", integer(1, 8000000)),
          required("maxOutputBytes", integer(1, 256000)),
          optional("pricing", pricing()),
          optional("endpoint", endpoint())};
}

std::vector<Field> with_command(std::vector<Field> head) {
  for (auto& field : command_fields()) head.push_back(std::move(field));
  return head;
}

// A provider or adjudicator runs a command or calls an endpoint, never both.
void check_command_or_endpoint(const Json& entry, const JsonPath& path) {
  const bool command = entry.contains("command"), endpoint = entry.contains("endpoint");
  if (command == endpoint)
    refuse(path, command ? "A provider entry has either command or endpoint, not both."
                         : "A provider entry needs command or endpoint.");
  if (endpoint && !entry["args"].empty()) refuse(path.member("args"), "args apply to command providers only.");
  if (endpoint && !entry["providerNetwork"].get<bool>())
    refuse(path.member("providerNetwork"), "An endpoint provider must declare providerNetwork true.");
}

ShapePtr provider_config() {
  auto provider = object(with_command(
      {required("modelId", identifier()), required("scenarioIds", array_of(enumeration(kScenarios), 1, 3))}),
      check_command_or_endpoint);
  auto adjudicator = object(with_command({required("id", identifier()), required("modelId", identifier())}),
                            check_command_or_endpoint);
  return object({required("type", constant("study-provider-cli-config")), required("schemaVersion", constant(1)),
                 required("configVersion", reference()), required("providers", array_of(provider, 1, 16)),
                 optional("adjudicator", adjudicator)});
}

ShapePtr repository_config() {
  auto repository = object({required("id", identifier()), required("root", text(1, 4096))});
  return object({required("type", constant("controlled-study-repository-config")),
                 required("schemaVersion", constant(1)), required("configVersion", reference()),
                 required("repositories", array_of(repository, 1, 64))});
}

ShapePtr surface() {
  return object({required("required", boolean()), optional("reason", safe_text())}, [](const Json& s, const JsonPath& path) {
    if (!s["required"].get<bool>() && !has(s, "reason")) refuse(path, "Non-applicable surfaces require a reason.");
  });
}

ShapePtr rubric() {
  auto item = either(safe_text(), object({required("text", safe_text()),
                                          required("check", enumeration({"acceptance-checks", "evidence-coverage",
                                                                         "retrieval-expectations"}))}));
  std::vector<Field> fields;
  for (const auto& outcome : kOutcomes) fields.push_back(required(outcome, array_of(item, 1, 32)));
  return object(std::move(fields));
}

void check_task_expectations(const Json& task, const JsonPath& path) {
  if (has(task, "expectedEntities") && task["expectedEntities"].empty())
    refuse(path.member("expectedEntities"), "Declare at least one expected entity or omit the field.");
  if (has(task, "expectedDocuments") && task["expectedDocuments"].empty())
    refuse(path.member("expectedDocuments"), "Declare at least one expected document or omit the field.");
  if (has(task, "retrievalQueries") && !has(task, "expectedEntities") && !has(task, "expectedDocuments"))
    refuse(path.member("retrievalQueries"),
           "A retrieval query needs expected entities or documents; a query with nothing expected checks nothing.");
}

ShapePtr evidence_requirement() {
  return object({required("id", identifier()), required("description", safe_text()),
                 required("source", enumeration({"runner", "artifact", "human", "agent"}))});
}

ShapePtr acceptance_check() {
  return object({required("id", identifier()), required("command", safe_text()), required("expected", safe_text())});
}

ShapePtr task() {
  auto texts = array_of(safe_text(), 1, 32);
  std::vector<Field> surfaces;
  for (const char* name : {"logic", "endpoint", "database", "cli", "mcp", "ui", "docs"}) surfaces.push_back(required(name, surface()));
  auto variant = object({required("id", identifier()), required("label", safe_text()), required("context", safe_text())});
  return object(
      {required("id", identifier()), required("repositoryId", identifier()),
       required("category", enumeration(kCategories)), required("difficulty", enumeration({"easy", "medium", "hard"})),
       required("objective", safe_text()), required("initialContext", texts), required("allowedTools", texts),
       required("forbiddenActions", texts), required("expectedOutcome", safe_text()),
       required("evidenceRequirements", array_of(evidence_requirement(), 1, 16)),
       required("acceptanceChecks", array_of(acceptance_check(), 1, 16)),
       required("budget", object({required("maxTokens", positive_int()), required("maxRuntimeMs", positive_int())})),
       required("surfaces", object(std::move(surfaces))), required("rubric", rubric()),
       required("variantGroup", identifier()), required("variants", array_of(variant, 2, 2)),
       optional("expectedEntities", array_of(reference(), 0, 16)),
       optional("expectedDocuments", array_of(reference(), 0, 16)),
       optional("retrievalQueries", array_of(safe_text(), 1, 8))},
      check_task_expectations);
}

ShapePtr task_suite() {
  return object({required("type", constant("study-task-suite")), required("schemaVersion", constant(1)),
                 required("suiteVersion", reference()), required("protocolVersion", reference()),
                 required("title", safe_text()), required("population", array_of(identifier(), 1, 64)),
                 required("modelIds", array_of(identifier(), 2, 2)), required("scenarioIds", array_of(identifier(), 3, 3)),
                 required("maxTokensPerTask", positive_int()), required("maxRuntimeMsPerTask", positive_int()),
                 required("maxRuns", positive_int()), required("replicatesPerTask", positive_int()),
                 required("ordering", object({required("strategy", constant("balanced-counter-order")),
                                              required("seed", reference())})),
                 required("tasks", array_of(task(), 0, 128))});
}

ShapePtr model_config() {
  return object({required("id", identifier()), required("role", enumeration({"low-cost", "reference"})),
                 required("provider", identifier()), required("model", text(TextRule::model_reference)),
                 required("version", reference()), required("parametersHash", hash()),
                 required("contextLimit", positive_int()), required("toolConfigurationHash", hash()),
                 required("promptContractHash", hash())});
}

void check_scenario_agent(const Json& scenario, const JsonPath& path) {
  const bool declares_agent = has(scenario, "agentId") || has(scenario, "agentVersion") ||
                              has(scenario, "promptVersion") || has(scenario, "agentBudget");
  if (scenario["id"] == "registry-assisted") {
    if (!has(scenario, "agentId") || !has(scenario, "agentVersion"))
      refuse(path, "Registry-assisted scenarios require agent identity and version.");
  } else if (declares_agent) {
    refuse(path, "Only registry-assisted scenarios may declare an agent.");
  }
}

ShapePtr scenario_config() {
  return object({required("id", enumeration(kScenarios)), optional("agentId", identifier()),
                 optional("agentVersion", reference()), optional("promptVersion", reference()),
                 optional("agentBudget", object({required("maxTokens", positive_int()), required("maxRuntimeMs", positive_int())})),
                 required("network", constant(false))},
                check_scenario_agent);
}

ShapePtr run_plan() {
  auto balanced = object({required("strategy", constant("balanced-task-strata")), required("sampleSize", positive_int())});
  auto pairwise = object({required("strategy", constant("pairwise-task-strata")), required("sampleSize", positive_int()),
                          required("scenarioIds", array_of(enumeration(kScenarios), 0, 3))});
  return object(
      {required("type", constant("controlled-study-run-plan")), required("schemaVersion", constant(1)),
       required("planVersion", reference()), required("protocolVersion", reference()),
       required("protocolHash", hash()), required("taskSuiteHash", hash()), required("sourceRevisionHash", hash()),
       required("configurationHash", hash()), required("docBridgeVersion", reference()),
       required("models", array_of(model_config(), 2, 2)), required("scenarios", array_of(scenario_config(), 3, 3)),
       required("taskIds", array_of(identifier(), 1, 256)),
       required("sampling", tagged("strategy", {{"balanced-task-strata", balanced}, {"pairwise-task-strata", pairwise}})),
       required("budget", object({required("maxTokens", positive_int()), required("maxRuntimeMs", positive_int()),
                                  required("maxOutputBytes", positive_int()), required("maxAttempts", integer(1, 3))})),
       required("runId", reference())});
}

ShapePtr task_execution() {
  return object({required("taskId", identifier()), required("repositoryId", identifier()),
                 required("category", enumeration(kCategories)), required("scenarioId", enumeration(kScenarios)),
                 required("modelId", identifier()), required("replicate", count()), required("variantId", identifier()),
                 optional("difficulty", enumeration({"easy", "medium", "hard"}))});
}

ShapePtr execution_result() {
  return object(
      {required("status", enumeration({"completed", "failed", "timed-out", "unavailable", "invalid-output", "budget-exceeded"})),
       required("exitCode", nullable(integer(std::nullopt))), required("signal", nullable(text(TextRule::any))),
       required("durationMs", count()), required("responseBytes", count()), required("stderrBytes", count()),
       optional("stdoutHash", hash()), optional("stderrHash", hash()), optional("inputTokens", count()),
       optional("outputTokens", count()), optional("tokenMethod", enumeration(kTokenMethods)),
       optional("toolCalls", count()), optional("firstEvidenceLatencyMs", count()), optional("errorCode", identifier())},
      [](const Json& e, const JsonPath& path) {
        if ((has(e, "inputTokens") || has(e, "outputTokens")) && !has(e, "tokenMethod"))
          refuse(path, "Token counts require a provider or estimate method.");
      });
}

ShapePtr adjudication() {
  return object({required("status", enumeration({"pending", "automated", "human-approved", "human-rejected"})),
                 optional("actor", identifier()), optional("method", reference()),
                 optional("outcome", enumeration(kOutcomes)), optional("confidence", number(0, 1)),
                 optional("reasonCodes", array_of(identifier(), 0, 16)),
                 optional("tokenMethod", enumeration(kTokenMethods)), optional("configurationHash", hash()),
                 optional("reason", safe_text())},
                [](const Json& a, const JsonPath& path) {
                  if (a["status"] == "automated" && !(has(a, "actor") && has(a, "method") && has(a, "outcome")))
                    refuse(path, "Automated adjudication requires actor, method, and outcome.");
                });
}

ShapePtr observation() {
  return object(
      {required("type", constant("controlled-study-observation")), required("schemaVersion", constant(1)),
       required("observationVersion", reference()), required("observedAt", text(TextRule::datetime)),
       required("runId", reference()), required("planHash", hash()), required("task", task_execution()),
       required("model", model_config()), required("scenario", scenario_config()),
       required("execution", execution_result()), required("contextBytes", count()),
       optional("contextTokens", count()), optional("contextTokenMethod", enumeration(kTokenMethods)),
       required("evidenceIds", array_of(text(TextRule::evidence_id), 0, 128)), optional("round", reference()),
       optional("taskOutcome", enumeration(kOutcomes)), optional("evidenceQuality", enumeration({"high", "medium", "low"})),
       optional("safetyOutcome", enumeration({"safe", "unsafe", "not-applicable"})),
       optional("firstEvidenceLatencyMs", count()), optional("clarificationRequests", count()),
       optional("reworkCount", count()), optional("measurements", measurements()),
       required("adjudication", adjudication())},
      [](const Json& o, const JsonPath& path) {
        if (has(o, "contextTokens") && !has(o, "contextTokenMethod"))
          refuse(path, "Context token counts require a provider or estimate method.");
      });
}

ShapePtr protocol() {
  auto models = object({required("id", identifier()), required("role", enumeration({"low-cost", "reference"})),
                        required("status", enumeration({"planned", "pinned"})), optional("provider", identifier()),
                        optional("model", text(TextRule::model_reference)), optional("version", reference()),
                        optional("promptContractHash", hash())},
                       [](const Json& m, const JsonPath& path) {
                         if (m["status"] == "pinned" && !(has(m, "provider") && has(m, "model") && has(m, "version")))
                           refuse(path, "Pinned models require provider, model, and version.");
                       });
  auto scenario = object({required("id", identifier()), required("label", safe_text()),
                          required("source", enumeration({"repository-only", "deterministic-doc-bridge", "doc-bridge-registry-agent"})),
                          required("modelIds", array_of(identifier(), 1, 16)),
                          optional("registryAgent", enumeration({"none", "configured"})),
                          required("requiresHumanApproval", boolean())});
  auto metric = object({required("id", identifier()),
                        required("family", enumeration({"discovery", "task", "documentation", "operations", "cost"})),
                        required("unit", enumeration({"count", "milliseconds", "tokens", "bytes", "ratio", "percent", "currency"})),
                        required("source", enumeration({"provider", "runner", "adjudicator", "doc-bridge", "human"})),
                        required("required", boolean()), required("description", safe_text())});
  auto check = object({required("id", identifier()), required("command", safe_text())});
  auto outcome = object({required("id", identifier()), required("statement", safe_text()),
                         defaulted("checks", array_of(check, 0, 16), Json::array()),
                         optional("notApplicableReason", safe_text())},
                        [](const Json& o, const JsonPath& path) {
                          if (o["checks"].empty() == !has(o, "notApplicableReason"))
                            refuse(path, "Outcomes require either checks or a not-applicable reason.");
                        });
  auto target = object({required("metricId", identifier()),
                        required("direction", enumeration({"decrease", "increase", "no-regression"})),
                        required("threshold", number(std::nullopt))});
  return object(
      {required("type", constant("study-protocol")), required("schemaVersion", constant(1)),
       required("protocolVersion", reference()), required("title", safe_text()),
       required("evidenceClasses", array_of(enumeration({"historical", "controlled"}), 1, 2)),
       required("repositories", array_of(object({required("id", identifier()),
                                                 required("visibility", enumeration({"public", "private", "anonymized"})),
                                                 required("role", enumeration({"product", "consumer"}))}),
                                         1, 64)),
       required("taskCategories", array_of(enumeration(kCategories), 1, 4)), required("models", array_of(models, 2, 16)),
       required("scenarios", array_of(scenario, 3, 8)), required("metrics", array_of(metric, 1, 128)),
       required("outcomes", array_of(outcome, 1, 64)),
       required("budget", object({required("maxTokensPerTask", positive_int()), required("maxRuntimeMsPerTask", positive_int()),
                                  required("maxRuns", positive_int()), required("maxNetworkRequests", count())})),
       required("privacy", object({required("mode", constant("anonymized")),
                                   required("forbiddenFields", array_of(enumeration({"repository-content", "paths", "prompts",
                                                                                     "credentials", "private-identifiers",
                                                                                     "raw-agent-responses"}),
                                                                        1, 16)),
                                   required("publicationRequiresHumanReview", constant(true))})),
       required("stopping", object({required("minControlledRounds", positive_int()),
                                    required("consecutiveNoMaterialImprovementRounds", positive_int()),
                                    required("targets", array_of(target, 0, 32))}))});
}


ShapePtr provider_request() {
  auto task = object({required("taskId", identifier()), required("repositoryId", identifier()),
                      required("category", enumeration(kCategories)), required("scenarioId", enumeration(kScenarios)),
                      required("modelId", identifier()), required("replicate", count()),
                      required("variantId", identifier()), required("difficulty", enumeration({"easy", "medium", "hard"}))});
  auto texts = array_of(safe_text(), 1, 32);
  return object({required("protocol", constant("doc-bridge.study-provider.v1")), required("response", text(TextRule::any)),
                 required("task", task), required("objective", safe_text()), required("initialContext", texts),
                 required("expectedOutcome", safe_text()),
                 required("evidenceRequirements", array_of(evidence_requirement(), 1, 16)),
                 required("acceptanceChecks", array_of(acceptance_check(), 1, 16)), required("allowedTools", texts),
                 required("forbiddenActions", texts)});
}

ShapePtr provider_response() {
  return lenient_object({optional("taskOutcome", enumeration(kOutcomes)),
                         optional("evidenceQuality", enumeration({"high", "medium", "low"})),
                         optional("safetyOutcome", enumeration({"safe", "unsafe", "not-applicable"})),
                         optional("evidenceIds", array_of(text(TextRule::evidence_id), 0, 128)),
                         optional("clarificationRequests", count()), optional("reworkCount", count()),
                         optional("toolCalls", count()), optional("firstEvidenceLatencyMs", count()),
                         optional("measurements", measurements()), optional("inputTokens", count()),
                         optional("outputTokens", count()), optional("tokenMethod", enumeration(kTokenMethods))});
}

ShapePtr adjudicator_request() {
  auto strings = array_of(text(TextRule::any));
  std::vector<Field> rubric_fields;
  for (const auto& outcome : kOutcomes) rubric_fields.push_back(required(outcome, strings));
  auto mechanical = object({required("outcome", enumeration(kOutcomes)), required("text", safe_text()),
                            required("check", enumeration({"acceptance-checks", "evidence-coverage", "retrieval-expectations"}))});
  auto task = object({required("id", identifier()), required("category", enumeration(kCategories)),
                      required("difficulty", enumeration({"easy", "medium", "hard"})), required("objective", safe_text()),
                      required("expectedOutcome", safe_text()),
                      required("evidenceRequirements", array_of(evidence_requirement(), 1, 16)),
                      required("acceptanceChecks", array_of(acceptance_check(), 1, 16)),
                      required("rubric", object(std::move(rubric_fields))), optional("mechanical", array_of(mechanical))});
  auto candidate = object(
      {required("taskOutcome", nullable(enumeration(kOutcomes))),
       required("evidenceQuality", nullable(enumeration({"high", "medium", "low"}))),
       required("safetyOutcome", nullable(enumeration({"safe", "unsafe", "not-applicable"}))),
       required("evidenceIds", array_of(text(TextRule::evidence_id), 0, 128)),
       required("evidenceCoverage",
                object({required("required", array_of(object({required("id", identifier()), required("present", boolean())}))),
                        required("referenceCount", count())})),
       required("acceptanceExecution",
                object({required("status", text(TextRule::identifier)), required("passed", nullable(number(0))),
                        required("total", nullable(number(0))), optional("executed", nullable(number(0))),
                        required("measurementPresent", boolean()),
                        // Strata's own (docs/VERIFIER.md): present when the counts are its verifier's.
                        optional("source", constant("strata-verifier"))})),
       required("measurements", measurements()),
       required("execution", object({required("status", text(TextRule::identifier)), required("durationMs", count()),
                                     required("responseBytes", count())}))});
  return object({required("protocol", constant("doc-bridge.study-adjudicator.v1")),
                 required("instruction", text(TextRule::any)), required("task", task), required("candidate", candidate)});
}

ShapePtr adjudicator_response() {
  return object({required("outcome", enumeration(kOutcomes)), required("confidence", number(0, 1)),
                 required("reasonCodes", array_of(identifier(), 0, 16)), optional("inputTokens", count()),
                 optional("outputTokens", count()), optional("tokenMethod", enumeration(kTokenMethods)),
                 optional("measurements", measurements())},
                [](const Json& r, const JsonPath& path) {
                  if ((has(r, "inputTokens") || has(r, "outputTokens")) && !has(r, "tokenMethod"))
                    refuse(path, "Adjudicator token counts require a token method.");
                });
}

ShapePtr sealed(const ShapePtr& payload) {
  Shape s = *payload;
  s.fields.push_back(required("contentHash", hash()));
  s.fields.push_back(required("contentHashAlgo", constant(std::string(kContentHashAlgo))));
  return std::make_shared<const Shape>(std::move(s));
}

ShapePtr sealed_ledger(const ShapePtr& sealed_observation) {
  return object({required("type", constant("controlled-study-observation-ledger")), required("schemaVersion", constant(1)),
                 required("ledgerVersion", reference()),
                 required("observations", array_of(sealed_observation, 0, 100000))});
}

ArtifactSpec spec(ArtifactKind kind, std::string_view type, std::string_view name, std::string_view mismatch,
                  ShapePtr payload) {
  auto sealed_shape = sealed(payload);
  return ArtifactSpec{kind, type, name, mismatch, std::move(payload), std::move(sealed_shape)};
}

std::vector<ArtifactSpec> build_specs() {
  auto sealed_observation = sealed(observation());
  return {
      spec(ArtifactKind::provider_config, "study-provider-cli-config", "provider-config",
           "Invalid study provider CLI config content hash.", provider_config()),
      spec(ArtifactKind::repository_config, "controlled-study-repository-config", "repository-config",
           "Invalid study repository config content hash.", repository_config()),
      spec(ArtifactKind::task_suite, "study-task-suite", "task-suite", "Invalid task-suite content hash.", task_suite()),
      spec(ArtifactKind::run_plan, "controlled-study-run-plan", "run-plan", "Invalid controlled run-plan content hash.",
           run_plan()),
      ArtifactSpec{ArtifactKind::observation, "controlled-study-observation", "observation",
                   "Invalid controlled observation content hash.", observation(), sealed_observation},
      spec(ArtifactKind::ledger, "controlled-study-observation-ledger", "ledger",
           "Invalid observation-ledger content hash.", sealed_ledger(sealed_observation)),
      spec(ArtifactKind::protocol, "study-protocol", "protocol", "", protocol()),
      spec(ArtifactKind::verifier_config, "strata-verifier-config", "verifier-config", "Invalid verifier-config content hash.",
           verifier_config_payload()),
  };
}

}  // namespace

const Shape& provider_request_shape() {
  static const ShapePtr shape = provider_request();
  return *shape;
}

const Shape& provider_response_shape() {
  static const ShapePtr shape = provider_response();
  return *shape;
}

const Shape& adjudicator_request_shape() {
  static const ShapePtr shape = adjudicator_request();
  return *shape;
}

const Shape& adjudicator_response_shape() {
  static const ShapePtr shape = adjudicator_response();
  return *shape;
}

const std::vector<ArtifactSpec>& artifact_specs() {
  static const std::vector<ArtifactSpec> specs = build_specs();
  return specs;
}

}  // namespace strata::model
