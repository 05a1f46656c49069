#include "strata/model/artifact.hpp"

#include "strata/error.hpp"
#include "strata/model/content_hash.hpp"

namespace strata::model {

const ArtifactSpec& artifact_spec(ArtifactKind kind) {
  for (const auto& spec : artifact_specs())
    if (spec.kind == kind) return spec;
  throw Error("unknown artifact kind");
}

const ArtifactSpec* find_artifact_by_type(std::string_view type) {
  for (const auto& spec : artifact_specs())
    if (spec.type == type) return &spec;
  return nullptr;
}

const ArtifactSpec* find_artifact_by_name(std::string_view name) {
  for (const auto& spec : artifact_specs())
    if (spec.name == name) return &spec;
  return nullptr;
}

std::string hash_mismatch_message(ArtifactKind kind, const std::string& computed) {
  const auto& spec = artifact_spec(kind);
  if (spec.hash_mismatch.empty()) return "Invalid content hash: expected " + computed + ".";
  return std::string(spec.hash_mismatch);
}

namespace {

// A document of another kind would fail on its first unknown member; say what it is instead.
void check_type(const ArtifactSpec& spec, const Json& document) {
  if (!document.is_object()) return;
  const auto type = document.find("type");
  if (type != document.end() && type->is_string() && type->get_ref<const std::string&>() != spec.type)
    throw Error("expected \"" + std::string(spec.type) + "\", got a \"" + type->get<std::string>() + "\" artifact",
                "$.type");
}

}  // namespace

Json create_artifact(ArtifactKind kind, Json payload) {
  const auto& spec = artifact_spec(kind);
  check_type(spec, payload);
  Json sealed = conform(std::move(payload), *spec.payload);
  sealed["contentHashAlgo"] = std::string(kContentHashAlgo);
  const std::string hash = content_hash(sealed);
  sealed.erase("contentHashAlgo");
  // Schema order: the seal members come last, contentHash first.
  sealed["contentHash"] = hash;
  sealed["contentHashAlgo"] = std::string(kContentHashAlgo);
  sealed = conform(std::move(sealed), *spec.sealed);
  check_semantics(kind, sealed, false);
  return sealed;
}

Json parse_artifact(ArtifactKind kind, Json document) {
  const auto& spec = artifact_spec(kind);
  check_type(spec, document);
  Json artifact = conform(std::move(document), *spec.sealed);
  const std::string computed = content_hash(artifact);
  if (artifact["contentHash"].get_ref<const std::string&>() != computed)
    throw Error(hash_mismatch_message(kind, computed), "$.contentHash");
  check_semantics(kind, artifact, true);
  return artifact;
}

}  // namespace strata::model
