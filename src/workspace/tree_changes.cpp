#include "strata/workspace/tree_changes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "strata/error.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/workspace/tree_entries.hpp"

namespace strata::workspace {
namespace {

namespace fs = std::filesystem;
using Kind = TreeChange::Kind;

std::optional<struct stat> entry(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return std::nullopt;
  return info;
}

// The names in `directory`, sorted, or none when it cannot be listed.
std::vector<std::string> names_in(const std::string& directory) {
  std::error_code ignored;
  return sorted_names(directory, ignored);
}

std::string joined(const std::string& relative, const std::string& name) {
  return relative.empty() ? name : relative + "/" + name;
}

bool same_bytes(const std::string& a, const std::string& b) {
  const store::FileDescriptor one(::open(a.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  const store::FileDescriptor two(::open(b.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (one.get() < 0 || two.get() < 0) return false;
  std::string x(1 << 16, '\0'), y(1 << 16, '\0');
  for (;;) {
    const ssize_t m = ::read(one.get(), x.data(), x.size());
    if (m < 0) return false;
    ssize_t n = 0;
    while (n < m) {  // the same count from the other file (a short read is not a difference)
      const ssize_t got = ::read(two.get(), y.data() + n, static_cast<std::size_t>(m - n));
      if (got <= 0) return false;
      n += got;
    }
    if (m == 0) return ::read(two.get(), y.data(), 1) == 0;
    if (std::memcmp(x.data(), y.data(), static_cast<std::size_t>(m)) != 0) return false;
  }
}

// Same type and content (a file's bytes, a link's target).
bool same_content(const std::string& a, const struct stat& ia, const std::string& b, const struct stat& ib) {
  if ((ia.st_mode & S_IFMT) != (ib.st_mode & S_IFMT)) return false;
  if (S_ISLNK(ia.st_mode)) return link_target(a).value_or("") == link_target(b).value_or("");
  if (S_ISREG(ia.st_mode)) return ia.st_size == ib.st_size && same_bytes(a, b);
  return true;
}

class ChangeList {
 public:
  void add(Kind kind, const std::string& relative, const std::string& before, const std::string& after) {
    if (!after.empty() && kind != Kind::deleted) {
      if (auto info = entry(after); info && S_ISREG(info->st_mode)) changes_.bytes += static_cast<std::uint64_t>(info->st_size);
    }
    changes_.files.push_back({relative, kind, before, after});
  }

  // Every non-directory entry under `root`/`relative` as one change of `kind`.
  void add_all(Kind kind, const std::string& root, const std::string& relative, bool root_is_before) {
    const std::string path = root + "/" + relative;
    const auto info = entry(path);
    if (!info) return;
    if (!S_ISDIR(info->st_mode)) {
      add(kind, relative, root_is_before ? path : "", root_is_before ? "" : path);
      return;
    }
    for (const auto& name : names_in(path)) add_all(kind, root, joined(relative, name), root_is_before);
  }

  TreeChanges done() {
    std::sort(changes_.files.begin(), changes_.files.end(),
              [](const TreeChange& a, const TreeChange& b) { return a.path < b.path; });
    return std::move(changes_);
  }

 private:
  TreeChanges changes_;
};

bool is_whiteout(const struct stat& info) { return S_ISCHR(info.st_mode) && info.st_rdev == makedev(0, 0); }

bool is_opaque(const std::string& directory) {
  char value[2] = {};
  for (const char* name : {"trusted.overlay.opaque", "user.overlay.opaque"})
    if (::lgetxattr(directory.c_str(), name, value, sizeof value) == 1 && value[0] == 'y') return true;
  return false;
}

// `relative` is a directory in upper; lower may hold one at the same place.
void overlay_directory(const std::string& lower, const std::string& upper, const std::string& relative, ChangeList& list) {
  const std::string upper_dir = upper + (relative.empty() ? "" : "/" + relative);
  const std::string lower_dir = lower + (relative.empty() ? "" : "/" + relative);
  const auto names = names_in(upper_dir);
  if (!relative.empty() && is_opaque(upper_dir)) {  // lower's entries here are gone unless upper has them
    for (const auto& name : names_in(lower_dir))
      if (!std::binary_search(names.begin(), names.end(), name)) list.add_all(Kind::deleted, lower, joined(relative, name), true);
  }
  for (const auto& name : names) {
    const std::string rel = joined(relative, name);
    const std::string up = upper + "/" + rel, low = lower + "/" + rel;
    const auto up_info = entry(up);
    if (!up_info) continue;
    const auto low_info = entry(low);
    if (is_whiteout(*up_info)) {
      if (low_info) list.add_all(Kind::deleted, lower, rel, true);
      continue;
    }
    if (S_ISDIR(up_info->st_mode)) {
      if (low_info && !S_ISDIR(low_info->st_mode)) list.add(Kind::deleted, rel, low, "");
      if (low_info && S_ISDIR(low_info->st_mode))
        overlay_directory(lower, upper, rel, list);
      else
        list.add_all(Kind::added, upper, rel, false);
      continue;
    }
    if (!low_info) {
      list.add(Kind::added, rel, "", up);
    } else if (S_ISDIR(low_info->st_mode)) {
      list.add_all(Kind::deleted, lower, rel, true);
      list.add(Kind::added, rel, "", up);
    } else if (!same_content(low, *low_info, up, *up_info)) {
      list.add(Kind::modified, rel, low, up);
    }
  }
}

void copy_directory(const std::string& original, const std::string& copy, const std::string& relative, ChangeList& list) {
  const std::string suffix = relative.empty() ? "" : "/" + relative;
  std::map<std::string, int> names;  // 1: original only, 2: copy only, 3: both
  for (const auto& name : names_in(original + suffix)) names[name] |= 1;
  for (const auto& name : names_in(copy + suffix)) names[name] |= 2;
  for (const auto& [name, where] : names) {
    const std::string rel = joined(relative, name);
    const std::string before = original + "/" + rel, after = copy + "/" + rel;
    if (where == 1) {
      list.add_all(Kind::deleted, original, rel, true);
      continue;
    }
    if (where == 2) {
      list.add_all(Kind::added, copy, rel, false);
      continue;
    }
    const auto a = entry(before), b = entry(after);
    if (!a || !b) continue;
    if (S_ISDIR(a->st_mode) && S_ISDIR(b->st_mode)) {
      copy_directory(original, copy, rel, list);
    } else if (S_ISDIR(a->st_mode) || S_ISDIR(b->st_mode)) {
      list.add_all(Kind::deleted, original, rel, true);
      list.add_all(Kind::added, copy, rel, false);
    } else if (S_ISREG(a->st_mode) && S_ISREG(b->st_mode) && a->st_size == b->st_size &&
               a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec) {
      continue;  // copy_tree kept the time: untouched
    } else if (!same_content(before, *a, after, *b)) {
      list.add(Kind::modified, rel, before, after);
    }
  }
}

}  // namespace

TreeChanges overlay_changes(const std::string& lower, const std::string& upper) {
  ChangeList list;
  overlay_directory(lower, upper, "", list);
  return list.done();
}

TreeChanges copy_changes(const std::string& original, const std::string& copy) {
  ChangeList list;
  copy_directory(original, copy, "", list);
  return list.done();
}

}  // namespace strata::workspace
