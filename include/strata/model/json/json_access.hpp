#pragma once
// Small read helpers over Json values that several model files share.
#include <optional>
#include <string>

#include "strata/model/json/json.hpp"

namespace strata::model {

// A value known (validated) to be a string, by reference.
inline const std::string& str(const Json& v) { return v.get_ref<const std::string&>(); }

// object[key] as a double when present.
inline std::optional<double> number_member(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  return it->get<double>();
}

// object[key], or JSON null when absent.
inline Json member_or_null(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? Json(nullptr) : *it;
}

// A number that may be absent, as JSON (null when absent).
inline Json number_or_null(const std::optional<double>& value) { return value ? Json(*value) : Json(nullptr); }

}  // namespace strata::model
