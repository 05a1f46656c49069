#include "strata/app/results/ledger_selection.hpp"

#include <set>

#include "strata/error.hpp"

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

}  // namespace strata::app
