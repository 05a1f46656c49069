// model/agents/agent_answer: an agent's structured answer checked against the provider output schema
// (the reference's study-provider-output.schema.json, in the fixtures) and mapped to the
// provider response fields; evidence ids normalised as study-v1 §3.12 says (hashes computed
// with Python's hashlib).
#include <catch2/catch.hpp>

#include <string>

#include "fixture.hpp"
#include "strata/model/agents/agent_answer.hpp"

using strata::model::Json;
using strata::model::provider_fields_from_answer;

namespace {

Json answer() {
  return Json{{"taskOutcome", "success"},
              {"evidenceQuality", "high"},
              {"safetyOutcome", "safe"},
              {"evidenceIds", {"  entrypoint-evidence ", "", "   ", "a\nb", std::string(257, 'x')}},
              {"clarificationRequests", 0},
              {"reworkCount", 2},
              {"measurements", {{{"name", "acceptanceChecksPassed"}, {"value", 1}},
                                {{"name", "searchHitRate"}, {"value", 0.5}},
                                {{"name", "acceptanceChecksPassed"}, {"value", 2}}}}};
}

std::string refusal(const Json& value) { return strata::test::message_of([&] { provider_fields_from_answer(value.dump()); }); }

}  // namespace

TEST_CASE("the output schema is the reference's", "[agent-answer]") {
  CHECK(strata::model::provider_output_schema() == strata::test::fixture("study-provider-output.schema.3224164.json"));
}

TEST_CASE("an answer becomes the provider response fields", "[agent-answer]") {
  const Json fields = provider_fields_from_answer(answer().dump());
  CHECK(fields["taskOutcome"] == "success");
  CHECK(fields["reworkCount"] == 2);
  CHECK(fields["evidenceIds"] ==
        Json::array({"entrypoint-evidence", "evidence-7e18f737311b2dc3b2f269dd78396b03", "evidence-15eb95a462ee20bd91a415ae2d4aed34"}));
  CHECK(fields["measurements"] == Json{{"acceptanceChecksPassed", 2}, {"searchHitRate", 0.5}});  // a repeated name: the last value
  CHECK_FALSE(fields.contains("firstEvidenceLatencyMs"));
  Json with_latency = answer();
  with_latency["firstEvidenceLatencyMs"] = 1200;
  CHECK(provider_fields_from_answer(with_latency.dump())["firstEvidenceLatencyMs"] == 1200);
  // Issue 25: the schema's explicit null ("not observed") is accepted and left out, like absence.
  with_latency["firstEvidenceLatencyMs"] = nullptr;
  CHECK_FALSE(provider_fields_from_answer(with_latency.dump()).contains("firstEvidenceLatencyMs"));
}

// Gemini CLI and OpenCode are asked for JSON in words; a model may fence it.
TEST_CASE("an answer in one Markdown code fence is read as the fenced JSON", "[agent-answer]") {
  const Json fields = provider_fields_from_answer("\n```json\n" + answer().dump() + "\n```\n");
  CHECK(fields["reworkCount"] == 2);
  CHECK(provider_fields_from_answer("```\n" + answer().dump() + "```")["taskOutcome"] == "success");
}

TEST_CASE("an answer outside the schema is refused, naming the member and not its value", "[agent-answer]") {
  const auto with = [](const char* member, const Json& value) {
    Json a = answer();
    a[member] = value;
    return a;
  };
  const auto without = [](const char* member) {
    Json a = answer();
    a.erase(member);
    return a;
  };
  CHECK(refusal(with("taskOutcome", "triumph")) == "the agent's answer does not match the output schema: taskOutcome is not one of its values");
  CHECK(refusal(with("evidenceQuality", 3)).find("evidenceQuality is not one of its values") != std::string::npos);
  CHECK(refusal(with("reworkCount", 1.5)).find("reworkCount is not a non-negative integer") != std::string::npos);
  CHECK(refusal(with("clarificationRequests", -1)).find("clarificationRequests is not a non-negative integer") != std::string::npos);
  CHECK(refusal(with("clarificationRequests", "2")).find("clarificationRequests is not a non-negative integer") != std::string::npos);
  CHECK(refusal(with("secretNotes", "the repository's private key")) ==
        "the agent's answer does not match the output schema: secretNotes is not a field of the schema");
  CHECK(refusal(without("safetyOutcome")).find("safetyOutcome is missing") != std::string::npos);
  CHECK(refusal(with("firstEvidenceLatencyMs", -5)).find("firstEvidenceLatencyMs is not a non-negative integer") != std::string::npos);
  CHECK(refusal(with("firstEvidenceLatencyMs", "soon")).find("firstEvidenceLatencyMs is not a non-negative integer") != std::string::npos);
  CHECK(refusal(with("evidenceIds", Json::array({1}))).find("evidenceIds holds a value that is not a string") != std::string::npos);
  CHECK(refusal(with("measurements", Json::array({Json{{"name", "x"}, {"value", -1}}}))).find("measurements holds an entry") !=
        std::string::npos);
  CHECK(refusal(with("measurements", Json::array({Json{{"name", "x"}, {"value", 1}, {"unit", "ms"}}}))).find("measurements holds an entry") !=
        std::string::npos);
  CHECK(strata::test::message_of([] { provider_fields_from_answer("Here is my answer: {"); }) == "the agent's final message is not JSON");
  CHECK(strata::test::message_of([] { provider_fields_from_answer("```json\n{\"a\":1}\nand more"); }) == "the agent's final message is not JSON");
  CHECK(strata::test::message_of([] { provider_fields_from_answer("[1]"); }) == "the agent's final message is not a JSON object");
}
