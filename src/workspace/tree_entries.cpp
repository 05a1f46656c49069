#include "strata/workspace/tree_entries.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace strata::workspace {

std::vector<std::string> sorted_names(const std::string& directory, std::error_code& error) {
  std::vector<std::string> names;
  error.clear();
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end; it.increment(error))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> link_target(const std::string& path) {
  for (std::size_t size = 256;; size *= 2) {
    std::string target(size, '\0');
    const ssize_t length = ::readlink(path.c_str(), target.data(), target.size());
    if (length < 0) return std::nullopt;
    if (static_cast<std::size_t>(length) < size) {  // not cut short
      target.resize(static_cast<std::size_t>(length));
      return target;
    }
  }
}

}  // namespace strata::workspace
