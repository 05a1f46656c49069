#include <catch2/catch.hpp>

#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/json/utf.hpp"

using namespace strata::model;

TEST_CASE("spec 6 case 1: the empty ledger payload hash", "[hash]") {
  const Json payload = parse_json(
      R"({"type":"controlled-study-observation-ledger","schemaVersion":1,"ledgerVersion":"v1","observations":[],"contentHashAlgo":"sha256-normalized-v1"})");
  CHECK(canonical_json(payload) ==
        R"({"contentHashAlgo":"sha256-normalized-v1","ledgerVersion":"v1","observations":[],"schemaVersion":1,"type":"controlled-study-observation-ledger"})");
  CHECK(content_hash(payload) == "d7aacae053872796b29fbb6cca38a41a5fb2d542c7a5628c0671c9add14f9955");
}

TEST_CASE("spec 6 case 6: the edge-case value of 2.4 example 2", "[hash]") {
  // Built in code: the lone surrogate "\ud800" cannot come from a file (the parser
  // refuses it), so it is held as WTF-8 the way a JavaScript string would hold it.
  Json value = Json::object();
  value["b"] = 1.0;
  value["a"] = Json::array({3.0, Json{{"d", "x\xC3\xA9\n"}, {"c", 1e21}}});
  value["\xC3\xA9"] = 0.1 + 0.2;
  value["A"] = -0.0;
  value["u"] = "\xE2\x80\xA8";
  value["z"] = "\xED\xA0\x80";
  value["t"] = "\x01\x7F\"\\/";
  value["n"] = nullptr;
  value["f"] = false;
  value["10"] = 1.0;
  value["2"] = 2.0;
  value["x1"] = 5e-7;
  value["y"] = 0.000001;
  value["w"] = 123456789012345680000.0;
  const std::string expected =
      "{\"2\":2,\"10\":1,\"A\":0,\"a\":[3,{\"c\":1e+21,\"d\":\"x\xC3\xA9\\n\"}],\"b\":1,\"f\":false,\"n\":null,"
      "\"t\":\"\\u0001\x7F\\\"\\\\/\",\"u\":\"\xE2\x80\xA8\",\"w\":123456789012345680000,\"x1\":5e-7,\"y\":0.000001,"
      "\"z\":\"\\ud800\",\"\xC3\xA9\":0.30000000000000004}";
  CHECK(canonical_json(value) == expected);
  CHECK(sha256_hex(canonical_json(value)) == "e290aea209fb1f29ad5ba49b98b76fdd7152ed99a8456671539b5615a15de3ce");
}

TEST_CASE("spec 6 case 7: array-index keys first", "[hash]") {
  const Json v = parse_json(R"({"10":1,"2":2,"b":0,"a":0,"02":3,"4294967295":4,"4294967294":5})");
  CHECK(canonical_json(v) == R"({"2":2,"10":1,"4294967294":5,"02":3,"4294967295":4,"a":0,"b":0})");
}

TEST_CASE("spec 6 case 8: 1.0 vs 1, key order and whitespace do not change the hash", "[hash]") {
  const std::string a = content_hash(parse_json(R"({"x":1,"y":[1,2]})"));
  CHECK(content_hash(parse_json(R"({"y":[1.0,2],"x":1.0})")) == a);
  CHECK(content_hash(parse_json("{\n  \"y\" : [ 1 , 2 ],\n\t\"x\":1\n}")) == a);
  CHECK(content_hash(parse_json(R"({"x":1,"y":[2,1]})")) != a);
}

TEST_CASE("the content hash ignores only the top-level contentHash", "[hash]") {
  const Json a = parse_json(R"({"k":1,"n":{"contentHash":"x"}})");
  const Json b = parse_json(R"({"k":1,"n":{"contentHash":"x"},"contentHash":"whatever"})");
  CHECK(content_hash(a) == content_hash(b));
  CHECK(content_hash(a) != content_hash(parse_json(R"({"k":1,"n":{}})")));
}

