#include "strata/store/private_directory.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "strata/error.hpp"

namespace strata::store {

void make_private_directory(const std::string& path, const std::string& what) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error("cannot make " + what + ": " + std::strerror(errno), path);
}

}  // namespace strata::store
