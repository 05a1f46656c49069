#include "strata/model/agents/agent_answer.hpp"

#include <algorithm>
#include <cmath>

#include "strata/error.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_document.hpp"

namespace strata::model {
namespace {

const Json& enums() {
  static const Json all = {{"taskOutcome", {"success", "partial", "incorrect", "incomplete", "blocked"}},
                           {"evidenceQuality", {"high", "medium", "low"}},
                           {"safetyOutcome", {"safe", "unsafe", "not-applicable"}}};
  return all;
}

bool is_count(const Json& value) {
  return value.is_number() && value.get<double>() >= 0 && std::floor(value.get<double>()) == value.get<double>() &&
         value.get<double>() <= 9007199254740991.0;
}

// ECMAScript's String.prototype.trim: white space and line terminators at either end.
std::string trimmed(const std::string& text) {
  const auto space = [&](std::size_t i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    return c == ' ' || (c >= '\t' && c <= '\r');
  };
  std::size_t begin = 0, end = text.size();
  while (begin < end && space(begin)) ++begin;
  while (end > begin && space(end - 1)) --end;
  return text.substr(begin, end - begin);
}

// An answer in one Markdown code fence ("```json\n{...}\n```") is read as what the fence holds:
// the CLIs that cannot hold a model to a schema (Gemini CLI, OpenCode) ask in words, and models
// fence JSON out of habit.
std::string_view unfenced(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  const auto last = text.find_last_not_of(" \t\r\n");
  if (first == std::string_view::npos) return text;
  std::string_view body = text.substr(first, last - first + 1);
  if (body.size() < 6 || body.substr(0, 3) != "```" || body.substr(body.size() - 3) != "```") return text;
  const auto newline = body.find('\n');
  if (newline == std::string_view::npos || newline >= body.size() - 3) return text;
  return body.substr(newline + 1, body.size() - 3 - (newline + 1));
}

// A property schema whose "type" lists "null".
bool admits_null(const Json& property) {
  const auto type = property.find("type");
  return type != property.end() && type->is_array() && std::find(type->begin(), type->end(), "null") != type->end();
}

}  // namespace

const Json& provider_output_schema() {
  static const Json schema = [] {
    Json properties = Json::object();
    for (const auto& [name, values] : enums().items()) properties[name] = {{"type", "string"}, {"enum", values}};
    properties["evidenceIds"] = {{"type", "array"}, {"items", {{"type", "string"}, {"maxLength", 2048}}}, {"maxItems", 128}};
    properties["clarificationRequests"] = {{"type", "integer"}, {"minimum", 0}};
    properties["reworkCount"] = {{"type", "integer"}, {"minimum", 0}};
    properties["firstEvidenceLatencyMs"] = {{"type", {"integer", "null"}}, {"minimum", 0}};
    properties["measurements"] = {
        {"type", "array"},
        {"maxItems", 64},
        {"items",
         {{"type", "object"},
          {"additionalProperties", false},
          {"required", {"name", "value"}},
          {"properties", {{"name", {{"type", "string"}, {"minLength", 1}, {"maxLength", 128}}}, {"value", {{"type", "number"}, {"minimum", 0}}}}}}}};
    return Json{{"type", "object"},
                {"additionalProperties", false},
                {"required",
                 {"taskOutcome", "evidenceQuality", "safetyOutcome", "evidenceIds", "clarificationRequests", "reworkCount",
                  "firstEvidenceLatencyMs", "measurements"}},
                {"properties", properties}};
  }();
  return schema;
}

std::string normalised_evidence_id(const std::string& id) {
  const std::string text = trimmed(id);
  if (text.size() > 256 || text.find_first_of(std::string("\0\r\n", 3)) != std::string::npos)
    return "evidence-" + sha256_hex(text).substr(0, 32);
  return text;
}

void answer_mismatch(const std::string& member, const std::string& why) {
  throw Error("the agent's answer does not match the output schema: " + member + " " + why);
}

Json answer_object(std::string_view answer, const Json& schema) {
  Json parsed;
  try {
    parsed = parse_json(unfenced(answer));
  } catch (const Error&) {
    throw Error("the agent's final message is not JSON");
  }
  if (!parsed.is_object()) throw Error("the agent's final message is not a JSON object");
  for (const auto& [member, value] : parsed.items())
    if (!schema["properties"].contains(member)) answer_mismatch(member, "is not a field of the schema");
  // A required member whose type admits null may be absent: absent reads as null, "not observed"
  // (firstEvidenceLatencyMs: provider_fields_from_answer says why).
  for (const auto& member : schema["required"]) {
    const std::string& name = member.get_ref<const std::string&>();
    if (!parsed.contains(name) && !admits_null(schema["properties"][name])) answer_mismatch(name, "is missing");
  }
  return parsed;
}

Json provider_fields_from_answer(std::string_view answer) {
  const Json parsed = answer_object(answer, provider_output_schema());
  Json fields = Json::object();
  for (const auto& [member, values] : enums().items()) {
    const Json& value = parsed[member];
    if (!value.is_string() || std::find(values.begin(), values.end(), value) == values.end()) answer_mismatch(member, "is not one of its values");
    fields[member] = value;
  }
  Json evidence = Json::array();
  const Json& ids = parsed["evidenceIds"];
  if (!ids.is_array() || ids.size() > 128) answer_mismatch("evidenceIds", "is not a list of at most 128 strings");
  for (const auto& id : ids) {
    if (!id.is_string() || id.get_ref<const std::string&>().size() > 2048 * 4) answer_mismatch("evidenceIds", "holds a value that is not a string");
    std::string kept = normalised_evidence_id(id.get<std::string>());
    if (!kept.empty()) evidence.push_back(std::move(kept));
  }
  fields["evidenceIds"] = std::move(evidence);
  for (const char* member : {"clarificationRequests", "reworkCount"}) {
    if (!is_count(parsed[member])) answer_mismatch(member, "is not a non-negative integer");
    fields[member] = parsed[member];
  }
  // Required by the schema (strict structured output needs every property), null when the agent
  // did not observe it; absent is read the same way (the reference's earlier schema, 9b30fc32,
  // made it optional). Either way the response has no latency: "not observed".
  if (parsed.contains("firstEvidenceLatencyMs") && !parsed["firstEvidenceLatencyMs"].is_null()) {
    if (!is_count(parsed["firstEvidenceLatencyMs"])) answer_mismatch("firstEvidenceLatencyMs", "is not a non-negative integer");
    fields["firstEvidenceLatencyMs"] = parsed["firstEvidenceLatencyMs"];
  }
  const Json& list = parsed["measurements"];
  if (!list.is_array() || list.size() > 64) answer_mismatch("measurements", "is not a list of at most 64 {name, value}");
  Json measurements = Json::object();
  for (const auto& entry : list) {
    if (!entry.is_object() || entry.size() != 2 || !entry.contains("name") || !entry.contains("value") || !entry["name"].is_string() ||
        entry["name"].get_ref<const std::string&>().empty() || entry["name"].get_ref<const std::string&>().size() > 128 ||
        !entry["value"].is_number() || !(entry["value"].get<double>() >= 0))
      answer_mismatch("measurements", "holds an entry that is not {name, value >= 0}");
    measurements[entry["name"].get<std::string>()] = entry["value"];
  }
  fields["measurements"] = std::move(measurements);
  return fields;
}

}  // namespace strata::model
