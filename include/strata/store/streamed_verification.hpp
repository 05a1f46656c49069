#pragma once
// `strata verify` of a ledger file an observation at a time (store/ledger_stream): the report
// model::verify_document gives for the whole document (the ledger's hash, then each nested
// observation's, mismatches in that order), without holding its parse tree, and with each
// observation written as canonical text once for both hashes.
#include <optional>
#include <string>

#include "strata/model/study/verification.hpp"

namespace strata::store {

// The verification of the ledger file at `path`, or nullopt when the streamed pass cannot
// decide (not a ledger, not a regular file, anything unusual or invalid: see ledger_stream.hpp).
// The caller then verifies the document whole, which gives the same report or the exact error;
// so whatever this returns equals model::verify_document(read_json_file(path)). Never throws.
std::optional<model::Verification> verify_ledger_streamed(const std::string& path);

}  // namespace strata::store
