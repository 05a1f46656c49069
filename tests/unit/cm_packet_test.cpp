#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "fixture.hpp"
#include "strata/error.hpp"
#include "strata/model/cm/cm_packet.hpp"

using namespace strata::model;
using namespace strata::model::cm;

using strata::test::message_of;

namespace {

using strata::test::kRolePacket;

std::string packet_error(const std::string& text) {
  return message_of([&] { role_messages(parse_strict(text, "stdin"), "cm-prd", "design_generation", "planner"); });
}

std::string with_dynamic(const std::string& field, const std::string& value) {
  Json p = parse_strict(kRolePacket, "stdin");
  p["dynamic_packet"][field] = Json::parse(value);
  return p.dump();
}

}  // namespace

TEST_CASE("usage-boundary case 33: the exact request body", "[cm]") {
  const RoleMessages m = role_messages(parse_strict(kRolePacket, "stdin"), "cm-prd", "design_generation", "planner");
  CHECK(request_body("planner-default", m) ==
        R"({"model":"planner-default","messages":[{"role":"system","content":"[safety]\nDO_NOT_LOG_STABLE safety boundary\n\n[workflow]\ncm-prd design generation\n\n[project_rules]\nstay inside the approved requirement\n\n[role]\nplanner\n\n[output_schema]\nreturn the compact plan only"},{"role":"user","content":"{\"constraints\":[\"no implementation\"],\"expected_output\":\"plan\",\"identifiers\":{\"feature\":\"1.fixture\"},\"objective\":\"DO_NOT_LOG_DYNAMIC create one plan\",\"role\":\"planner\",\"stage\":\"design_generation\",\"workflow\":\"cm-prd\"}"}],"stream":false})");
}

TEST_CASE("usage-boundary cases 18-24: strict JSON with the boundary's messages", "[cm]") {
  CHECK(message_of([] { parse_strict(R"({"stable_prefix":)", "stdin"); }) == "stdin is not valid strict UTF-8 JSON");
  CHECK(message_of([] { parse_strict(R"({} x)", "stdin"); }) == "stdin is not valid strict UTF-8 JSON");
  CHECK(message_of([] { parse_strict(R"({"t":NaN})", "stdin"); }) == "stdin is not valid strict UTF-8 JSON");
  CHECK(message_of([] { parse_strict(R"({"t":-Infinity})", "stdin"); }) == "stdin is not valid strict UTF-8 JSON");
  CHECK(message_of([] { parse_strict(R"([1e400])", "stdin"); }) == "stdin must contain strict JSON numbers");
  CHECK(message_of([] { parse_strict(R"(["\ud800"])", "stdin"); }) == "stdin must contain valid Unicode");
  CHECK(message_of([] { parse_strict("[\"\xFF\"]", "stdin"); }) == "stdin is not valid strict UTF-8 JSON");
  CHECK(message_of([] { parse_strict("\xEF\xBB\xBF{}", "stdin"); }) == "stdin is not valid strict UTF-8 JSON");
  const auto nested = [](int n, const std::string& inner) { return std::string(n, '[') + inner + std::string(n, ']'); };
  CHECK(message_of([&] { parse_strict(nested(128, "0"), "stdin"); }) == "no error");
  CHECK(message_of([&] { parse_strict(nested(129, "0"), "stdin"); }) == "stdin exceeds the maximum JSON nesting depth");
  CHECK(message_of([&] { parse_strict(nested(129, ""), "stdin"); }) == "no error");
  CHECK(message_of([&] { parse_strict(nested(130, ""), "stdin"); }) == "stdin exceeds the maximum JSON nesting depth");
  CHECK(message_of([&] { parse_strict(nested(5000, "0"), "provider response"); }) ==
        "provider response exceeds the maximum JSON nesting depth");
  CHECK(packet_error(nested(128, "0")) == "role packet requires only stable_prefix and dynamic_packet");
  CHECK(packet_error(with_dynamic("context", "{\"nested\":" + nested(256, "0") + "}")) ==
        "stdin exceeds the maximum JSON nesting depth");
}

