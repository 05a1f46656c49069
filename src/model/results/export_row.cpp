#include "strata/model/results/export_row.hpp"

#include <functional>
#include <utility>

#include "strata/model/adjudication/adjudicated_result.hpp"
#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/results/verified_agreement.hpp"
#include "strata/model/study/observation_builder.hpp"

namespace strata::model {
namespace {

// A member of a member, or null.
Json nested_or_null(const Json& object, const char* outer, const char* inner) {
  const auto it = object.find(outer);
  return it == object.end() || !it->is_object() ? Json(nullptr) : member_or_null(*it, inner);
}

Json joined(const Json& list) {
  if (!list.is_array()) return nullptr;
  std::string text;
  for (const auto& item : list) text += (text.empty() ? "" : ";") + str(item);
  return text;
}

using Column = std::pair<std::string, std::function<Json(const Json&)>>;

const std::vector<Column>& columns() {
  static const std::vector<Column> all = [] {
    std::vector<Column> c;
    const auto top = [&c](const char* name) { c.emplace_back(name, [name](const Json& o) { return member_or_null(o, name); }); };
    const auto in = [&c](const char* name, const char* outer, const char* inner) {
      c.emplace_back(name, [outer, inner](const Json& o) { return nested_or_null(o, outer, inner); });
    };
    top("runId");
    top("round");
    top("observedAt");
    for (const char* name : {"taskId", "repositoryId", "category", "scenarioId", "modelId", "replicate", "variantId", "difficulty"})
      in(name, "task", name);
    in("status", "execution", "status");
    in("errorCode", "execution", "errorCode");
    in("exitCode", "execution", "exitCode");
    in("signal", "execution", "signal");
    in("durationMs", "execution", "durationMs");
    in("responseBytes", "execution", "responseBytes");
    in("stderrBytes", "execution", "stderrBytes");
    in("inputTokens", "execution", "inputTokens");
    in("cachedInputTokens", "measurements", "cachedInputTokens");
    in("outputTokens", "execution", "outputTokens");
    in("reasoningOutputTokens", "measurements", "reasoningOutputTokens");
    in("tokenMethod", "execution", "tokenMethod");
    in("costUsd", "measurements", "agentCostUsd");
    in("reportedCostUsd", "measurements", "agentReportedCostUsd");
    in("toolCalls", "execution", "toolCalls");
    top("contextBytes");
    top("contextTokens");
    c.emplace_back("evidenceCount", [](const Json& o) {
      return o.contains("evidenceIds") ? Json(static_cast<double>(o["evidenceIds"].size())) : Json(nullptr);
    });
    top("taskOutcome");
    top("evidenceQuality");
    top("safetyOutcome");
    in("acceptanceChecksPassed", "measurements", "acceptanceChecksPassed");
    in("acceptanceChecksTotal", "measurements", "acceptanceChecksTotal");
    in("verifiedChecksPassed", "measurements", "verifiedChecksPassed");
    in("verifiedChecksTotal", "measurements", "verifiedChecksTotal");
    c.emplace_back("claimAgreement", [](const Json& o) {
      const auto agreement = claim_agreement(o.value("measurements", Json::object()));
      return agreement ? Json(claim_agreement_name(*agreement)) : Json(nullptr);
    });
    in("adjudicationStatus", "adjudication", "status");
    in("adjudicationActor", "adjudication", "actor");
    in("adjudicationMethod", "adjudication", "method");
    in("adjudicationOutcome", "adjudication", "outcome");
    in("adjudicationConfidence", "adjudication", "confidence");
    c.emplace_back("adjudicationReasonCodes", [](const Json& o) {
      const Json& adjudication = o["adjudication"];
      return adjudication.contains("reasonCodes") ? joined(adjudication["reasonCodes"]) : Json(nullptr);
    });
    c.emplace_back("result", [](const Json& o) { return Json(adjudicated_result(o)); });
    c.emplace_back("resultSource", [](const Json& o) { return Json(result_source(o)); });
    top("planHash");
    c.emplace_back("observationHash", [](const Json& o) { return member_or_null(o, "contentHash"); });
    // The name of its workspace patch, verifier output and kept trajectory (docs/TRAJECTORIES.md).
    c.emplace_back("executionKey", [](const Json& o) { return o.contains("task") ? Json(execution_key(o["task"])) : Json(nullptr); });
    return c;
  }();
  return all;
}

}  // namespace

const std::vector<std::string>& export_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& column : columns()) out.push_back(column.first);
    return out;
  }();
  return names;
}

std::vector<Json> export_values(const Json& observation) {
  std::vector<Json> values;
  values.reserve(columns().size());
  for (const auto& column : columns()) values.push_back(column.second(observation));
  return values;
}

void collect_measurement_names(const Json& observation, std::set<std::string>& names) {
  const auto it = observation.find("measurements");
  if (it == observation.end() || !it->is_object()) return;
  for (const auto& [name, value] : it->items()) names.insert(name);
}

std::string csv_text_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string csv_field(const Json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return csv_text_field(str(value));
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number()) return ecmascript_number(value.get<double>());
  return csv_text_field(compact_json(value));  // not produced by export_values; kept whole
}

std::string csv_header(const std::set<std::string>& measurement_names) {
  std::string line;
  for (const auto& name : export_columns()) line += (line.empty() ? "" : ",") + csv_text_field(name);
  for (const auto& name : measurement_names) line += "," + csv_text_field("measurements." + name);
  return line + "\r\n";
}

std::string csv_row(const Json& observation, const std::set<std::string>& measurement_names) {
  std::string line;
  bool first = true;
  for (const auto& value : export_values(observation)) {
    if (!first) line += ',';
    first = false;
    line += csv_field(value);
  }
  const auto measurements = observation.find("measurements");
  for (const auto& name : measurement_names) {
    line += ',';
    if (measurements != observation.end() && measurements->contains(name)) line += csv_field((*measurements)[name]);
  }
  return line + "\r\n";
}

std::string jsonl_row(const Json& observation) {
  Json row = Json::object();
  const std::vector<Json> values = export_values(observation);
  for (std::size_t i = 0; i < values.size(); ++i) row[export_columns()[i]] = values[i];
  row["measurements"] = observation.contains("measurements") ? observation["measurements"] : Json::object();
  return compact_json(row) + "\n";
}

}  // namespace strata::model
