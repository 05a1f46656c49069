#pragma once
// What `strata verify` checks in one document: its shape, its content hash and, for a
// ledger, the hash of every nested observation. Mismatches are collected, not thrown.
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"

namespace strata::model {

struct HashMismatch {
  std::string path;  // "$.contentHash", "$.observations[7].contentHash"
  std::string stored;
  std::string computed;
};

struct Verification {
  std::string type;
  bool known_kind = false;  // false: an unknown sealed type, only its hash was checked
  std::string content_hash;
  std::vector<HashMismatch> mismatches;
};

// Throws strata::Error when the document is not a valid sealed artifact at all (bad
// shape, failed semantic check, no seal). Hash mismatches are returned.
Verification verify_document(Json document);

// The nested observations of a (shape-valid) ledger whose stored hash is wrong.
std::vector<HashMismatch> observation_mismatches(const Json& ledger);

}  // namespace strata::model