TEST_CASE("usage-boundary cases 25-30: role packet shape", "[cm]") {
  Json p = Json::parse(kRolePacket);
  p["extra"] = 1;
  CHECK(packet_error(p.dump()) == "role packet requires only stable_prefix and dynamic_packet");
  p = Json::parse(kRolePacket);
  p["stable_prefix"].erase("output_schema");
  CHECK(packet_error(p.dump()) == "stable_prefix requires exactly: safety, workflow, project_rules, role, output_schema");
  p = Json::parse(kRolePacket);
  p["stable_prefix"]["role"] = "   ";
  CHECK(packet_error(p.dump()) == "stable_prefix.role must be a non-empty string");
  p = Json::parse(kRolePacket);
  p["dynamic_packet"] = Json::object();
  CHECK(packet_error(p.dump()) ==
        "dynamic_packet requires: constraints, expected_output, identifiers, objective, role, stage, workflow");
  CHECK(packet_error(with_dynamic("role", "\"coder\"")) == "dynamic_packet.role must match --role");
  CHECK(packet_error(with_dynamic("full_repository", "\"...\"")) == "dynamic_packet contains unsupported fields: full_repository");
  CHECK(packet_error(with_dynamic("identifiers", "[]")) == "dynamic_packet.identifiers must be a JSON object");
  CHECK(packet_error(with_dynamic("constraints", "[\"\"]")) == "dynamic_packet.constraints must be a list of strings");
  CHECK(packet_error(with_dynamic("context", "[]")) == "dynamic_packet.context must be a JSON object");
  CHECK(packet_error(with_dynamic("context", "null")) == "dynamic_packet.context must be a JSON object");
  CHECK(packet_error(with_dynamic("objective", "\"\\u3000\"")) == "dynamic_packet.objective must be a non-empty string");
}

TEST_CASE("the dynamic packet is canonical Python JSON", "[cm]") {
  const RoleMessages m = role_messages(
      parse_strict(with_dynamic("context", R"({"b":1.0,"a":[1e16,1e-7,0.5,-0.0,12345678901234567890,true,null,"é\u2028"],"é":2})"), "stdin"),
      "cm-prd", "design_generation", "planner");
  CHECK(m.user.find("\"context\":{\"a\":[1e+16,1e-07,0.5,-0.0,12345678901234567890,true,null,\"\xC3\xA9\xE2\x80\xA8\"],\"b\":1.0,\"\xC3\xA9\":2}") !=
        std::string::npos);
  CHECK(python_float_repr(1e15) == "1000000000000000.0");
  CHECK(python_float_repr(0.0001) == "0.0001");
  CHECK(python_float_repr(0.00001) == "1e-05");
  CHECK(python_float_repr(1.5e300) == "1.5e+300");
  CHECK(python_float_repr(123.456) == "123.456");
}

// Regression (fuzz/regressions/cm_packet/integer-above-uint64-max): Python keeps integers of
// any size; they used to be sent as a float repr (1.8446744073709552e+19).
TEST_CASE("integers past 2^64-1 keep their digits in the dynamic packet", "[cm]") {
  // Written as text: with_dynamic() goes through nlohmann, which would turn them into doubles.
  std::string packet = kRolePacket;
  const std::string context = R"("context":{"n":18446744073709551617,"m":-99999999999999999999999,"k":1.5e19},)";
  packet.insert(packet.find("\"dynamic_packet\":{") + 18, context);
  const RoleMessages m = role_messages(parse_strict(packet, "stdin"), "cm-prd", "design_generation", "planner");
  // Only integer lexemes are kept: with a fraction or an exponent a number is a float, as in Python.
  CHECK(m.user.find(R"("context":{"k":1.5e+19,"m":-99999999999999999999999,"n":18446744073709551617})") != std::string::npos);
  // The user message reads back to itself.
  CHECK(python_canonical_json(parse_strict(m.user, "user message")) == m.user);
  CHECK_THROWS_WITH(parse_strict(R"({"f":1e400})", "stdin"), "stdin must contain strict JSON numbers");
}

