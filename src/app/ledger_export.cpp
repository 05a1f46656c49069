#include "strata/app/ledger_export.hpp"

#include <set>

#include "strata/error.hpp"
#include "strata/model/export_row.hpp"

namespace strata::app {

std::vector<std::size_t> select_observations(const store::LedgerSource& ledger, const std::vector<std::string>& run_ids,
                                             const std::string& ledger_path) {
  const std::set<std::string> wanted(run_ids.begin(), run_ids.end());
  std::set<std::string> found;
  std::vector<std::size_t> selection;
  for (std::size_t i = 0; i < ledger.size(); ++i) {
    const std::string& run_id = ledger.run_ids()[i];
    if (!wanted.empty() && wanted.count(run_id) == 0) continue;
    found.insert(run_id);
    selection.push_back(i);
  }
  for (const auto& run_id : run_ids)
    if (found.count(run_id) == 0) throw Error("Ledger " + ledger_path + " has no observations of run " + run_id + ".");
  return selection;
}

std::size_t export_observations(const store::LedgerSource& ledger, const std::vector<std::size_t>& selection,
                                ExportFormat format, const std::function<void(std::string_view)>& write) {
  static constexpr std::size_t kPiece = 1 << 20;
  std::string buffer;
  const auto emit = [&](std::string text) {
    buffer += text;
    if (buffer.size() >= kPiece) {
      write(buffer);
      buffer.clear();
    }
  };
  if (format == ExportFormat::jsonl) {
    for (const std::size_t i : selection) emit(model::jsonl_row(ledger.observation(i)));
  } else {
    std::set<std::string> measurement_names;
    for (const std::size_t i : selection) model::collect_measurement_names(ledger.observation(i), measurement_names);
    emit(model::csv_header(measurement_names));
    for (const std::size_t i : selection) emit(model::csv_row(ledger.observation(i), measurement_names));
  }
  if (!buffer.empty()) write(buffer);
  return selection.size();
}

}  // namespace strata::app
