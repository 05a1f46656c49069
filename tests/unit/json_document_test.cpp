#include <catch2/catch.hpp>

#include <string>

#include "strata/error.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"

using strata::model::Json;
using strata::model::parse_json;

namespace {

// The location ("line:column") and message of a parse failure.
std::string failure(const std::string& text) {
  try {
    parse_json(text);
  } catch (const strata::Error& e) {
    return e.location() + " " + e.what();
  }
  return "parsed";
}

}  // namespace

TEST_CASE("numbers become doubles with ECMAScript semantics", "[json]") {
  CHECK(parse_json("5.0") == parse_json("5"));
  CHECK(parse_json("5.0").is_number_float());
  CHECK(parse_json("12345678901234567890").get<double>() == 12345678901234567890.0);
  CHECK(parse_json("1e-400").get<double>() == 0.0);
  CHECK(parse_json("-0").get<double>() == 0.0);
}

TEST_CASE("duplicate keys keep the first position and the last value", "[json]") {
  const Json v = parse_json(R"({"a":1,"b":2,"a":3})");
  CHECK(strata::model::compact_json(v) == R"({"a":3,"b":2})");
}

TEST_CASE("escapes decode, surrogate pairs combine", "[json]") {
  CHECK(parse_json(R"("\u00e9\n\/")").get<std::string>() == "\xC3\xA9\n/");
  CHECK(parse_json(R"("\ud83d\ude00")").get<std::string>() == "\xF0\x9F\x98\x80");
}

TEST_CASE("malformed JSON is refused with line and column", "[json]") {
  CHECK(failure("{\n  \"a\": tru\n}") == "2:8 invalid JSON: unexpected character");
  CHECK(failure("{\"a\":1,}") == "1:8 invalid JSON: expected a string key");
  CHECK(failure("[1 2]") == "1:4 invalid JSON: expected ',' or ']' in an array");
  CHECK(failure("{} x") == "1:4 invalid JSON: unexpected content after the JSON value");
  CHECK(failure("") == "1:1 invalid JSON: unexpected end of input");
  CHECK(failure("01") == "1:2 invalid JSON: unexpected content after the JSON value");
  CHECK(failure("\"a\tb\"") == "1:3 invalid JSON: control character in a string (escape it)");
  CHECK(failure("NaN") == "1:1 invalid JSON: unexpected character");
}

TEST_CASE("invalid UTF-8 is refused", "[json]") {
  CHECK(failure("\"a\xFF\"") == "1:3 invalid JSON: invalid UTF-8");
  CHECK(failure("\"\xC0\xAF\"") == "1:2 invalid JSON: invalid UTF-8");          // overlong '/'
  CHECK(failure("\"\xED\xA0\x80\"") == "1:2 invalid JSON: invalid UTF-8");      // encoded surrogate
  CHECK(failure("\"\xE2\x82\"") == "1:2 invalid JSON: invalid UTF-8");          // truncated sequence
}

TEST_CASE("unpaired surrogate escapes are refused", "[json]") {
  CHECK(failure(R"("\ud800")") == "1:2 invalid JSON: unpaired surrogate escape");
  CHECK(failure(R"("\udc00x")") == "1:2 invalid JSON: unpaired surrogate escape");
  CHECK(failure(R"("\ud800\u0041")") == "1:2 invalid JSON: unpaired surrogate escape");
}

TEST_CASE("numbers outside the double range are refused", "[json]") {
  CHECK(failure("[1e309]") == "1:2 invalid JSON: number outside the range of a double");
  CHECK(failure("-1e400") == "1:1 invalid JSON: number outside the range of a double");
  CHECK(parse_json("1.7976931348623157e308").get<double>() > 1e308);
}

TEST_CASE("nesting is limited to 512 levels", "[json]") {
  const std::string ok = std::string(512, '[') + std::string(512, ']');
  CHECK_NOTHROW(parse_json(ok));
  const std::string deep = std::string(513, '[') + std::string(513, ']');
  CHECK(failure(deep) == "1:513 invalid JSON: nesting deeper than 512 levels");
}

TEST_CASE("a byte-order mark is refused like JSON.parse does", "[json]") {
  CHECK(failure("\xEF\xBB\xBF{}") == "1:1 invalid JSON: byte-order mark before the JSON text");
}
