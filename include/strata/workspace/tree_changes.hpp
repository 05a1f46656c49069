#pragma once
// What an execution changed in its workspace, relative to the repository (issue 26, part 3):
// counted for the observation's measurements (files and bytes, never a path) and listed for
// --keep-workspace-diff. Blocking file-system work, run on a thread pool.
#include <cstdint>
#include <string>
#include <vector>

namespace strata::workspace {

struct TreeChange {
  enum class Kind { added, modified, deleted };
  std::string path;      // relative to the repository root, '/'-separated
  Kind kind = Kind::modified;
  std::string before;    // absolute path of the repository's entry (empty when added)
  std::string after;     // absolute path of the workspace's entry (empty when deleted)
};

struct TreeChanges {
  std::vector<TreeChange> files;  // in path order; directories are not counted, their files are
  std::uint64_t bytes = 0;        // size of every added or modified file's new content
};

// An overlay's upper directory against its lower one: a file in upper is added or (if its content
// or type differs from lower's) modified; a whiteout (character device 0:0) deletes; an opaque
// directory deletes every lower file under it that upper does not hold.
TreeChanges overlay_changes(const std::string& lower, const std::string& upper);

// A copy against its original, entry by entry (a file whose size and modification time are
// unchanged is taken as unchanged without reading it: copy_tree keeps modification times).
TreeChanges copy_changes(const std::string& original, const std::string& copy);

}  // namespace strata::workspace