TEST_CASE("ECMAScript number text", "[number]") {
  CHECK(ecmascript_number(0) == "0");
  CHECK(ecmascript_number(-0.0) == "0");
  CHECK(ecmascript_number(1) == "1");
  CHECK(ecmascript_number(-5761.7021277) == "-5761.7021277");
  CHECK(ecmascript_number(0.913) == "0.913");
  CHECK(ecmascript_number(1e21) == "1e+21");
  CHECK(ecmascript_number(1e20) == "100000000000000000000");
  CHECK(ecmascript_number(123e-20) == "1.23e-18");
  CHECK(ecmascript_number(5e-7) == "5e-7");
  CHECK(ecmascript_number(0.000001) == "0.000001");
  CHECK(ecmascript_number(1.5e300) == "1.5e+300");
  CHECK(ecmascript_number(-2.5e-10) == "-2.5e-10");
  CHECK(ecmascript_number(5e-324) == "5e-324");
  CHECK(ecmascript_number(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(ecmascript_number(400000) == "400000");
}

TEST_CASE("toFixed rounding", "[number]") {
  CHECK(round_to_fixed(0.0065, 8) == 0.0065);
  CHECK(round_to_fixed(1.005, 2) == 1.0);   // 1.005 is 1.00499999999999989... in binary
  CHECK(round_to_fixed(0.5, 0) == 1.0);     // exact tie goes up
  CHECK(round_to_fixed(2.5, 0) == 3.0);     // not to even
  CHECK(round_to_fixed(-2.5, 0) == -3.0);
  CHECK(round_to_fixed(0.123456785, 8) == 0.12345678);  // binary value is below the tie
  CHECK(round_to_fixed(9.999999999, 8) == 10.0);
}

TEST_CASE("strings are escaped like JSON.stringify", "[json]") {
  std::string out;
  append_json_string(out, "\b\f\t\r\n\x1f\"\\/\x7F\xE2\x80\xA9");
  CHECK(out == "\"\\b\\f\\t\\r\\n\\u001f\\\"\\\\/\x7F\xE2\x80\xA9\"");
}

TEST_CASE("UTF-16 key order differs from code-point order only for astral vs U+E000..U+FFFF", "[utf]") {
  const std::string astral = "\xF0\x9F\x98\x80";  // U+1F600 -> D83D DE00
  const std::string high_bmp = "\xEF\xBC\xA1";    // U+FF21
  CHECK(compare_utf16(astral, high_bmp) < 0);     // 0xD83D < 0xFF21
  CHECK(compare_utf16("a", "b") < 0);
  CHECK(compare_utf16("ab", "a") > 0);
  CHECK(compare_utf16("\xC3\xA9", "z") > 0);
  CHECK(utf16_length(astral) == 2);
  CHECK(utf16_length("\xC3\xA9" "a") == 2);
}

TEST_CASE("pretty layout is JSON.stringify(v, null, 2)", "[json]") {
  const Json v = parse_json(R"({"b":[],"a":{},"c":[1,{"d":"x"}],"1":true})");
  CHECK(pretty_json(v) ==
        "{\n  \"1\": true,\n  \"b\": [],\n  \"a\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": \"x\"\n    }\n  ]\n}");
  CHECK(compact_json(v) == R"({"1":true,"b":[],"a":{},"c":[1,{"d":"x"}]})");
}

TEST_CASE("the canonical text with a member marked is the canonical text, and without it the rest", "[hash]") {
  const Json value = parse_json(R"({"b": 1, "contentHash": "h", "a": [2], "10": {"x": "y"}, "\u00e9": null})");
  for (const char* key : {"contentHash", "10", "\u00e9", "a", "missing"}) {
    INFO(key);
    std::string text = "prefix";  // appends: the range is in the whole buffer
    const MemberRange range = append_canonical_json_marking(text, value, key);
    CHECK(text.substr(6) == canonical_json(value));
    CHECK(text.substr(0, range.begin) + text.substr(range.end) == "prefix" + canonical_json(value, key));
  }
  for (const char* object : {R"({"contentHash": "h"})", R"({})", R"({"contentHash": "h", "z": 1})", R"({"a": 1, "contentHash": "h"})"}) {
    INFO(object);
    const Json only = parse_json(object);
    std::string text;
    const MemberRange range = append_canonical_json_marking(text, only, "contentHash");
    CHECK(text == canonical_json(only));
    CHECK(text.substr(0, range.begin) + text.substr(range.end) == canonical_json(only, "contentHash"));
  }
}
