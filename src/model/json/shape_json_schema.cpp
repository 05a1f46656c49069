// Renders a Shape as a JSON Schema (draft 2020-12). The schemas under schemas/ are
// produced from the same descriptions the validator uses, so they cannot drift apart.
#include "strata/model/json/shape.hpp"

namespace strata::model {

Json json_schema(const Shape& s) {
  Json out = Json::object();
  switch (s.kind) {
    case ShapeKind::string: {
      out["type"] = "string";
      auto [min_len, max_len] = length_bounds(s.text_rule);
      if (s.max_length != 0) std::tie(min_len, max_len) = std::pair{s.min_length, s.max_length};
      if (min_len > 0) out["minLength"] = min_len;
      if (max_len > 0) out["maxLength"] = max_len;
      if (auto pattern = json_schema_pattern(s.text_rule); !pattern.empty()) out["pattern"] = pattern;
      break;
    }
    case ShapeKind::number:
      out["type"] = s.integer ? "integer" : "number";
      if (s.minimum) out["minimum"] = *s.minimum;
      if (s.maximum) out["maximum"] = *s.maximum;
      break;
    case ShapeKind::boolean: out["type"] = "boolean"; break;
    case ShapeKind::constant: out["const"] = s.values.front(); break;
    case ShapeKind::enumeration: out["enum"] = s.values; break;
    case ShapeKind::array:
      out["type"] = "array";
      out["items"] = json_schema(*s.element);
      if (s.min_items > 0) out["minItems"] = s.min_items;
      if (s.max_items != std::numeric_limits<std::size_t>::max()) out["maxItems"] = s.max_items;
      break;
    case ShapeKind::object: {
      out["type"] = "object";
      Json properties = Json::object();
      Json required_names = Json::array();
      for (const auto& field : s.fields) {
        properties[field.name] = json_schema(*field.shape);
        if (field.default_value) properties[field.name]["default"] = *field.default_value;
        if (field.required) required_names.push_back(field.name);
      }
      out["properties"] = std::move(properties);
      out["required"] = std::move(required_names);
      out["additionalProperties"] = !s.strict;
      break;
    }
    case ShapeKind::map:
      out["type"] = "object";
      out["propertyNames"] = Json{{"minLength", s.min_key_length}, {"maxLength", s.max_key_length}};
      out["additionalProperties"] = json_schema(*s.element);
      break;
    case ShapeKind::nullable: out["anyOf"] = Json::array({json_schema(*s.element), Json{{"type", "null"}}}); break;
    case ShapeKind::either:
      out["anyOf"] = Json::array({json_schema(*s.string_form), json_schema(*s.object_form)});
      break;
    case ShapeKind::tagged: {
      Json branches = Json::array();
      for (const auto& [name, branch] : s.branches) branches.push_back(json_schema(*branch));
      out["oneOf"] = std::move(branches);
      break;
    }
  }
  return out;
}

}  // namespace strata::model
