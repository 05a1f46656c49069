#include "strata/store/artifact_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <filesystem>

#include "strata/error.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/store/ledger_append.hpp"
#include "strata/store/fault_injection.hpp"

namespace strata::store {
namespace {

[[noreturn]] void fail_errno(const std::string& path, const std::string& what) {
  throw Error(what + ": " + std::strerror(errno), path);
}

void write_all(int fd, std::string_view content, const std::string& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(path, "cannot write");
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string read_artifact_text(const std::string& path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail_errno(path, "cannot read the file");
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) fail_errno(path, "cannot read the file");
  if (S_ISDIR(info.st_mode)) throw Error("is a directory, not a JSON file", path);
  const auto too_large = [&] { return Error("file is larger than the 512 MiB limit", path); };
  // A ledger's in-place append holds LOCK_EX while its bytes change (store/ledger_append).
  if (S_ISREG(info.st_mode) && (::flock(fd.get(), LOCK_SH) != 0 || ::fstat(fd.get(), &info) != 0))
    fail_errno(path, "cannot read the file");
  if (S_ISREG(info.st_mode) && static_cast<std::uintmax_t>(info.st_size) > kMaxArtifactBytes) throw too_large();
  // Regular files are read in one allocation; pipes (e.g. <(...)) grow until EOF.
  std::string text(S_ISREG(info.st_mode) ? static_cast<std::size_t>(info.st_size) : 64 * 1024, '\0');
  std::size_t done = 0;
  for (;;) {
    if (done == text.size()) {
      if (S_ISREG(info.st_mode) || text.size() > kMaxArtifactBytes) break;
      text.resize(std::min<std::size_t>(text.size() * 2, kMaxArtifactBytes + 1));
    }
    const ssize_t n = ::read(fd.get(), text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(path, "cannot read the file");
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done > kMaxArtifactBytes) throw too_large();
  text.resize(done);
  if (S_ISREG(info.st_mode)) apply_pending_undo(path, info.st_ino, text);
  return text;
}

std::string read_file_range(int fd, std::uint64_t offset, std::size_t length, const std::string& path) {
  std::string text(length, '\0');
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd, text.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(path, "cannot read the file");
    if (n == 0) throw Error("cannot read the file: it is shorter than when it was read before", path);
    done += static_cast<std::size_t>(n);
  }
  return text;
}

void read_file_pieces(int fd, const std::string& path, const std::function<bool(std::string_view)>& piece) {
  std::string buffer(1 << 20, '\0');
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(path, "cannot read the file");
    if (n == 0 || !piece(std::string_view(buffer.data(), static_cast<std::size_t>(n)))) return;
  }
}

model::Json read_json_file(const std::string& path) {
  const std::string text = read_artifact_text(path);
  try {
    return model::parse_json(text);
  } catch (const Error& e) {
    throw Error(e.what(), path + ":" + e.location());
  }
}

void write_file_atomically(const std::string& path, const std::string& content, bool synced) {
  write_file_atomically(path, [&content](const PieceWriter& write) { write(content); }, synced);
}

void write_file_atomically(const std::string& path, const std::function<void(const PieceWriter&)>& produce, bool synced) {
  namespace fs = std::filesystem;
  const fs::path target = fs::absolute(path);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) throw Error("cannot create directory " + target.parent_path().string() + ": " + ec.message(), path);
  const std::string temp = target.string() + ".tmp-" + std::to_string(::getpid());
  {
    FileDescriptor fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (fd.get() < 0) fail_errno(path, "cannot create a temporary file");
    try {
      produce([&fd, &path](std::string_view piece) { write_all(fd.get(), piece, path); });
      if (synced && checked_fsync(fd.get(), false, "rewrite") != 0) fail_errno(path, "cannot fsync");
    } catch (...) {
      ::unlink(temp.c_str());
      throw;
    }
    if (::close(fd.release()) != 0) {
      ::unlink(temp.c_str());
      fail_errno(path, "cannot close");
    }
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    errno = saved;
    fail_errno(path, "cannot rename the temporary file into place");
  }
  if (!synced) return;
  FileDescriptor dir(::open(target.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0) ::fsync(dir.get());  // durability of the rename itself
}

}  // namespace strata::store
