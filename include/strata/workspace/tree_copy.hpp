#pragma once
// Copying and removing a repository tree for `--workspace copy` (docs/WORKSPACES.md). Blocking
// file-system work: the run calls it on a thread pool, never on the event loop.
#include <string>

namespace strata::workspace {

// Copies the tree at `from` to `to` (which must not exist): directories, regular files (a
// reflink where the file system shares extents, else copy_file_range), symbolic links as links;
// modes and modification times kept, other file types skipped. Throws strata::Error naming the
// path that failed (ENOSPC included); the caller removes what was made.
void copy_tree(const std::string& from, const std::string& to);

// Removes `path` and everything under it, also directories without write permission (an overlay's
// work directory). Absent is fine. Returns false (and leaves what it could not remove) on failure.
bool remove_tree(const std::string& path) noexcept;

}  // namespace strata::workspace
