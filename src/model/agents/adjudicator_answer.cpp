#include "strata/model/agents/adjudicator_answer.hpp"

#include <algorithm>
#include <cmath>

#include "strata/model/agents/agent_answer.hpp"

namespace strata::model {
namespace {

const Json& outcomes() {
  static const Json all = {"success", "partial", "incorrect", "incomplete", "blocked"};
  return all;
}

constexpr const char* kReasonCodePattern = "^[a-z][a-z0-9-]{0,127}$";
constexpr std::size_t kMaxReasonCodes = 16;

// kReasonCodePattern, by hand (std::regex is slow to build and warns under the sanitizers).
bool is_reason_code(const std::string& code) {
  if (code.empty() || code.size() > 128 || code[0] < 'a' || code[0] > 'z') return false;
  return std::all_of(code.begin(), code.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

}  // namespace

const Json& adjudicator_answer_schema() {
  static const Json schema = {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"outcome", "confidence", "reasonCodes"}},
      {"properties",
       {{"outcome", {{"type", "string"}, {"enum", outcomes()}}},
        {"confidence", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
        {"reasonCodes",
         {{"type", "array"}, {"items", {{"type", "string"}, {"pattern", kReasonCodePattern}}}, {"maxItems", kMaxReasonCodes}}}}}};
  return schema;
}

Json adjudicator_fields_from_answer(std::string_view answer) {
  const Json parsed = answer_object(answer, adjudicator_answer_schema());
  const Json& outcome = parsed["outcome"];
  if (!outcome.is_string() || std::find(outcomes().begin(), outcomes().end(), outcome) == outcomes().end())
    answer_mismatch("outcome", "is not one of its values");
  const Json& confidence = parsed["confidence"];
  if (!confidence.is_number() || !(confidence.get<double>() >= 0 && confidence.get<double>() <= 1))
    answer_mismatch("confidence", "is not a number from 0 to 1");
  const Json& codes = parsed["reasonCodes"];
  if (!codes.is_array() || codes.size() > kMaxReasonCodes) answer_mismatch("reasonCodes", "is not a list of at most 16 reason codes");
  for (const Json& code : codes)
    if (!code.is_string() || !is_reason_code(code.get_ref<const std::string&>()))
      answer_mismatch("reasonCodes", "holds a value that is not a reason code (" + std::string(kReasonCodePattern) + ")");
  return Json{{"outcome", outcome}, {"confidence", confidence}, {"reasonCodes", codes}};
}

}  // namespace strata::model
