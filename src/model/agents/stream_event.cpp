#include "strata/model/agents/stream_event.hpp"

#include "strata/error.hpp"
#include "strata/model/json/json_document.hpp"

namespace strata::model {

std::optional<Json> stream_event(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t\r");
  if (first == std::string_view::npos || line[first] != '{') return std::nullopt;
  try {
    Json event = parse_json(line);
    if (event.is_object()) return event;
  } catch (const Error&) {
    // not JSON: the stream reader reports it
  }
  return std::nullopt;
}

const Json& event_field(const Json& object, const char* name) {
  static const Json kAbsent;
  if (!object.is_object()) return kAbsent;
  const auto found = object.find(name);
  return found == object.end() ? kAbsent : *found;
}

const std::string& event_text(const Json& object, const char* name) {
  static const std::string kEmpty;
  const Json& value = event_field(object, name);
  return value.is_string() ? value.get_ref<const std::string&>() : kEmpty;
}

std::string text_or_json(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.is_null() ? std::string() : value.dump();
}

std::optional<double> event_count(const Json& object, const char* name) {
  const Json& value = event_field(object, name);
  if (!value.is_number() || !(value.get<double>() >= 0)) return std::nullopt;
  return value.get<double>();
}

}  // namespace strata::model
