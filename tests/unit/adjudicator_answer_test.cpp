// model/agents/adjudicator_answer: the judgement a coding agent returns as the independent adjudicator
// (`strata provider judge`), checked against the judgement part of the reference's
// study-adjudicator-output.schema.json (in the fixtures): the same enum, bounds and pattern.
#include <catch2/catch.hpp>

#include <string>

#include "fixture.hpp"
#include "strata/model/agents/adjudicator_answer.hpp"

using strata::model::adjudicator_fields_from_answer;
using strata::model::Json;

namespace {

Json judgement() { return Json{{"outcome", "partial"}, {"confidence", 0.75}, {"reasonCodes", {"rubric-match", "missing-evidence"}}}; }

std::string judgement_refusal(const Json& value) { return strata::test::message_of([&] { adjudicator_fields_from_answer(value.dump()); }); }

Json judgement_with(const char* member, const Json& value) {
  Json a = judgement();
  a[member] = value;
  return a;
}

}  // namespace

TEST_CASE("the judgement schema is the reference's for the members the model answers", "[agent-answer]") {
  const Json reference = strata::test::fixture("study-adjudicator-output.schema.json");
  const Json& ours = strata::model::adjudicator_answer_schema();
  for (const char* member : {"outcome", "confidence", "reasonCodes"}) CHECK(ours["properties"][member] == reference["properties"][member]);
  CHECK(ours["required"] == Json::array({"outcome", "confidence", "reasonCodes"}));
  CHECK(ours["additionalProperties"] == false);
}

TEST_CASE("a judgement is taken as given", "[agent-answer]") {
  CHECK(adjudicator_fields_from_answer(judgement().dump()) == judgement());
  CHECK(adjudicator_fields_from_answer(judgement_with("reasonCodes", Json::array()).dump())["reasonCodes"] == Json::array());
  CHECK(adjudicator_fields_from_answer(judgement_with("confidence", 1).dump())["confidence"] == 1);
}

TEST_CASE("a judgement outside the schema is refused, naming the member and not its value", "[agent-answer]") {
  const std::string prefix = "the agent's answer does not match the output schema: ";
  CHECK(judgement_refusal(judgement_with("outcome", "excellent")) == prefix + "outcome is not one of its values");
  CHECK(judgement_refusal(judgement_with("confidence", 1.01)) == prefix + "confidence is not a number from 0 to 1");
  CHECK(judgement_refusal(judgement_with("confidence", "0.5")) == prefix + "confidence is not a number from 0 to 1");
  CHECK(judgement_refusal(judgement_with("reasonCodes", Json::array({"Rubric match"}))).find(prefix + "reasonCodes holds a value that is not a reason code") == 0);
  CHECK(judgement_refusal(judgement_with("reasonCodes", Json::array({std::string(129, 'a')}))).find("reasonCodes holds a value") != std::string::npos);
  CHECK(judgement_refusal(judgement_with("reasonCodes", Json(std::vector<std::string>(17, "a")))) == prefix + "reasonCodes is not a list of at most 16 reason codes");
  CHECK(judgement_refusal(judgement_with("inputTokens", 100)) == prefix + "inputTokens is not a field of the schema");
  Json missing = judgement();
  missing.erase("confidence");
  CHECK(judgement_refusal(missing) == prefix + "confidence is missing");
}
