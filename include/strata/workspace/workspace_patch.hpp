#pragma once
// --keep-workspace-diff: an execution's changes as one patch in git's format, each changed file a
// single whole-file hunk (no line matching: the patch is evidence to read and apply, not a
// minimal diff). Binary files (a NUL byte) are named, not shown.
#include <string>

#include "strata/workspace/tree_changes.hpp"

namespace strata::workspace {

// Writes the patch of `changes` to `path` (atomically: temp file, fsync, rename).
void write_patch(const TreeChanges& changes, const std::string& path);

}  // namespace strata::workspace
