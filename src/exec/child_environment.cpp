#include "strata/exec/child_environment.hpp"

#include <algorithm>
#include <cstdlib>

namespace strata::exec {

std::vector<std::string> allowlisted_environment(const std::vector<std::string>& allowlist) {
  std::vector<std::string> names{"PATH", "HOME", "TMPDIR"};
  for (const auto& name : allowlist)
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  std::vector<std::string> env;
  for (const auto& name : names)
    if (const char* value = std::getenv(name.c_str())) env.push_back(name + "=" + value);
  return env;
}

}  // namespace strata::exec
