#pragma once
// The sealed artifacts of doc-bridge study format v1 (spec §1): create (seal) and parse
// (verify) for each kind, with the spec's messages.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/model/json/json.hpp"
#include "strata/model/json/shape.hpp"

namespace strata::model {

class LedgerHasher;

// verifier_config is Strata's own (docs/VERIFIER.md), sealed like the study's artifacts.
enum class ArtifactKind { provider_config, repository_config, task_suite, run_plan, observation, ledger, protocol, verifier_config };

struct ArtifactSpec {
  ArtifactKind kind;
  std::string_view type;           // value of the "type" member
  std::string_view name;           // CLI name: provider-config, task-suite, ...
  std::string_view hash_mismatch;  // message when the stored hash is wrong ("" = protocol form)
  ShapePtr payload;                // without contentHash / contentHashAlgo
  ShapePtr sealed;                 // payload + contentHash + contentHashAlgo
};

const ArtifactSpec& artifact_spec(ArtifactKind kind);
const std::vector<ArtifactSpec>& artifact_specs();
const ArtifactSpec* find_artifact_by_type(std::string_view type);
const ArtifactSpec* find_artifact_by_name(std::string_view name);

// Validates a payload, materialises defaults, seals it, validates the sealed value and
// runs the create-time semantic checks. Throws strata::Error.
Json create_artifact(ArtifactKind kind, Json payload);

inline constexpr std::size_t kMaxLedgerObservations = 100000;

// Seals a ledger of observations that are already valid sealed observations (they came
// from parse_artifact or create_artifact): only the count and the duplicate check run.
Json seal_checked_ledger(const std::string& ledger_version, std::vector<Json> observations);

// A ledger of this version without observations or contentHash: the members a LedgerHasher
// starts from when the observations come one at a time (type, schemaVersion, ledgerVersion,
// an empty observations array, contentHashAlgo).
Json ledger_without_observations(const std::string& ledger_version);

// Validates a sealed document, verifies its content hash, runs the parse-time checks.
Json parse_artifact(ArtifactKind kind, Json document);

// parse_artifact for a ledger, keeping the hash state so observations can be appended.
Json parse_ledger(Json document, std::unique_ptr<LedgerHasher>& hasher);

// The message for a wrong stored hash ("Invalid task-suite content hash." ...).
std::string hash_mismatch_message(ArtifactKind kind, const std::string& computed);

// Semantic checks of spec §1 (run after the shape is valid).
void check_semantics(ArtifactKind kind, const Json& artifact, bool on_parse);

}  // namespace strata::model