// Python's json.loads keeps the last of two equal keys; the packet sent must be the one the
// reference script would send (fuzz/regressions/cm_packet/duplicate-key-replaces-an-integer).
TEST_CASE("a duplicate key in the dynamic packet keeps its last value, as Python does", "[cm]") {
  std::string packet = kRolePacket;
  const std::string context = R"("context":{"t":[12345678901234567890,7],"u":1,"t":true},)";
  packet.insert(packet.find("\"dynamic_packet\":{") + 18, context);
  const RoleMessages m = role_messages(parse_strict(packet, "stdin"), "cm-prd", "design_generation", "planner");
  CHECK(m.user.find(R"("context":{"t":true,"u":1})") != std::string::npos);
  CHECK(m.user.find("12345678901234567890") == std::string::npos);
}

TEST_CASE("usage-boundary case 53: text extraction messages", "[cm]") {
  CHECK(completion_text(Json::parse(R"({"choices":[{"message":{"content":""}}]})")) == "");
  CHECK(message_of([] { completion_text(Json::parse(R"({"choices":[]})")); }) == "provider response has no completion choice");
  CHECK(message_of([] { completion_text(Json::parse(R"({"choices":[1]})")); }) == "provider response has no completion choice");
  CHECK(message_of([] { completion_text(Json::parse(R"({"choices":[{"message":null}]})")); }) ==
        "provider response has no completion message");
  CHECK(message_of([] { completion_text(Json::parse(R"({"choices":[{"message":{"content":null}}]})")); }) ==
        "provider response content is not text");
}

TEST_CASE("usage-boundary case 55: usage aliases", "[cm]") {
  auto usage = [](const std::string& u) {
    const Json r = Json::parse("{\"usage\":" + u + "}");
    return extract_usage(&r);
  };
  Usage a = usage(R"({"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":7,"cache_creation_input_tokens":3})");
  CHECK((a.observed && a.input_tokens == 10 && a.output_tokens == 5 && a.cache_read_tokens == 7 && a.cache_write_tokens == 3));
  CHECK(usage(R"({"input_tokens":10,"prompt_tokens":99,"output_tokens":5})").input_tokens == 10);
  CHECK(usage(R"({"input_tokens":-1,"prompt_tokens":8,"completion_tokens":2})").input_tokens == 8);
  CHECK_FALSE(usage(R"({"prompt_tokens":8.0,"completion_tokens":2})").observed);
  CHECK_FALSE(usage(R"({"prompt_tokens":true,"completion_tokens":2})").observed);
  CHECK_FALSE(usage(R"({"prompt_tokens":8})").observed);
  Usage f = usage(R"({"prompt_tokens":8,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":5,"cache_write_tokens":4}})");
  CHECK((f.cache_read_tokens == 5 && f.cache_write_tokens == 4));
  CHECK(usage(R"({"cache_read_input_tokens":6,"prompt_tokens":8,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":5}})").cache_read_tokens == 6);
  CHECK_FALSE(usage("null").observed);
  CHECK_FALSE(usage("[]").observed);
  CHECK_FALSE(extract_usage(nullptr).observed);
}

TEST_CASE("usage-boundary case 56 and CLI value rules", "[cm]") {
  CHECK(effective_model(Json::parse(R"({"model":"gpt-4o-2024-08-06"})")) == "gpt-4o-2024-08-06");
  CHECK_FALSE(effective_model(Json::parse(R"({"model":"bad model"})")));
  CHECK_FALSE(effective_model(Json::parse(R"({"model":4})")));
  CHECK(is_identifier("planner"));
  CHECK_FALSE(is_identifier("1planner"));
  CHECK_FALSE(is_call_id("-x"));
  CHECK_FALSE(is_run_id("short"));
  CHECK(is_run_id("adapter-fixture-0001"));
  CHECK_FALSE(is_model_name("bad model"));
  CHECK(is_model_name("vendor/model:1@x+y"));
}
