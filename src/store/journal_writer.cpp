#include "strata/store/journal_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cerrno>
#include <cstring>

#include "strata/error.hpp"
#include "strata/store/fault_injection.hpp"
#include "strata/store/file_descriptor.hpp"

namespace strata::store {

namespace asio = boost::asio;

JournalWriter::JournalWriter(asio::any_io_executor io, asio::thread_pool& pool, std::string journal_path,
                             std::uint64_t valid_bytes)
    : io_(std::move(io)), pool_(pool), path_(std::move(journal_path)), flushed_(io_) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("cannot open the journal: " + errno_text(), path_);
  // Drop a torn tail so new lines follow the last valid one.
  if (::ftruncate(fd_, static_cast<off_t>(valid_bytes)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0)
    throw Error("cannot prepare the journal: " + errno_text(), path_);
  bytes_ = valid_bytes;
  flushed_.expires_at(asio::steady_timer::time_point::max());
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

asio::awaitable<void> JournalWriter::append(std::string line) {
  pending_ += line;
  pending_ += '\n';
  const std::uint64_t mine = ++appended_;
  while (durable_ < mine) {
    if (failure_) throw Error(*failure_, path_);
    if (!flushing_) {
      co_await flush();
    } else {
      co_await flushed_.async_wait(asio::as_tuple(asio::use_awaitable));
    }
  }
  if (failure_) throw Error(*failure_, path_);
}

asio::awaitable<void> JournalWriter::flush() {
  flushing_ = true;
  std::string batch = std::move(pending_);
  pending_.clear();
  const std::uint64_t upto = appended_;
  const int fd = fd_;
  std::string error;
  // Blocking write + fdatasync run on the pool (co_spawn there: an awaitable always resumes
  // on its own executor, so a plain post would not leave the io thread); the io thread keeps
  // running the children meanwhile. The locals live in this suspended frame until it resumes.
  co_await asio::co_spawn(
      pool_,
      [&]() -> asio::awaitable<void> {
        std::size_t done = 0;
        while (done < batch.size() && error.empty()) {
          const ssize_t n = ::write(fd, batch.data() + done, batch.size() - done);
          if (n < 0 && errno != EINTR) error = "cannot append to the journal: " + errno_text();
          if (n > 0) done += static_cast<std::size_t>(n);
        }
        if (error.empty() && checked_fsync(fd, true, "journal") != 0) error = "cannot fsync the journal: " + errno_text();
        co_return;
      },
      asio::use_awaitable);
  flushing_ = false;
  ++syncs_;
  if (!error.empty()) {
    failure_ = error;
  } else {
    entries_ += upto - durable_;
    bytes_ += batch.size();
    durable_ = upto;
  }
  flushed_.cancel();  // wake every appender waiting for this batch
}

// No fsync: the ledger that now holds every journal entry is already durable, and a journal
// whose truncation a crash undid only repeats observations of the ledger, which loading skips
// (take_merged_observations). The next append's fdatasync makes the new length durable too.
void JournalWriter::truncate() {
  if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0)
    throw Error("cannot truncate the journal: " + errno_text(), path_);
  entries_ = bytes_ = 0;
}

}  // namespace strata::store
