#include "strata/app/results/ledger_export.hpp"

#include <set>

#include "strata/model/results/export_row.hpp"

namespace strata::app {

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
