#pragma once
// An event log read through its state index: the LogDigest of a prefix of the log, kept in
// a file beside it (`.<log name>.strata-index`) together with the prefix's length and seal
// (device, inode, SHA-256 of the prefix's last 4 KiB). A write then reads the index and only
// the bytes appended since, by Strata or by any other writer, instead of the whole log; a
// missing, damaged or stale index (the log replaced, truncated, or its sealed bytes
// changed) means a full read, as does the first write on a log. Reads and writes happen
// under the writer's locks; the index is a cache (written through a temporary file, fsync and
// a rename), so losing it costs one full read and never changes an answer.
#include <cstdint>
#include <optional>
#include <string>

#include "log_digest.hpp"

namespace strata::store::event_log {

class IndexedLog {
 public:
  IndexedLog() = default;
  IndexedLog(IndexedLog&& other) noexcept { *this = std::move(other); }
  IndexedLog& operator=(IndexedLog&& other) noexcept;
  IndexedLog(const IndexedLog&) = delete;
  IndexedLog& operator=(const IndexedLog&) = delete;
  ~IndexedLog();
  // `private_file`: the index gets mode 0600 (files of the log home), else 0644.
  IndexedLog(std::string log_path, bool private_file);

  // Reads the log as it is now. Never throws: an OS error becomes read_error().
  void load();

  const std::string& path() const { return log_path_; }
  // errno of the failure to open or read an existing log (0: read, or no such file).
  int read_error() const { return read_error_; }
  // The digest of the whole log (empty when missing or unreadable).
  const LogDigest& digest() const { return with_partial_line_ ? *with_partial_line_ : digest_; }
  // The first row whose event_id is `event_id` (a stored duplicate), read at its offset.
  std::optional<nlohmann::ordered_json> row_with_event_id(const std::string& event_id) const;

  // Called after this writer appended to the log: folds the new lines and rewrites the
  // index when it was missing or stale or when the part it does not cover has grown.
  void after_append();

  // Whether load() used the index (for tests and the benchmark's explanation).
  bool used_index() const { return used_index_; }

 private:
  void fold_from(int fd, std::uint64_t size);
  void save(int fd) const;

  std::string log_path_, index_path_;
  bool private_file_ = false;
  int read_error_ = 0;
  bool used_index_ = false;
  bool index_stale_ = true;  // no index covering digest_ yet
  std::uint64_t device_ = 0, inode_ = 0;
  std::uint64_t covered_ = 0;          // digest_ is the fold of bytes [0, covered_), which end in LF
  std::uint64_t index_covered_ = 0;    // what the index file on disk covers
  LogDigest digest_;
  std::optional<LogDigest> with_partial_line_;  // digest_ plus an unterminated last line
  // The index file, mapped read-only: the digest searches its id table in place, and only
  // the pages a lookup touches are read (copying a table of 100,000 ids cost more than the
  // whole rest of a write).
  void* index_map_ = nullptr;
  std::size_t index_map_size_ = 0;
};

}  // namespace strata::store::event_log
