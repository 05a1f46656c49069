#include "strata/model/json/shape.hpp"

#include <cmath>

#include "strata/error.hpp"
#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/json/utf.hpp"

namespace strata::model {
namespace {

bool plain_name(std::string_view key) {
  if (key.empty() || !(std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_')) return false;
  for (char c : key)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string type_name(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::string: return "a string";
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    default: return "a number";
  }
}

[[noreturn]] void fail(const JsonPath& path, const std::string& message) { throw Error(message, path.str()); }

[[noreturn]] void wrong_type(const JsonPath& path, const std::string& expected, const Json& got) {
  if (got.is_null()) fail(path, "expected " + expected + ", got null (omit optional fields instead)");
  fail(path, "expected " + expected + ", got " + type_name(got));
}

ShapePtr make(Shape shape) { return std::make_shared<const Shape>(std::move(shape)); }

std::string number_bounds(const Shape& s) {
  std::string what = s.integer ? "an integer" : "a finite number";
  if (s.minimum && s.maximum) return what + " from " + ecmascript_number(*s.minimum) + " to " + ecmascript_number(*s.maximum);
  if (s.minimum) return what + " >= " + ecmascript_number(*s.minimum);
  if (s.maximum) return what + " <= " + ecmascript_number(*s.maximum);
  return what;
}

Json conform_string(Json value, const Shape& s, const JsonPath& path) {
  if (!value.is_string()) wrong_type(path, describe(s.text_rule), value);
  const auto& text = value.get_ref<const std::string&>();
  if (s.max_length != 0) {
    const std::size_t units = utf16_length(text);
    if (units < s.min_length || units > s.max_length)
      fail(path, "expected a string of " + std::to_string(s.min_length) + ".." + std::to_string(s.max_length) +
                     " characters, got " + std::to_string(units));
  }
  if (auto problem = check_text(s.text_rule, text)) fail(path, *problem);
  return value;
}

Json conform_number(const Json& value, const Shape& s, const JsonPath& path) {
  if (!value.is_number()) wrong_type(path, number_bounds(s), value);
  const double v = value.get<double>();
  if (!std::isfinite(v) || (s.integer && std::trunc(v) != v) || (s.minimum && v < *s.minimum) ||
      (s.maximum && v > *s.maximum))
    fail(path, "expected " + number_bounds(s) + ", got " + ecmascript_number(v));
  return Json(v);
}

bool same_value(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

std::string allowed_values(const Shape& s) {
  std::string out;
  for (const auto& v : s.values) out += (out.empty() ? "" : ", ") + compact_json(v);
  return out;
}

Json conform_array(Json value, const Shape& s, const JsonPath& path) {
  if (!value.is_array()) wrong_type(path, "an array", value);
  if (value.size() < s.min_items || value.size() > s.max_items) {
    const std::string bound = s.min_items == s.max_items ? "exactly " + std::to_string(s.min_items)
                              : value.size() < s.min_items ? "at least " + std::to_string(s.min_items)
                                                            : "at most " + std::to_string(s.max_items);
    fail(path, "expected " + bound + " items, got " + std::to_string(value.size()));
  }
  for (std::size_t i = 0; i < value.size(); ++i) value[i] = conform(std::move(value[i]), *s.element, path.element(i));
  return value;
}

// True when the members are a subsequence of the fields in schema order, every member is
// known, and no default is missing: then the object can be conformed in place.
bool in_schema_order(const Json::object_t& members, const Shape& s) {
  std::size_t field = 0;
  for (const auto& member : members) {
    while (field < s.fields.size() && s.fields[field].name != member.first) {
      if (s.fields[field].default_value) return false;
      ++field;
    }
    if (field == s.fields.size()) return false;
    ++field;
  }
  for (; field < s.fields.size(); ++field)
    if (s.fields[field].default_value) return false;
  return true;
}

Json conform_object(Json value, const Shape& s, const JsonPath& path) {
  if (!value.is_object()) wrong_type(path, "an object", value);
  auto& members = value.get_ref<Json::object_t&>();
  if (s.strict && in_schema_order(members, s)) {
    // The common case (files written in schema order): no rebuild, no copies.
    std::size_t field = 0;
    for (auto& member : members) {
      while (s.fields[field].name != member.first) {
        if (s.fields[field].required) fail(path, "missing required key \"" + s.fields[field].name + "\"");
        ++field;
      }
      member.second = conform(std::move(member.second), *s.fields[field].shape, path.member(s.fields[field].name));
      ++field;
    }
    for (; field < s.fields.size(); ++field)
      if (s.fields[field].required) fail(path, "missing required key \"" + s.fields[field].name + "\"");
    if (s.refine) s.refine(value, path);
    return value;
  }
  for (const auto& member : members) {
    if (!s.strict) break;
    bool known = false;
    for (const auto& field : s.fields) known = known || field.name == member.first;
    if (!known) fail(path.member(member.first), "unknown key \"" + member.first + "\"");
  }
  Json out = Json::object();
  auto& out_members = out.get_ref<Json::object_t&>();
  out_members.reserve(s.fields.size());
  for (const auto& field : s.fields) {
    auto it = members.find(field.name);
    if (it == members.end()) {
      if (field.default_value) {
        out_members.emplace_back(field.name, *field.default_value);
      } else if (field.required) {
        fail(path, "missing required key \"" + field.name + "\"");
      }
      continue;
    }
    out_members.emplace_back(field.name, conform(std::move(it->second), *field.shape, path.member(field.name)));
  }
  if (s.refine) s.refine(out, path);
  return out;
}

Json conform_map(Json value, const Shape& s, const JsonPath& path) {
  if (!value.is_object()) wrong_type(path, "an object", value);
  for (auto& member : value.get_ref<Json::object_t&>()) {
    const std::size_t units = utf16_length(member.first);
    if (units < s.min_key_length || units > s.max_key_length)
      fail(path.member(member.first), "key must have " + std::to_string(s.min_key_length) + ".." +
                                          std::to_string(s.max_key_length) + " characters");
    member.second = conform(std::move(member.second), *s.element, path.member(member.first));
  }
  return value;
}

Json conform_tagged(Json value, const Shape& s, const JsonPath& path) {
  if (!value.is_object()) wrong_type(path, "an object", value);
  auto it = value.find(s.tag);
  std::string allowed;
  for (const auto& [name, branch] : s.branches) {
    if (it != value.end() && it->is_string() && it->get_ref<const std::string&>() == name)
      return conform(std::move(value), *branch, path);
    allowed += (allowed.empty() ? "\"" : ", \"") + name + "\"";
  }
  fail(path.member(s.tag), "expected one of " + allowed);
}

}  // namespace

std::string JsonPath::str() const {
  if (parent == nullptr) return "$";
  std::string out = parent->str();
  if (is_index) {
    out += "[" + std::to_string(index) + "]";
  } else if (plain_name(key)) {
    out += ".";
    out += key;
  } else {
    out += "[";
    append_json_string(out, key);
    out += "]";
  }
  return out;
}

Json conform(Json value, const Shape& s, const JsonPath& path) {
  switch (s.kind) {
    case ShapeKind::string: return conform_string(std::move(value), s, path);
    case ShapeKind::number: return conform_number(value, s, path);
    case ShapeKind::boolean:
      if (!value.is_boolean()) wrong_type(path, "a boolean", value);
      return value;
    case ShapeKind::constant:
    case ShapeKind::enumeration:
      for (const auto& allowed : s.values)
        if (same_value(value, allowed)) return allowed;
      fail(path, (s.values.size() == 1 ? "expected " : "expected one of ") + allowed_values(s) + ", got " +
                     (value.is_structured() ? type_name(value) : compact_json(value)));
    case ShapeKind::array: return conform_array(std::move(value), s, path);
    case ShapeKind::object: return conform_object(std::move(value), s, path);
    case ShapeKind::map: return conform_map(std::move(value), s, path);
    case ShapeKind::nullable: return value.is_null() ? value : conform(std::move(value), *s.element, path);
    case ShapeKind::either:
      return value.is_string() ? conform(std::move(value), *s.string_form, path)
                               : conform(std::move(value), *s.object_form, path);
    case ShapeKind::tagged: return conform_tagged(std::move(value), s, path);
  }
  fail(path, "unsupported shape");
}

Json conform(Json value, const Shape& shape) { return conform(std::move(value), shape, JsonPath{}); }

std::optional<Json> conformed_text(std::string_view text, const Shape& shape) {
  try {
    return conform(parse_json(text), shape);
  } catch (const Error&) {
    return std::nullopt;
  }
}

ShapePtr text(TextRule rule) {
  Shape s;
  s.text_rule = rule;
  return make(std::move(s));
}

ShapePtr text(std::size_t min_length, std::size_t max_length) {
  Shape s;
  s.min_length = min_length;
  s.max_length = max_length;
  return make(std::move(s));
}

ShapePtr integer(std::optional<double> minimum, std::optional<double> maximum) {
  Shape s;
  s.kind = ShapeKind::number;
  s.integer = true;
  s.minimum = minimum;
  s.maximum = maximum;
  return make(std::move(s));
}

ShapePtr number(std::optional<double> minimum, std::optional<double> maximum) {
  Shape s;
  s.kind = ShapeKind::number;
  s.minimum = minimum;
  s.maximum = maximum;
  return make(std::move(s));
}

ShapePtr boolean() {
  Shape s;
  s.kind = ShapeKind::boolean;
  return make(std::move(s));
}

ShapePtr constant(Json value) {
  Shape s;
  s.kind = ShapeKind::constant;
  if (value.is_number()) value = Json(value.get<double>());
  s.values.push_back(std::move(value));
  return make(std::move(s));
}

ShapePtr enumeration(std::vector<std::string> values) {
  Shape s;
  s.kind = ShapeKind::enumeration;
  for (auto& v : values) s.values.emplace_back(std::move(v));
  return make(std::move(s));
}

ShapePtr array_of(ShapePtr element, std::size_t min_items, std::size_t max_items) {
  Shape s;
  s.kind = ShapeKind::array;
  s.element = std::move(element);
  s.min_items = min_items;
  s.max_items = max_items;
  return make(std::move(s));
}

ShapePtr object(std::vector<Field> fields, std::function<void(const Json&, const JsonPath&)> refine) {
  Shape s;
  s.kind = ShapeKind::object;
  s.fields = std::move(fields);
  s.refine = std::move(refine);
  return make(std::move(s));
}

ShapePtr lenient_object(std::vector<Field> fields) {
  Shape s;
  s.kind = ShapeKind::object;
  s.fields = std::move(fields);
  s.strict = false;
  return make(std::move(s));
}

ShapePtr map_of(ShapePtr value, std::size_t min_key_length, std::size_t max_key_length) {
  Shape s;
  s.kind = ShapeKind::map;
  s.element = std::move(value);
  s.min_key_length = min_key_length;
  s.max_key_length = max_key_length;
  return make(std::move(s));
}

ShapePtr nullable(ShapePtr inner) {
  Shape s;
  s.kind = ShapeKind::nullable;
  s.element = std::move(inner);
  return make(std::move(s));
}

ShapePtr either(ShapePtr string_form, ShapePtr object_form) {
  Shape s;
  s.kind = ShapeKind::either;
  s.string_form = std::move(string_form);
  s.object_form = std::move(object_form);
  return make(std::move(s));
}

ShapePtr tagged(std::string tag, std::vector<std::pair<std::string, ShapePtr>> branches) {
  Shape s;
  s.kind = ShapeKind::tagged;
  s.tag = std::move(tag);
  s.branches = std::move(branches);
  return make(std::move(s));
}

Field required(std::string name, ShapePtr shape) { return Field{std::move(name), std::move(shape), true, std::nullopt}; }
Field optional(std::string name, ShapePtr shape) { return Field{std::move(name), std::move(shape), false, std::nullopt}; }
Field defaulted(std::string name, ShapePtr shape, Json default_value) {
  return Field{std::move(name), std::move(shape), false, std::move(default_value)};
}

}  // namespace strata::model
