#include "strata/app/adjudication/adjudication_receipt.hpp"

#include <exception>

#include "strata/error.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/ledger_source.hpp"

namespace strata::app {
namespace {

using model::Json;

std::string short_hash(const std::string& hash) { return hash.substr(0, 12); }

}  // namespace

std::string receipt_path(const std::string& output_path) { return output_path + ".adjudication-receipt"; }

Json selection_json(const model::BatchSelection& selection, const std::optional<model::Shard>& shard) {
  return {{"runId", selection.run_id ? Json(*selection.run_id) : Json(nullptr)},
          {"offset", selection.offset ? Json(*selection.offset) : Json(nullptr)},
          {"limit", selection.limit ? Json(*selection.limit) : Json(nullptr)},
          {"shard", shard ? Json(shard->text()) : Json(nullptr)}};
}

std::optional<AdjudicationReceipt> read_receipt(const std::string& output_path) {
  try {
    const Json receipt = model::parse_json(store::read_artifact_text(receipt_path(output_path)));
    return AdjudicationReceipt{model::str(receipt.at("input")), model::str(receipt.at("configuration")), receipt.at("selection"),
                               model::str(receipt.at("output"))};
  } catch (const std::exception&) {
    return std::nullopt;  // none, or not one Strata wrote
  }
}

void write_receipt(const std::string& output_path, const AdjudicationReceipt& receipt) {
  const Json text = {{"input", receipt.input},
                     {"configuration", receipt.configuration},
                     {"selection", receipt.selection},
                     {"output", receipt.output}};
  store::write_file_atomically(receipt_path(output_path), model::compact_json(text) + "\n");
}

std::optional<VerifiedOutput> verified_output(const std::string& output_path) {
  try {
    const std::unique_ptr<store::LedgerSource> output = store::LedgerSource::open_streamed(output_path);
    if (!output) return std::nullopt;  // not the layout Strata writes: not this receipt's output
    return VerifiedOutput{output->content_hash(), output->size()};
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::string receipt_differences(const AdjudicationReceipt& receipt, const std::string& input, const std::string& configuration,
                                const Json& selection) {
  std::string out;
  const auto add = [&out](const std::string& text) { out += (out.empty() ? "" : "; ") + text; };
  if (receipt.input != input) add("input ledger " + short_hash(receipt.input) + ", not " + short_hash(input));
  if (receipt.configuration != configuration)
    add("adjudicator configuration " + short_hash(receipt.configuration) + ", not " + short_hash(configuration));
  if (receipt.selection != selection)
    add("selection " + model::compact_json(receipt.selection) + ", not " + model::compact_json(selection));
  return out;
}

}  // namespace strata::app
