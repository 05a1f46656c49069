#include "strata/store/fault_injection.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace strata::store {
namespace {

// Read once: the hook is fixed for the life of the process. nth = 0: no hook.
struct Hook {
  std::string what;
  long nth = 0;
};

Hook read_hook() {
  Hook hook;
  const char* value = std::getenv("STRATA_TEST_FAIL_FSYNC");
  if (value == nullptr || *value == '\0') return hook;
  const std::string text = value;
  const auto colon = text.find(':');
  hook.what = text.substr(0, colon);
  hook.nth = colon == std::string::npos ? 1 : std::atol(text.c_str() + colon + 1);
  return hook;
}

}  // namespace

int checked_fsync(int fd, bool data_only, const char* what) {
  static const Hook hook = read_hook();
  static std::atomic<long> seen{0};  // fsyncs of hook.what so far (the journal's run on its own thread)
  if (hook.nth > 0 && hook.what == what && ++seen == hook.nth) {
    errno = EIO;
    return -1;
  }
  return data_only ? ::fdatasync(fd) : ::fsync(fd);
}

void test_stop_point(const char* step) {
  static const char* const wanted = std::getenv("STRATA_TEST_STOP_AT");
  if (wanted != nullptr && std::strcmp(wanted, step) == 0) ::raise(SIGSTOP);
}

}  // namespace strata::store
