#include "strata/model/study/verification.hpp"

#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::model {
namespace {


void check_generic_seal(const Json& document) {
  if (!document.is_object()) throw Error("not a sealed artifact: expected a JSON object");
  const auto algo = document.find("contentHashAlgo");
  if (algo == document.end() || *algo != std::string(kContentHashAlgo))
    throw Error("not a sealed artifact: contentHashAlgo must be \"sha256-normalized-v1\"", "$.contentHashAlgo");
  const auto hash = document.find("contentHash");
  if (hash == document.end() || !hash->is_string()) throw Error("not a sealed artifact: no contentHash", "$.contentHash");
}

}  // namespace

std::vector<HashMismatch> observation_mismatches(const Json& ledger) {
  std::vector<HashMismatch> out;
  const auto& observations = ledger["observations"];
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const std::string computed = content_hash(observations[i]);
    const std::string& stored = str(observations[i]["contentHash"]);
    if (computed != stored)
      out.push_back({"$.observations[" + std::to_string(i) + "].contentHash", stored, computed});
  }
  return out;
}

Verification verify_document(Json document) {
  Verification result;
  const auto type = document.is_object() ? document.find("type") : document.end();
  if (type != document.end() && type->is_string()) result.type = str(*type);
  const ArtifactSpec* spec = find_artifact_by_type(result.type);
  result.known_kind = spec != nullptr;
  if (spec != nullptr) {
    document = conform(std::move(document), *spec->sealed);
  } else {
    check_generic_seal(document);
  }
  result.content_hash = content_hash(document);
  const std::string& stored = str(document["contentHash"]);
  if (stored != result.content_hash) result.mismatches.push_back({"$.contentHash", stored, result.content_hash});
  if (spec != nullptr && spec->kind == ArtifactKind::ledger) {
    auto nested = observation_mismatches(document);
    result.mismatches.insert(result.mismatches.end(), nested.begin(), nested.end());
  }
  if (spec != nullptr) check_semantics(spec->kind, document, true);
  return result;
}

}  // namespace strata::model
