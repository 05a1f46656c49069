// The file-system side of the event-log writer (usage-boundary spec §2.3, §2.4): BSD flock
// locks on the same lock files as the Python/JS writers, appends that are one write plus
// fsync, JSONL scans, the atomically replaced run pointer, and path resolution.
#include <fcntl.h>
#include <openssl/rand.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <sstream>
#include <thread>

#include "event_log_internal.hpp"
#include "strata/store/file_descriptor.hpp"

namespace strata::store::event_log {
namespace {

std::string parent_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

int open_or_throw(const std::string& path, int flags, mode_t mode) {
  for (;;) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
    if (fd >= 0) return fd;
    if (errno != EINTR) throw_os_error(errno);
  }
}

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_os_error(errno);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

using Descriptor = FileDescriptor;

// Close errors after fsync are reported.
void close_or_throw(Descriptor& descriptor) {
  if (::close(descriptor.release()) != 0 && errno != EINTR) throw_os_error(errno);
}

std::string expand_user(std::string_view raw) {
  if (raw.empty() || raw.front() != '~') return std::string(raw);
  const std::size_t slash = raw.find('/');
  const std::string name(raw.substr(1, slash == std::string_view::npos ? std::string_view::npos : slash - 1));
  const std::string rest(slash == std::string_view::npos ? std::string_view() : raw.substr(slash));
  std::string home;
  if (name.empty()) {
    if (const char* env = std::getenv("HOME")) {
      home = env;
    } else if (const passwd* entry = ::getpwuid(::getuid())) {
      home = entry->pw_dir;
    } else {
      return std::string(raw);
    }
  } else if (const passwd* entry = ::getpwnam(name.c_str())) {
    home = entry->pw_dir;
  } else {
    return std::string(raw);
  }
  while (home.size() > 1 && home.back() == '/') home.pop_back();
  if (home == "/") home.clear();
  const std::string out = home + rest;
  return out.empty() ? "/" : out;
}

}  // namespace

std::string python_error_type(int error_number) {
  switch (error_number) {
    case EAGAIN:
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
    case EALREADY:
    case EINPROGRESS: return "BlockingIOError";
    case ECHILD: return "ChildProcessError";
    case EPIPE:
    case ESHUTDOWN: return "BrokenPipeError";
    case ECONNABORTED: return "ConnectionAbortedError";
    case ECONNREFUSED: return "ConnectionRefusedError";
    case ECONNRESET: return "ConnectionResetError";
    case EEXIST: return "FileExistsError";
    case ENOENT: return "FileNotFoundError";
    case EISDIR: return "IsADirectoryError";
    case ENOTDIR: return "NotADirectoryError";
    case EINTR: return "InterruptedError";
    case EACCES:
    case EPERM: return "PermissionError";
    case ESRCH: return "ProcessLookupError";
    case ETIMEDOUT: return "TimeoutError";
    default: return "OSError";
  }
}

void throw_os_error(int error_number) { throw OsError(error_number, python_error_type(error_number)); }

std::string resolve_path(std::string_view raw) {
  std::string path = expand_user(raw);
  if (path.empty() || path.front() != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) == nullptr) throw_os_error(errno);
    path = std::string(cwd) + (path.empty() ? "" : "/" + path);
  }
  // Component by component, as os.path.realpath does: a symlink is replaced by its
  // target before any following "..", and the part that does not exist is kept as is.
  std::deque<std::string> pending;
  const auto push_components = [&pending](const std::string& text) {
    std::deque<std::string> parts;
    std::stringstream stream(text);
    for (std::string part; std::getline(stream, part, '/');)
      if (!part.empty() && part != ".") parts.push_back(part);
    pending.insert(pending.begin(), parts.begin(), parts.end());
  };
  push_components(path);
  std::string resolved;  // "" is the root
  int links = 0;
  while (!pending.empty()) {
    const std::string part = pending.front();
    pending.pop_front();
    if (part == "..") {
      resolved = resolved.substr(0, resolved.rfind('/') == std::string::npos ? 0 : resolved.rfind('/'));
      continue;
    }
    const std::string candidate = resolved + "/" + part;
    struct stat info {};
    if (links < 40 && ::lstat(candidate.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
      char target[PATH_MAX];
      const ssize_t n = ::readlink(candidate.c_str(), target, sizeof target - 1);
      if (n > 0) {
        ++links;
        const std::string link(target, static_cast<std::size_t>(n));
        if (link.front() == '/') resolved.clear();
        push_components(link);
        continue;
      }
    }
    resolved = candidate;
  }
  return resolved.empty() ? "/" : resolved;
}

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool is_regular_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

