#pragma once
// An owned POSIX file descriptor: closed on every path.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace strata::store {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// The system's text for errno, read right after the failed call on a descriptor.
inline std::string errno_text() { return std::strerror(errno); }

}  // namespace strata::store
