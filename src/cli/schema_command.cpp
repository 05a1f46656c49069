// strata schema <name>: the JSON Schema of an artifact or payload, generated from the
// same shapes the validator uses (schemas/ holds their committed copies).
#include <memory>

#include "command.hpp"
#include "strata/model/study/payload_shapes.hpp"

namespace strata::cli {
namespace {

using model::Json;

struct NamedShape {
  std::string name;
  std::string title;
  const model::Shape* shape;
};

std::vector<NamedShape> schema_catalogue() {
  std::vector<NamedShape> out;
  for (const auto& spec : model::artifact_specs())
    out.push_back({std::string(spec.name), "doc-bridge study v1: " + std::string(spec.type), spec.sealed.get()});
  out.push_back({"provider-request", "doc-bridge study v1: provider request (stdin)", &model::provider_request_shape()});
  out.push_back({"provider-response", "doc-bridge study v1: provider response (stdout)", &model::provider_response_shape()});
  out.push_back({"adjudicator-request", "doc-bridge study v1: adjudicator request (stdin)",
                 &model::adjudicator_request_shape()});
  out.push_back({"adjudicator-response", "doc-bridge study v1: adjudicator response (stdout)",
                 &model::adjudicator_response_shape()});
  return out;
}

Json schema_document(const NamedShape& named) {
  Json schema = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                 {"$id", "https://strata.invalid/schemas/" + named.name + ".schema.json"},
                 {"title", named.title}};
  const Json body = model::json_schema(*named.shape);  // named: items() must not outlive it
  for (const auto& [key, value] : body.items()) schema[key] = value;
  return schema;
}

}  // namespace

void add_schema_command(CLI::App& app, Action& action) {
  auto name = std::make_shared<std::string>();
  std::vector<std::string> names;
  for (const auto& named : schema_catalogue()) names.push_back(named.name);
  auto* sub = app.add_subcommand("schema", "Print the JSON Schema of an artifact kind or process payload");
  sub->add_option("name", *name, "Schema name")->required()->check(CLI::IsMember(names));
  sub->callback([&action, name] {
    action = [name] {
      for (const auto& named : schema_catalogue())
        if (named.name == *name) print_json(schema_document(named));
      return 0;
    };
  });
}

}  // namespace strata::cli
