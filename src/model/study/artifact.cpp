#include "strata/model/study/artifact.hpp"

#include "strata/error.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/study/ledger_hasher.hpp"

#include <functional>

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

namespace {

// The validated payload with its seal appended (schema order: contentHash, then
// contentHashAlgo). Members are moved into a new object sized for the seal: growing the
// old one would deep-copy every member (the element type has a const key).
// `hash_of` computes the contentHash of the sealed artifact (its own member is skipped).
Json with_seal(Json payload, std::string (*hash_of)(const Json&) = content_hash) {
  auto& members = payload.get_ref<Json::object_t&>();
  Json sealed = Json::object();
  auto& out = sealed.get_ref<Json::object_t&>();
  out.reserve(members.size() + 2);
  for (auto& member : members) out.emplace_back(member.first, std::move(member.second));
  out.emplace_back("contentHash", "");  // the hash never covers its own member
  out.emplace_back("contentHashAlgo", std::string(kContentHashAlgo));
  (out.end() - 2)->second = hash_of(sealed);
  return sealed;
}

// A ledger's contentHash, hashed an observation at a time: a large ledger's canonical text is
// never held whole in memory.
std::string ledger_content_hash(const Json& ledger) { return LedgerHasher(ledger).hash(); }

}  // namespace

Json create_artifact(ArtifactKind kind, Json payload) {
  const auto& spec = artifact_spec(kind);
  check_type(spec, payload);
  Json sealed = with_seal(conform(std::move(payload), *spec.payload));
  check_semantics(kind, sealed, false);
  return sealed;
}

Json seal_checked_ledger(const std::string& ledger_version, std::vector<Json> observations) {
  if (observations.size() > kMaxLedgerObservations)
    throw Error("A ledger holds at most 100000 observations; this one would hold " + std::to_string(observations.size()) + ".");
  Json ledger = {{"type", "controlled-study-observation-ledger"}, {"schemaVersion", 1.0}, {"ledgerVersion", ledger_version}};
  ledger["observations"] = Json(std::move(observations));
  Json sealed = with_seal(std::move(ledger), ledger_content_hash);
  check_semantics(ArtifactKind::ledger, sealed, false);
  return sealed;
}

Json ledger_without_observations(const std::string& ledger_version) {
  return Json{{"type", "controlled-study-observation-ledger"},
              {"schemaVersion", 1.0},
              {"ledgerVersion", ledger_version},
              {"observations", Json::array()},
              {"contentHashAlgo", std::string(kContentHashAlgo)}};
}

namespace {

Json parse_with(ArtifactKind kind, Json document, const std::function<std::string(const Json&)>& hash_of) {
  const auto& spec = artifact_spec(kind);
  check_type(spec, document);
  Json artifact = conform(std::move(document), *spec.sealed);
  const std::string computed = hash_of(artifact);
  if (artifact["contentHash"].get_ref<const std::string&>() != computed)
    throw Error(hash_mismatch_message(kind, computed), "$.contentHash");
  check_semantics(kind, artifact, true);
  return artifact;
}

}  // namespace

Json parse_artifact(ArtifactKind kind, Json document) {
  return parse_with(kind, std::move(document), [](const Json& artifact) { return content_hash(artifact); });
}

Json parse_ledger(Json document, std::unique_ptr<LedgerHasher>& hasher) {
  return parse_with(ArtifactKind::ledger, std::move(document), [&hasher](const Json& ledger) {
    hasher = std::make_unique<LedgerHasher>(ledger);
    return hasher->hash();
  });
}

}  // namespace strata::model
