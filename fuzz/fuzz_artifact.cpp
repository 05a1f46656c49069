// Every sealed artifact kind as `strata <kind> <file>`, `strata verify` and `strata run`
// read it: parse_json + parse_artifact (parse_ledger for a ledger), and verify_document.
//
// Input: the first byte selects the reader (byte % 8): 0 provider config, 1 repository
// config, 2 task suite, 3 run plan, 4 observation, 5 ledger, 6 protocol, 7 `strata verify`
// (kind from the document's "type"); the rest is the file.
//
// Invariants, for a document that parses:
//  - only strata::Error escapes a parser (a journal or CLI catch of Error must suffice);
//  - its stored contentHash is the content hash of the parsed value;
//  - the value written compact or pretty parses again to the same compact text;
//  - verify_document agrees (known kind, no top-level mismatch), and conversely a document
//    that verify_document passes without a top-level mismatch parses;
//  - sealing the payload again (create_artifact, when its create-time checks pass) gives
//    the same artifact;
//  - ledger: the incremental LedgerHasher, its saved/restored state, the hasher extended by
//    the last observation, and seal_checked_ledger all reproduce the stored contentHash.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fuzz_support.hpp"
#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/ledger_hasher.hpp"
#include "strata/model/study/verification.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_artifact {

using namespace strata;
using model::ArtifactKind;
using model::Json;

namespace {

constexpr std::array<ArtifactKind, 7> kKinds = {ArtifactKind::provider_config, ArtifactKind::repository_config,
                                                ArtifactKind::task_suite,      ArtifactKind::run_plan,
                                                ArtifactKind::observation,     ArtifactKind::ledger,
                                                ArtifactKind::protocol};

const std::string& stored_hash(const Json& artifact) { return artifact["contentHash"].get_ref<const std::string&>(); }

Json parse_as(ArtifactKind kind, Json document) {
  if (kind == ArtifactKind::ledger) {
    std::unique_ptr<model::LedgerHasher> hasher;
    return model::parse_ledger(std::move(document), hasher);
  }
  return model::parse_artifact(kind, std::move(document));
}

// The text written by `layout` must parse back, as the same kind, to the same value.
template <class Layout>
void check_round_trip(ArtifactKind kind, const Json& artifact, const std::string& compact, Layout layout, const char* name) {
  const std::string text = layout(artifact);
  Json again;
  try {
    again = parse_as(kind, model::parse_json(text));
  } catch (const Error& e) {
    FUZZ_CHECK(false, std::string(name) + " text of a parsed artifact does not parse again: " + e.describe());
  }
  FUZZ_CHECK(model::compact_json(again) == compact, std::string(name) + " round trip changed the artifact");
}

void check_ledger_hashes(const Json& document, const Json& ledger) {
  const std::string& hash = stored_hash(ledger);
  std::unique_ptr<model::LedgerHasher> hasher;
  model::parse_ledger(document, hasher);
  FUZZ_CHECK(hasher && hasher->hash() == hash, "LedgerHasher disagrees with the stored hash");

  const auto restored = model::LedgerHasher::restore(ledger, hasher->saved_state());
  FUZZ_CHECK(restored && restored->hash() == hash, "LedgerHasher saved/restored state gives another hash");

  const Json& observations = ledger["observations"];
  if (!observations.empty()) {
    Json shorter = ledger;
    shorter["observations"].erase(shorter["observations"].size() - 1);
    model::LedgerHasher extended(shorter);
    extended.append(observations.back());
    FUZZ_CHECK(extended.hash() == hash, "LedgerHasher::append of the last observation gives another hash");
  }

  Json resealed;
  try {
    resealed = model::seal_checked_ledger(ledger["ledgerVersion"].get<std::string>(), observations.get<std::vector<Json>>());
  } catch (const Error& e) {
    FUZZ_CHECK(false, "seal_checked_ledger refused a parsed ledger's observations: " + e.describe());
  }
  FUZZ_CHECK(stored_hash(resealed) == hash, "seal_checked_ledger gives another hash than the parsed ledger's");
}

void check_parsed(ArtifactKind kind, const Json& document, const Json& artifact) {
  FUZZ_CHECK(artifact.is_object() && artifact.contains("contentHash"), "parsed artifact has no contentHash");
  const std::string& hash = stored_hash(artifact);
  FUZZ_CHECK(model::content_hash(artifact) == hash, "parsed artifact's stored hash does not verify");
  FUZZ_CHECK(artifact["contentHashAlgo"] == std::string(model::kContentHashAlgo), "parsed artifact has another hash algorithm");

  const std::string compact = model::compact_json(artifact);
  check_round_trip(kind, artifact, compact, [](const Json& v) { return model::compact_json(v); }, "compact");
  check_round_trip(kind, artifact, compact, [](const Json& v) { return model::pretty_json(v); }, "pretty");

  model::Verification verification;
  try {
    verification = model::verify_document(document);
  } catch (const Error& e) {
    FUZZ_CHECK(false, "verify_document refused a document that parses: " + e.describe());
  }
  FUZZ_CHECK(verification.known_kind && verification.content_hash == hash, "verify_document computed another hash");
  for (const auto& mismatch : verification.mismatches)
    FUZZ_CHECK(mismatch.path != "$.contentHash", "verify_document reports a hash mismatch for a document that parses");

  Json payload = artifact;
  payload.erase("contentHash");
  payload.erase("contentHashAlgo");
  try {
    const Json resealed = model::create_artifact(kind, std::move(payload));
    FUZZ_CHECK(model::compact_json(resealed) == compact, "sealing the parsed payload again gives another artifact");
  } catch (const Error&) {
    // create-time semantic checks are stricter than parse-time ones (spec §1): allowed
  }

  if (kind == ArtifactKind::ledger) check_ledger_hashes(document, artifact);
}

}  // namespace

int test_one_input(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned selector = data[0] % 8;
  Json document;
  try {
    document = model::parse_json(fuzz::as_text(data + 1, size - 1));
  } catch (const Error&) {
    return 0;
  }

  if (selector == 7) {  // strata verify: the kind comes from "type"
    model::Verification verification;
    try {
      verification = model::verify_document(document);
    } catch (const Error&) {
      return 0;
    }
    FUZZ_CHECK(verification.content_hash == model::content_hash(document), "verify_document hashed another value");
    const bool top_level_ok = std::none_of(verification.mismatches.begin(), verification.mismatches.end(),
                                           [](const auto& m) { return m.path == "$.contentHash"; });
    if (verification.known_kind && top_level_ok) {
      const ArtifactKind kind = model::find_artifact_by_type(verification.type)->kind;
      Json artifact;
      try {
        artifact = parse_as(kind, document);
      } catch (const Error& e) {
        FUZZ_CHECK(false, "verify_document passed a document its kind's parser refuses: " + e.describe());
      }
      check_parsed(kind, document, artifact);
    }
    return 0;
  }

  const ArtifactKind kind = kKinds[selector];
  Json artifact;
  try {
    artifact = parse_as(kind, document);
  } catch (const Error&) {
    return 0;
  }
  check_parsed(kind, document, artifact);
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("artifact", &test_one_input);

}  // namespace fuzz_artifact
