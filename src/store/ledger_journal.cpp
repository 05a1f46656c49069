#include "strata/store/ledger_journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_set>

#include "strata/error.hpp"
#include "strata/model/artifact.hpp"
#include "strata/model/content_hash.hpp"
#include "strata/model/json_document.hpp"
#include "strata/model/json_writer.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/fault_injection.hpp"
#include "strata/store/file_descriptor.hpp"

namespace strata::store {
namespace {

namespace asio = boost::asio;


// Verifies one journal line: a sealed observation whose hash is right.
std::optional<model::Json> journal_entry(std::string_view line) {
  try {
    model::Json observation = model::conform(model::parse_json(line), *model::artifact_spec(model::ArtifactKind::observation).sealed);
    if (model::content_hash(observation) != observation["contentHash"].get<std::string>()) return std::nullopt;
    return observation;
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

std::string journal_path_for(const std::string& ledger_path) { return ledger_path + ".journal"; }
std::string lock_path_for(const std::string& ledger_path) { return ledger_path + ".lock"; }

JournalContents read_journal(const std::string& journal_path) {
  JournalContents contents;
  if (!std::filesystem::exists(journal_path)) return contents;
  const std::string text = read_artifact_text(journal_path);
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      contents.dropped = "an incomplete last line (" + std::to_string(text.size() - start) + " bytes)";
      break;
    }
    auto observation = journal_entry(std::string_view(text).substr(start, end - start));
    if (!observation) {
      contents.dropped = "an invalid line at byte " + std::to_string(start) + " and " +
                         std::to_string(text.size() - start) + " bytes after it";
      break;
    }
    contents.observations.push_back(std::move(*observation));
    start = end + 1;
    contents.valid_bytes = start;
  }
  return contents;
}

LedgerState read_ledger_state(const std::string& ledger_path) {
  LedgerState state;
  state.ledger_exists = std::filesystem::exists(ledger_path);
  if (state.ledger_exists) {
    model::Json document = read_json_file(ledger_path);
    try {
      state.ledger = model::parse_ledger(std::move(document), state.hasher);  // hash state kept for appends
    } catch (const Error& e) {
      throw Error(e.what(), e.location().empty() ? ledger_path : ledger_path + ": " + e.location());
    }
  } else {
    state.ledger = model::create_artifact(
        model::ArtifactKind::ledger,
        model::Json{{"type", "controlled-study-observation-ledger"}, {"schemaVersion", 1}, {"ledgerVersion", "v1"},
                    {"observations", model::Json::array()}});
  }
  state.journal = read_journal(journal_path_for(ledger_path));
  return state;
}

std::vector<model::Json> take_merged_observations(LedgerState& state) {
  std::vector<model::Json> all = std::move(state.ledger["observations"].get_ref<model::Json::array_t&>());
  std::unordered_set<std::string> seen;
  seen.reserve(all.size() + state.journal.observations.size());
  for (const auto& o : all) seen.insert(o["contentHash"].get<std::string>());
  for (auto& o : state.journal.observations)
    if (seen.insert(o["contentHash"].get<std::string>()).second) all.push_back(std::move(o));
  state.ledger["observations"] = model::Json::array();
  state.journal.observations.clear();
  return all;
}

std::string write_ledger(const std::string& ledger_path, const std::string& ledger_version,
                         std::vector<model::Json> observations) {
  const model::Json sealed = model::seal_checked_ledger(ledger_version, std::move(observations));
  write_sealed_ledger(ledger_path, sealed);
  return sealed["contentHash"].get<std::string>();
}

LedgerLock::LedgerLock(const std::string& ledger_path) {
  const std::string path = lock_path_for(ledger_path);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::absolute(path).parent_path(), ec);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("cannot open the ledger lock: " + errno_text(), path);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw Error("Ledger " + ledger_path + " is in use by another strata run (lock " + path +
                "); wait for it to finish or stop it first.");
  }
}

LedgerLock::~LedgerLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

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
