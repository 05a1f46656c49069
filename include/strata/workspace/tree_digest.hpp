#pragma once
// The digest of a repository's files (issue 26, part 3) when it is not a clean git checkout:
// "files-sha256:<hex>" over every entry but the top-level .git, in byte order of path, with its
// type, executable bit, and content (a link's target). Reads every byte: a blocking walk.
#include <string>

namespace strata::workspace {

std::string files_digest(const std::string& root);

}  // namespace strata::workspace
