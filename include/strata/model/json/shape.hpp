#pragma once
// A declarative description of an artifact's shape (the role zod plays upstream).
// One description drives three things: strict validation with the JSON path of the
// first problem, normalisation (schema member order, defaults materialised, numbers as
// doubles), and the JSON Schemas under schemas/.
#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/model/json/json.hpp"
#include "strata/model/json/text_rules.hpp"

namespace strata::model {

// A JSON path built on the stack while validating; rendered only for an error.
struct JsonPath {
  const JsonPath* parent = nullptr;
  std::string_view key;  // member name (when !is_index)
  std::size_t index = 0;
  bool is_index = false;

  JsonPath member(std::string_view name) const { return JsonPath{this, name, 0, false}; }
  JsonPath element(std::size_t i) const { return JsonPath{this, {}, i, true}; }
  std::string str() const;  // "$.tasks[3].id"
};

struct Shape;
using ShapePtr = std::shared_ptr<const Shape>;

struct Field {
  std::string name;
  ShapePtr shape;
  bool required = true;
  std::optional<Json> default_value;  // written when the member is absent
};

enum class ShapeKind { string, number, boolean, constant, enumeration, array, object, map, nullable, either, tagged };

struct Shape {
  ShapeKind kind = ShapeKind::string;
  // string
  TextRule text_rule = TextRule::any;
  std::size_t min_length = 0, max_length = 0;  // UTF-16 units; max 0 = unbounded
  // number
  bool integer = false;
  std::optional<double> minimum, maximum;
  // constant (one value) / enumeration (several)
  std::vector<Json> values;
  // array elements / map values / nullable inner
  ShapePtr element;
  std::size_t min_items = 0, max_items = std::numeric_limits<std::size_t>::max();
  // object; a non-strict object drops unknown members instead of refusing them
  std::vector<Field> fields;
  bool strict = true;
  // Cross-field rules (upstream "refine"): throw strata::Error(message, path.str()).
  std::function<void(const Json&, const JsonPath&)> refine;
  // map keys
  std::size_t min_key_length = 1, max_key_length = 128;
  // either: a string form and an object form, chosen by the JSON type
  ShapePtr string_form, object_form;
  // tagged union on one member
  std::string tag;
  std::vector<std::pair<std::string, ShapePtr>> branches;
};

// Builders.
ShapePtr text(TextRule rule);
ShapePtr text(std::size_t min_length, std::size_t max_length);
ShapePtr integer(std::optional<double> minimum, std::optional<double> maximum = std::nullopt);
ShapePtr number(std::optional<double> minimum, std::optional<double> maximum = std::nullopt);
ShapePtr boolean();
ShapePtr constant(Json value);
ShapePtr enumeration(std::vector<std::string> values);
ShapePtr array_of(ShapePtr element, std::size_t min_items = 0,
                  std::size_t max_items = std::numeric_limits<std::size_t>::max());
ShapePtr object(std::vector<Field> fields, std::function<void(const Json&, const JsonPath&)> refine = {});
ShapePtr lenient_object(std::vector<Field> fields);
ShapePtr map_of(ShapePtr value, std::size_t min_key_length, std::size_t max_key_length);
ShapePtr nullable(ShapePtr inner);
ShapePtr either(ShapePtr string_form, ShapePtr object_form);
ShapePtr tagged(std::string tag, std::vector<std::pair<std::string, ShapePtr>> branches);

Field required(std::string name, ShapePtr shape);
Field optional(std::string name, ShapePtr shape);
Field defaulted(std::string name, ShapePtr shape, Json default_value);

// Validates `value` against `shape` and returns it normalised. Throws strata::Error with
// the JSON path of the first problem as its location.
Json conform(Json value, const Shape& shape, const JsonPath& path);
Json conform(Json value, const Shape& shape);

// The JSON text parsed and conformed to `shape`, or nullopt when either step fails.
std::optional<Json> conformed_text(std::string_view text, const Shape& shape);

// The JSON Schema (draft 2020-12 vocabulary) describing the shape.
Json json_schema(const Shape& shape);

}  // namespace strata::model
