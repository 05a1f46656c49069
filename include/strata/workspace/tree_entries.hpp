#pragma once
// Reading a tree's entries, as every walk of workspace/ does: a directory's names in byte order,
// and a symbolic link's target.
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace strata::workspace {

// The names in `directory` (not . and ..), sorted; `error` says when it could not be listed.
std::vector<std::string> sorted_names(const std::string& directory, std::error_code& error);

// The target of the link at `path`, whole however long; nullopt when it cannot be read.
std::optional<std::string> link_target(const std::string& path);

}  // namespace strata::workspace
