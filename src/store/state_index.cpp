// IndexedLog: an event log read through the state index beside it (see the header).
//
// Index file layout: the magic line, one line of JSON (what the index covers and the
// LogDigest summary), then the digest's binary id table up to the end of the file.
#include "state_index.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "event_log_internal.hpp"
#include "strata/model/json/python_json_line.hpp"
#include "strata/store/file_descriptor.hpp"

namespace strata::store::event_log {
namespace {

constexpr std::string_view kIndexMagic = "strata-event-log-index 1\n";
// The seal covers the last bytes of the indexed prefix: appending never changes them, a
// rewrite or truncation of the log almost always does (and a shorter log is caught by size).
constexpr std::uint64_t kSealBytes = 4096;
// The index is rewritten once the log has grown this much past it, so that a write neither
// rewrites the whole id table each time nor folds an ever longer tail.
constexpr std::uint64_t kRewriteAfterBytes = 64 * 1024;

// errno, or 0 when `length` bytes at `offset` were read (fewer at end of file: `out` shrinks).
int read_at(int fd, std::uint64_t offset, std::size_t length, std::string& out) {
  out.resize(length);
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  return 0;
}

std::optional<std::string> seal_of(int fd, std::uint64_t end) {
  const std::uint64_t begin = end > kSealBytes ? end - kSealBytes : 0;
  std::string bytes;
  if (read_at(fd, begin, static_cast<std::size_t>(end - begin), bytes) != 0 || bytes.size() != end - begin)
    return std::nullopt;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) return std::nullopt;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xF];
  }
  return hex;
}

// The whole file mapped read-only, or {nullptr, 0} when it is missing, empty or unreadable.
std::pair<void*, std::size_t> map_file(const std::string& path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat info {};
  if (fd.get() < 0 || ::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_size == 0) return {nullptr, 0};
  const auto size = static_cast<std::size_t>(info.st_size);
  void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (address == MAP_FAILED) return {nullptr, 0};
  return {address, size};
}

}  // namespace

IndexedLog::IndexedLog(std::string log_path, bool private_file)
    : log_path_(std::move(log_path)), private_file_(private_file) {
  const std::size_t slash = log_path_.rfind('/');
  index_path_ = log_path_.substr(0, slash + 1) + "." + log_path_.substr(slash + 1) + ".strata-index";
}

IndexedLog& IndexedLog::operator=(IndexedLog&& other) noexcept {
  if (this == &other) return *this;
  if (index_map_ != nullptr) ::munmap(index_map_, index_map_size_);
  log_path_ = std::move(other.log_path_);
  index_path_ = std::move(other.index_path_);
  private_file_ = other.private_file_;
  read_error_ = other.read_error_;
  used_index_ = other.used_index_;
  index_stale_ = other.index_stale_;
  device_ = other.device_;
  inode_ = other.inode_;
  covered_ = other.covered_;
  index_covered_ = other.index_covered_;
  digest_ = std::move(other.digest_);
  with_partial_line_ = std::move(other.with_partial_line_);
  index_map_ = std::exchange(other.index_map_, nullptr);  // the digests' views stay valid
  index_map_size_ = std::exchange(other.index_map_size_, 0);
  return *this;
}

IndexedLog::~IndexedLog() {
  if (index_map_ != nullptr) ::munmap(index_map_, index_map_size_);
}

void IndexedLog::load() {
  struct stat info {};
  if (::stat(log_path_.c_str(), &info) != 0) {
    // Python's Path.is_file() is False for these and raises for any other error.
    if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP) read_error_ = errno;
    return;
  }
  if (!S_ISREG(info.st_mode)) return;  // not a regular file: no rows (§2.2)
  FileDescriptor fd(::open(log_path_.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0 || ::fstat(fd.get(), &info) != 0) {
    read_error_ = errno;
    return;
  }
  device_ = static_cast<std::uint64_t>(info.st_dev);
  inode_ = static_cast<std::uint64_t>(info.st_ino);
  const auto size = static_cast<std::uint64_t>(info.st_size);

  const auto [address, length] = map_file(index_path_);
  index_map_ = address;
  index_map_size_ = length;
  const std::string_view index(static_cast<const char*>(address), length);
  const std::size_t header_end = index.find('\n', kIndexMagic.size());
  if (index.substr(0, kIndexMagic.size()) == kIndexMagic && header_end != std::string_view::npos) {
    const auto header = nlohmann::json::parse(index.begin() + kIndexMagic.size(), index.begin() + header_end, nullptr, false);
    if (header.is_object() && header.value("device", std::uint64_t{0}) == device_ &&
        header.value("inode", std::uint64_t{0}) == inode_ && header.value("log_size", size + 1) <= size &&
        header.contains("seal") && header.contains("digest") &&
        header.value("id_rows", std::uint64_t{0}) * 24 == index.size() - header_end - 1) {
      const auto covered = header["log_size"].get<std::uint64_t>();
      const auto seal = seal_of(fd.get(), covered);
      if (seal && header["seal"] == *seal) {
        if (auto stored = LogDigest::restore(header["digest"], index.substr(header_end + 1))) {
          digest_ = std::move(*stored);
          covered_ = index_covered_ = covered;
          used_index_ = true;
          index_stale_ = false;
        }
      }
    }
  }
  fold_from(fd.get(), size);
}

