#include "strata/workspace/tree_copy.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "strata/error.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/workspace/tree_entries.hpp"

namespace strata::workspace {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw Error("cannot make the workspace: " + what + ": " + std::strerror(errno), path);
}

void keep_times(int fd, const struct stat& info, const std::string& path) {
  const struct timespec times[2] = {info.st_atim, info.st_mtim};
  if (::futimens(fd, times) != 0) fail("cannot set the modification time", path);
}

// The plain way, from wherever copy_file_range left off.
void copy_by_reading(int in, int out, const std::string& from, const std::string& to) {
  std::string buffer(1 << 16, '\0');
  for (;;) {
    const ssize_t got = ::read(in, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("cannot read", from);
    if (got == 0) return;
    for (ssize_t done = 0; done < got;) {
      const ssize_t put = ::write(out, buffer.data() + done, static_cast<std::size_t>(got - done));
      if (put < 0 && errno == EINTR) continue;
      if (put < 0) fail("cannot copy", to);
      done += put;
    }
  }
}

void copy_file(const std::string& from, const std::string& to, const struct stat& info) {
  const store::FileDescriptor in(::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (in.get() < 0) fail("cannot read", from);
  const store::FileDescriptor out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, info.st_mode & 07777));
  if (out.get() < 0) fail("cannot create", to);
  // A reflink shares the extents (btrfs, xfs): constant time per file. Elsewhere the kernel copies.
  if (::ioctl(out.get(), FICLONE, in.get()) != 0) {
    off_t left = info.st_size;
    while (left > 0) {
      const ssize_t copied = ::copy_file_range(in.get(), nullptr, out.get(), nullptr, static_cast<size_t>(left), 0);
      if (copied < 0 && errno == EINTR) continue;
      if (copied < 0 && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL)) {
        copy_by_reading(in.get(), out.get(), from, to);  // across file systems (tmpfs to ext4, say)
        break;
      }
      if (copied < 0) fail("cannot copy", to);
      if (copied == 0) break;  // the source shrank while copied: the copy is what was there
      left -= copied;
    }
  }
  if (::fchmod(out.get(), info.st_mode & 07777) != 0) fail("cannot set the mode", to);
  keep_times(out.get(), info, to);
}

void copy_entry(const std::string& from, const std::string& to) {
  struct stat info {};
  if (::lstat(from.c_str(), &info) != 0) fail("cannot read", from);
  if (S_ISDIR(info.st_mode)) {
    if (::mkdir(to.c_str(), 0700) != 0) fail("cannot create", to);
    std::error_code error;
    for (fs::directory_iterator it(from, error), end; !error && it != end; it.increment(error))
      copy_entry(it->path().string(), to + "/" + it->path().filename().string());
    if (error) {
      errno = error.value();
      fail("cannot list", from);
    }
    const store::FileDescriptor dir(::open(to.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0 || ::fchmod(dir.get(), info.st_mode & 07777) != 0) fail("cannot set the mode", to);
    keep_times(dir.get(), info, to);
  } else if (S_ISREG(info.st_mode)) {
    copy_file(from, to, info);
  } else if (S_ISLNK(info.st_mode)) {
    const std::optional<std::string> target = link_target(from);
    if (!target) fail("cannot read the link", from);
    if (::symlink(target->c_str(), to.c_str()) != 0) fail("cannot create the link", to);
  }
  // Sockets, FIFOs and devices are not part of a source tree: skipped.
}

}  // namespace

void copy_tree(const std::string& from, const std::string& to) { copy_entry(from, to); }

bool remove_tree(const std::string& path) noexcept {
  std::error_code error;
  fs::remove_all(path, error);
  if (!error) return true;
  // A directory without write or search permission (an overlay's work/work is d---------) stops
  // remove_all for anyone but root: open everything up, then try again.
  for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, error), end;
       !error && it != end; it.increment(error)) {
    if (it->is_directory(error) && !it->is_symlink(error)) ::chmod(it->path().c_str(), 0700);
  }
  ::chmod(path.c_str(), 0700);
  error.clear();
  fs::remove_all(path, error);
  return !error;
}

}  // namespace strata::workspace
