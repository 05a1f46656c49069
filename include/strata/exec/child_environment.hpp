#pragma once
// The environment a provider or judge process gets (spec §3.4, §4.3): PATH, HOME, TMPDIR
// and the allowlisted names, deduplicated in that order, each only if it is set here.
// Nothing else is inherited.
#include <string>
#include <vector>

namespace strata::exec {

std::vector<std::string> allowlisted_environment(const std::vector<std::string>& allowlist);

}  // namespace strata::exec
