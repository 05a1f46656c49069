#include "strata/workspace/workspace_patch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "strata/error.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/workspace/tree_entries.hpp"

namespace strata::workspace {
namespace {

using Kind = TreeChange::Kind;

struct Side {
  bool exists = false;
  bool link = false;
  unsigned mode = 0100644;
  std::string bytes;  // a file's content, a link's target
};

Side read_side(const std::string& path) {
  Side side;
  struct stat info {};
  if (path.empty() || ::lstat(path.c_str(), &info) != 0) return side;
  side.exists = true;
  if (S_ISLNK(info.st_mode)) {
    side.link = true;
    side.mode = 0120000;
    side.bytes = link_target(path).value_or("");
    return side;
  }
  side.mode = (info.st_mode & 0111) != 0 ? 0100755 : 0100644;
  const store::FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (file.get() < 0) throw Error(std::string("cannot read a changed file: ") + std::strerror(errno), path);
  store::read_file_pieces(file.get(), path, [&side](std::string_view piece) {
    side.bytes.append(piece);
    return true;
  });
  return side;
}

// The lines of `text` with `mark` before each; "\ No newline at end of file" where git puts it.
void hunk_lines(std::string& out, const std::string& text, char mark) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last_without_newline = end == std::string::npos;
    if (last_without_newline) end = text.size();
    out += mark;
    out.append(text, start, end - start);
    out += '\n';
    if (last_without_newline) out += "\\ No newline at end of file\n";
    start = end + 1;
  }
}

std::size_t line_count(const std::string& text) {
  if (text.empty()) return 0;
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return lines + (text.back() != '\n');
}

std::string range(std::size_t lines) { return lines == 0 ? "0,0" : "1," + std::to_string(lines); }

std::string octal(unsigned mode) {
  char text[16];
  std::snprintf(text, sizeof text, "%o", mode);
  return text;
}

void file_patch(std::string& out, const TreeChange& change) {
  const Side before = read_side(change.before);
  const Side after = read_side(change.after);
  const std::string& p = change.path;
  out += "diff --git a/" + p + " b/" + p + "\n";
  if (!before.exists) out += "new file mode " + octal(after.mode) + "\n";
  if (!after.exists) out += "deleted file mode " + octal(before.mode) + "\n";
  if (before.exists && after.exists && before.mode != after.mode)
    out += "old mode " + octal(before.mode) + "\nnew mode " + octal(after.mode) + "\n";
  if (before.exists && after.exists && before.bytes == after.bytes) return;  // a mode change only
  const bool binary = before.bytes.find('\0') != std::string::npos || after.bytes.find('\0') != std::string::npos;
  const std::string old_name = before.exists ? "a/" + p : "/dev/null";
  const std::string new_name = after.exists ? "b/" + p : "/dev/null";
  if (binary) {
    out += "Binary files " + old_name + " and " + new_name + " differ\n";
    return;
  }
  if (before.bytes.empty() && after.bytes.empty()) return;
  out += "--- " + old_name + "\n+++ " + new_name + "\n";
  out += "@@ -" + range(line_count(before.bytes)) + " +" + range(line_count(after.bytes)) + " @@\n";
  hunk_lines(out, before.bytes, '-');
  hunk_lines(out, after.bytes, '+');
}

}  // namespace

void write_patch(const TreeChanges& changes, const std::string& path) {
  std::string patch;
  for (const auto& change : changes.files) file_patch(patch, change);
  store::write_file_atomically(path, patch);
}

}  // namespace strata::workspace
