#include "strata/workspace/confinement.hpp"

#include <algorithm>
#include <filesystem>

namespace strata::workspace {
namespace {

namespace fs = std::filesystem;

// Is `path` inside (or equal to) `directory`? Both absolute and normal.
bool within(const std::string& path, const std::string& directory) {
  if (directory == "/") return true;
  return path == directory || (path.size() > directory.size() && path.compare(0, directory.size(), directory) == 0 &&
                               path[directory.size()] == '/');
}

bool inside_any(const std::string& path, const std::vector<std::string>& directories) {
  for (const auto& directory : directories)
    if (within(path, directory)) return true;
  return false;
}

// May `directory`, named by the environment, be shown writable? Not when it is a directory kept
// out, or lies in a tree kept out.
bool kept_out(const std::string& directory, const Confinement& c) {
  return inside_any(directory, c.kept_out_trees) ||
         std::find(c.kept_out_directories.begin(), c.kept_out_directories.end(), directory) != c.kept_out_directories.end();
}

std::size_t depth(const std::string& path) { return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/')); }

void add(std::vector<std::string>& argv, std::initializer_list<std::string> words) {
  argv.insert(argv.end(), words.begin(), words.end());
}

}  // namespace

std::vector<std::string> bwrap_arguments(const Confinement& c, const std::vector<std::string>& program_args) {
  std::vector<std::string> argv;
  // The provider and everything it starts die with bwrap, and bwrap with Strata; a PID namespace
  // of its own, so a background child cannot outlive the execution.
  add(argv, {"--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"});
  if (c.network_none) add(argv, {"--unshare-net"});
  add(argv, {"--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"});
  std::error_code ignored;
  for (const auto& directory : c.hidden)
    if (directory != "/" && directory != "/tmp" && fs::is_directory(directory, ignored)) add(argv, {"--tmpfs", directory});
  // Everything under a tmpfs: the hidden directories and /tmp, the provider's own.
  std::vector<std::string> masked = c.hidden;
  masked.push_back("/tmp");
  // What the environment names comes back where a mask hid it; elsewhere the read-only root shows
  // it already (a named directory stays read-only unless it is one the provider writes to).
  for (const auto& directory : c.named_read_only)
    if (inside_any(directory, masked) && fs::is_directory(directory, ignored)) add(argv, {"--ro-bind", directory, directory});
  // The named directories shown writable, and each directory kept out that one of them holds masked
  // again, outermost first: a bind never re-opens what a mask inside it hid, and a named directory
  // inside a mask (not kept out itself) is shown again after it.
  std::vector<std::string> bound, remasked;
  for (const auto& directory : c.named)
    if (directory != "/" && !kept_out(directory, c) && fs::is_directory(directory, ignored)) bound.push_back(directory);
  for (const auto* kept : {&c.kept_out_trees, &c.kept_out_directories})
    for (const auto& directory : *kept)
      if (directory != "/" && inside_any(directory, bound) && fs::is_directory(directory, ignored)) remasked.push_back(directory);
  std::vector<std::pair<std::string, const char*>> mounts;
  for (const auto& directory : bound) mounts.emplace_back(directory, "--bind");
  for (const auto& directory : remasked) mounts.emplace_back(directory, "--tmpfs");
  std::stable_sort(mounts.begin(), mounts.end(), [](const auto& a, const auto& b) { return depth(a.first) < depth(b.first); });
  for (const auto& [directory, kind] : mounts) {
    if (std::string(kind) == "--bind") add(argv, {"--bind", directory, directory});
    else add(argv, {"--tmpfs", directory});
  }
  for (const auto& directory : c.named_read_only)
    if (inside_any(directory, remasked) && fs::is_directory(directory, ignored)) add(argv, {"--ro-bind", directory, directory});
  masked.insert(masked.end(), remasked.begin(), remasked.end());
  if (!c.program.empty() && inside_any(c.program, masked)) add(argv, {"--ro-bind", c.program, c.program});
  const std::string& source = c.workspace.empty() ? c.repository : c.workspace;
  add(argv, {"--bind", source, c.repository});
  // A hidden directory inside the repository (a ledger kept in it) stays hidden in the view too.
  for (const auto& directory : c.hidden)
    if (within(directory, c.repository) && directory != c.repository) add(argv, {"--tmpfs", directory});
  for (const auto& [from, to] : c.read_only_mounts) add(argv, {"--ro-bind", from, to});
  for (const auto& [from, to] : c.writable_mounts) add(argv, {"--bind", from, to});
  add(argv, {"--chdir", c.repository, "--"});
  argv.insert(argv.end(), program_args.begin(), program_args.end());
  return argv;
}

}  // namespace strata::workspace
