#pragma once
// `strata ledger merge` (issue 17, docs/SCALE-OUT.md): the ledgers of a sharded run or
// adjudication merged into one, as one machine would have written it.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"
#include "strata/store/ledger_source.hpp"

namespace strata::app {

struct MergeInput {
  std::string name;                     // as given, for messages
  const store::LedgerSource* ledger;    // verified, read an observation at a time
};

struct MergeRequest {
  std::vector<MergeInput> shards;       // in shard order
  std::optional<MergeInput> base;       // --base: the ledger an adjudication was sharded from
  const model::Json* plan = nullptr;    // --plan and --suite (both or neither)
  const model::Json* suite = nullptr;
  bool require_complete = false;        // needs plan and suite
  std::string output_path;
};

struct MergeOutcome {
  std::size_t observations = 0;  // written
  std::size_t duplicates = 0;    // byte-identical copies kept once
  std::size_t replaced = 0;      // base observations replaced by a shard's (--base)
  std::size_t runs = 0;
  std::string content_hash;      // of the output
};

// Merges, checks and writes (atomically, an observation at a time; nothing is written when a
// check fails). Order: per run in order of first appearance, the plan's run in selection order
// when a plan is given, other runs round-robin over the inputs (the shards' own order, so shards
// given in shard order come out in selection order); with a base, the base's order. Throws
// strata::Error for: a run with two plan hashes; an execution present twice with different
// bytes (both sources named); a shard observation absent from the base; inputs of different
// ledger versions; with a plan, the plan's run recorded under another plan hash or an
// observation the plan does not select; with require_complete, the selected executions missing.
MergeOutcome merge_ledgers(const MergeRequest& request);

}  // namespace strata::app
