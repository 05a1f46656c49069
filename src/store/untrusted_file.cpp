#include "strata/store/untrusted_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

#include "strata/store/artifact_file.hpp"
#include "strata/store/file_descriptor.hpp"

namespace strata::store {

UntrustedFile read_untrusted_file(const std::string& path, std::size_t max_bytes) {
  const FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (file.get() < 0) return {std::nullopt, errno == ELOOP ? UntrustedFileRefusal::symbolic_link : UntrustedFileRefusal::missing};
  struct stat status {};
  if (::fstat(file.get(), &status) != 0 || !S_ISREG(status.st_mode)) return {std::nullopt, UntrustedFileRefusal::not_regular};
  if (static_cast<std::size_t>(status.st_size) > max_bytes) return {std::nullopt, UntrustedFileRefusal::too_large};
  return {read_file_range(file.get(), 0, static_cast<std::size_t>(status.st_size), path), UntrustedFileRefusal::none};
}

}  // namespace strata::store
