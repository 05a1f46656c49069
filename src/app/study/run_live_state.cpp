#include "strata/app/study/run_live_state.hpp"

#include <unistd.h>

#include "strata/error.hpp"
#include "strata/store/artifact_file.hpp"

namespace strata::app {

std::string live_state_path_for(const std::string& ledger_path) { return ledger_path + ".live"; }

bool write_live_state(const std::string& ledger_path, const model::Json& state) {
  try {
    store::write_file_atomically(live_state_path_for(ledger_path), state.dump() + "\n", /*synced=*/false);
    return true;
  } catch (const Error&) {
    return false;
  }
}

void remove_live_state(const std::string& ledger_path) { ::unlink(live_state_path_for(ledger_path).c_str()); }

}  // namespace strata::app