FileLock acquire_file_lock(const std::string& path, bool private_file, int timeout_ms) {
  make_directories(parent_of(path));
  Descriptor fd(open_or_throw(path, O_RDWR | O_APPEND | O_CREAT, 0666));
  if (private_file && ::fchmod(fd.get(), 0600) != 0) throw_os_error(errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) throw_os_error(errno);
  if (info.st_size == 0) write_all(fd.get(), "0");  // the Windows writers lock byte 0
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) {
      return FileLock(fd.release());
    }
    if (std::chrono::steady_clock::now() >= deadline) throw OsError(ETIMEDOUT, "TimeoutError");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void make_directories(const std::string& path) {
  if (::mkdir(path.c_str(), 0777) == 0) return;
  int error = errno;
  if (error == ENOENT) {
    const std::string parent = parent_of(path);
    if (parent != path) {
      make_directories(parent);
      if (::mkdir(path.c_str(), 0777) == 0) return;
      error = errno;
    }
  }
  if (is_directory(path)) return;  // exist_ok: any failure on an existing directory is fine
  throw_os_error(error);
}

void ensure_private_directory(const std::string& path) {
  make_directories(path);
  if (::chmod(path.c_str(), 0700) != 0) throw_os_error(errno);
}

void append_line(const std::string& path, const std::string& line, bool private_file) {
  make_directories(parent_of(path));
  Descriptor fd(open_or_throw(path, O_WRONLY | O_APPEND | O_CREAT, private_file ? 0600 : 0644));
  write_all(fd.get(), line);
  if (::fsync(fd.get()) != 0) throw_os_error(errno);
  close_or_throw(fd);
  if (private_file && ::chmod(path.c_str(), 0600) != 0) throw_os_error(errno);
}

std::vector<OrderedJson> read_jsonl_objects(const std::string& path) {
  std::vector<OrderedJson> rows;
  if (!is_regular_file(path)) return rows;
  std::ifstream in(path, std::ios::binary);
  if (!in) return rows;
  for (std::string line; std::getline(in, line);) {
    OrderedJson value = OrderedJson::parse(line, nullptr, /*allow_exceptions=*/false);
    if (value.is_object()) rows.push_back(std::move(value));
  }
  return rows;
}

void write_pointer_file(const std::string& path, const std::string& content) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + random_hex(32);
  try {
    Descriptor fd(open_or_throw(temp, O_WRONLY | O_CREAT | O_TRUNC, 0644));
    write_all(fd.get(), content);
    if (::fsync(fd.get()) != 0) throw_os_error(errno);
    close_or_throw(fd);
    if (::chmod(temp.c_str(), 0644) != 0) throw_os_error(errno);
    if (::rename(temp.c_str(), path.c_str()) != 0) throw_os_error(errno);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  const int dir = ::open(parent_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);  // durability of the rename itself
    ::close(dir);
  }
}

std::string random_hex(std::size_t digits) {
  std::string bytes((digits + 1) / 2, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(bytes.size())) != 1)
    throw std::runtime_error("RAND_bytes failed in OpenSSL");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char byte : bytes) {
    out += kHex[static_cast<unsigned char>(byte) >> 4];
    out += kHex[static_cast<unsigned char>(byte) & 0xF];
  }
  out.resize(digits);
  return out;
}

}  // namespace strata::store::event_log
