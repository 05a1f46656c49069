// The strict JSON parser every artifact, journal line and process payload goes through
// (model/json/json_document.cpp), and the ECMAScript writer and canonical form behind the
// content hash.
//
// Invariants: a text that parses writes (JSON.stringify layout) to a text that parses
// back to the same value, and writing is then a fixed point for the compact, pretty and
// canonical forms; the content hash does not depend on the layout; what the CM boundary's
// strict parser accepts, the model parser accepts too.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "strata/error.hpp"
#include "strata/model/cm/cm_packet.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_json {

using namespace strata;
using model::Json;

int test_one_input(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  Json value;
  bool parsed = false;
  try {
    value = model::parse_json(text);
    parsed = true;
  } catch (const Error&) {
  }

  try {
    model::cm::parse_strict(text, "fuzz");
    FUZZ_CHECK(parsed, "cm::parse_strict accepted what parse_json refused: " + fuzz::excerpt(text));
  } catch (const Error&) {
  }
  if (!parsed) return 0;

  const std::string compact = model::compact_json(value);
  Json again;
  try {
    again = model::parse_json(compact);
  } catch (const Error& e) {
    FUZZ_CHECK(false, std::string("compact_json wrote unparseable text (") + e.describe() + "): " + fuzz::excerpt(compact));
  }
  FUZZ_CHECK(model::compact_json(again) == compact, "compact_json is not a fixed point: " + fuzz::excerpt(compact));

  const std::string canonical = model::canonical_json(value);
  FUZZ_CHECK(model::canonical_json(again) == canonical, "canonical form changed by a round trip: " + fuzz::excerpt(canonical));
  Json from_canonical;
  try {
    from_canonical = model::parse_json(canonical);
  } catch (const Error& e) {
    FUZZ_CHECK(false, std::string("canonical_json wrote unparseable text (") + e.describe() + ")");
  }
  FUZZ_CHECK(model::canonical_json(from_canonical) == canonical, "canonical_json is not a fixed point");

  const std::string pretty = model::pretty_json(value);
  Json from_pretty;
  try {
    from_pretty = model::parse_json(pretty);
  } catch (const Error& e) {
    FUZZ_CHECK(false, std::string("pretty_json wrote unparseable text (") + e.describe() + ")");
  }
  FUZZ_CHECK(model::compact_json(from_pretty) == compact, "pretty and compact layouts disagree: " + fuzz::excerpt(compact));

  if (value.is_object())
    FUZZ_CHECK(model::content_hash(value) == model::content_hash(from_pretty), "content hash depends on the layout");
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("json", &test_one_input);

}  // namespace fuzz_json
