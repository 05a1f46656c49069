#pragma once
// The writer of a ledger's journal (store/ledger_journal.hpp), on the event loop: the part of the
// durable ledger that needs Asio, kept apart so that what reads journals (the fuzz targets, the
// results commands) is built without the event loop.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace strata::store {

// Appends journal lines with group commit: appends that arrive while an fsync is in
// flight share the next one. The fsync runs on `pool`; everything else on the io thread.
class JournalWriter {
 public:
  JournalWriter(boost::asio::any_io_executor io, boost::asio::thread_pool& pool, std::string journal_path,
                std::uint64_t valid_bytes);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  // Completes when the line is durable. Throws strata::Error when writing or syncing fails.
  boost::asio::awaitable<void> append(std::string line);

  // Empties the journal after its entries were folded into the ledger. Only while no
  // write is in flight (!busy()).
  void truncate();
  bool busy() const { return flushing_; }

  std::uint64_t entries() const { return entries_; }
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t syncs() const { return syncs_; }

 private:
  boost::asio::awaitable<void> flush();

  boost::asio::any_io_executor io_;
  boost::asio::thread_pool& pool_;
  std::string path_;
  int fd_ = -1;
  std::string pending_;
  std::uint64_t appended_ = 0, durable_ = 0, entries_ = 0, bytes_ = 0, syncs_ = 0;
  bool flushing_ = false;
  std::optional<std::string> failure_;
  boost::asio::steady_timer flushed_;
};

}  // namespace strata::store