void IndexedLog::fold_from(int fd, std::uint64_t size) {
  with_partial_line_.reset();
  if (size <= covered_) return;
  std::string bytes;
  if (const int error = read_at(fd, covered_, static_cast<std::size_t>(size - covered_), bytes); error != 0) {
    read_error_ = error;
    digest_ = LogDigest();
    return;
  }
  const std::size_t last_lf = bytes.rfind('\n');
  const std::size_t complete = last_lf == std::string::npos ? 0 : last_lf + 1;
  digest_.add_text(std::string_view(bytes).substr(0, complete), covered_);
  covered_ += complete;
  if (complete < bytes.size()) {
    // An unterminated last line is a line now, but may be continued by the next append:
    // it is folded into a copy, never into what the index stores.
    with_partial_line_ = digest_;
    with_partial_line_->add_text(std::string_view(bytes).substr(complete), covered_);
  }
}

std::optional<nlohmann::ordered_json> IndexedLog::row_with_event_id(const std::string& event_id) const {
  if (read_error_ != 0) return std::nullopt;
  const auto offset = digest().event_offset(event_id);
  if (!offset) return std::nullopt;
  FileDescriptor fd(::open(log_path_.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  std::string line;
  for (std::size_t length = 4096;; length *= 2) {  // rows are short; grow for a long one
    if (read_at(fd.get(), *offset, length, line) != 0) return std::nullopt;
    const std::size_t end = line.find_first_of("\r\n");
    if (end != std::string::npos || line.size() < length) {
      if (end != std::string::npos) line.resize(end);
      break;
    }
  }
  auto row = model::parse_python_json_line(line);
  if (!row || !row->is_object()) return std::nullopt;
  return row;
}

void IndexedLog::after_append() {
  if (read_error_ != 0) return;  // never read: nothing to extend
  FileDescriptor fd(::open(log_path_.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat info {};
  if (fd.get() < 0 || ::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) return;
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (static_cast<std::uint64_t>(info.st_dev) != device_ || static_cast<std::uint64_t>(info.st_ino) != inode_ ||
      size < covered_) {
    // Created by this append (or replaced under us): start from its first byte.
    device_ = static_cast<std::uint64_t>(info.st_dev);
    inode_ = static_cast<std::uint64_t>(info.st_ino);
    digest_ = LogDigest();
    covered_ = 0;
    index_stale_ = true;
  }
  fold_from(fd.get(), size);
  if (read_error_ == 0 && (index_stale_ || covered_ - index_covered_ > kRewriteAfterBytes)) save(fd.get());
}

void IndexedLog::save(int fd) const {
  const auto seal = seal_of(fd, covered_);
  if (!seal) return;
  nlohmann::json header = {{"log_size", covered_}, {"device", device_}, {"inode", inode_},
                                 {"seal", *seal}};
  const std::string table = digest_.id_table();
  header["id_rows"] = table.size() / 24;  // a torn table is caught by its length
  header["digest"] = digest_.summary();
  const std::string content = std::string(kIndexMagic) + header.dump() + "\n" + table;
  const std::string temp = index_path_ + ".tmp." + std::to_string(::getpid()) + "." + random_hex(16);
  const mode_t mode = private_file_ ? 0600 : 0644;
  FileDescriptor out(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (out.get() < 0) return;
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(out.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  // fsync before the rename: after a crash the index is the old one or the whole new one,
  // never a torn table that would pass the length check (it is rewritten rarely, see above).
  const bool written = done == content.size() && ::fchmod(out.get(), mode) == 0 && ::fsync(out.get()) == 0 &&
                       ::close(out.release()) == 0;
  if (!written || ::rename(temp.c_str(), index_path_.c_str()) != 0) ::unlink(temp.c_str());
}

}  // namespace strata::store::event_log
