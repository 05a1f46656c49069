#include "strata/app/study/run_live_state.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace strata::app {

std::string live_state_path_for(const std::string& ledger_path) { return ledger_path + ".live"; }

bool write_live_state(const std::string& ledger_path, const model::Json& state) {
  const std::string path = live_state_path_for(ledger_path);
  const std::string temporary = path + ".tmp";
  const std::string text = state.dump() + "\n";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  const bool written = ::close(fd) == 0 && done == text.size();
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    return false;
  }
  return true;
}

void remove_live_state(const std::string& ledger_path) {
  const std::string path = live_state_path_for(ledger_path);
  ::unlink((path + ".tmp").c_str());
  ::unlink(path.c_str());
}

}  // namespace strata::app
