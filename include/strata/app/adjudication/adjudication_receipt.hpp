#pragma once
// <output>.adjudication-receipt: what a completed `strata adjudicate` wrote, so that the same
// command run again (after it finished, or after a kill between writing the output and printing
// its summary) judges nothing twice, and a different batch does not silently replace it
// (docs/DECISIONS.md "An adjudication that never bills twice").
#include <cstddef>
#include <optional>
#include <string>

#include "strata/model/adjudication/adjudication.hpp"
#include "strata/model/json/json.hpp"
#include "strata/model/study/shard.hpp"

namespace strata::app {

struct AdjudicationReceipt {
  std::string input;          // the input ledger's contentHash
  std::string configuration;  // the provider config's contentHash (the adjudicator)
  model::Json selection;      // selection_json() of the batch
  std::string output;         // the output ledger's contentHash
};

std::string receipt_path(const std::string& output_path);

// {"runId", "offset", "limit", "shard"}, null where not given: what selects a batch.
model::Json selection_json(const model::BatchSelection& selection, const std::optional<model::Shard>& shard);

// The receipt beside `output_path`; nullopt when there is none or it cannot be read (a receipt
// is only a shortcut: without it the batch is judged as before).
std::optional<AdjudicationReceipt> read_receipt(const std::string& output_path);

// Written whole and renamed into place (never half a receipt), after the output is durable.
void write_receipt(const std::string& output_path, const AdjudicationReceipt& receipt);

// The output ledger's seal and observation count, the file verified as it is read; nullopt
// when it is missing or does not verify.
struct VerifiedOutput {
  std::string content_hash;
  std::size_t observations = 0;
};
std::optional<VerifiedOutput> verified_output(const std::string& output_path);

// What differs between a receipt and this batch, for the refusal: "input ledger 1a2b3c4d5e6f
// (not 9f8e7d6c5b4a)", "adjudicator configuration ...", "selection ...", joined by "; ".
std::string receipt_differences(const AdjudicationReceipt& receipt, const std::string& input, const std::string& configuration,
                                const model::Json& selection);

}  // namespace strata::app
