#pragma once
// Small read helpers over Json values that several model files share.
#include <optional>

#include "strata/model/json.hpp"

namespace strata::model {

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

}  // namespace strata::model
