#include "strata/store/ledger_append.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "strata/error.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/store/fault_injection.hpp"

namespace strata::store {
namespace {


struct UndoRecord {
  unsigned long long inode = 0;
  unsigned long long offset = 0;  // where the old closing began
  std::string old_hash;
};

constexpr const char* kUndoHeader = "strata-append-undo 1";

std::optional<UndoRecord> read_undo(const std::string& ledger_path) {
  FileDescriptor fd(::open(append_undo_path_for(ledger_path).c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw Error("cannot read the append undo record: " + errno_text(), append_undo_path_for(ledger_path));
  }
  char buffer[512];
  const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
  std::istringstream in(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0));
  std::string header;
  UndoRecord record;
  if (!std::getline(in, header) || header != kUndoHeader || !(in >> record.inode >> record.offset >> record.old_hash) ||
      record.old_hash.size() != 64)
    throw Error("the append undo record is damaged; restore the ledger from a backup", append_undo_path_for(ledger_path));
  return record;
}

void sync_directory_of(const std::string& path) {
  FileDescriptor directory(::open(std::filesystem::absolute(path).parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (directory.get() >= 0) ::fsync(directory.get());
}

void remove_undo(const std::string& ledger_path) {
  if (::unlink(append_undo_path_for(ledger_path).c_str()) != 0 && errno != ENOENT)
    throw Error("cannot remove the append undo record: " + errno_text(), append_undo_path_for(ledger_path));
  sync_directory_of(ledger_path);  // durable before the journal is emptied
}

void write_at(int fd, const std::string& text, off_t offset, const std::string& path) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, offset + static_cast<off_t>(done));
    if (n < 0 && errno != EINTR) throw Error("cannot write the ledger: " + errno_text(), path);
    if (n > 0) done += static_cast<std::size_t>(n);
  }
}

// Test hook for the crash tests: STRATA_TEST_CRASH_AT=<point> kills this process there.
bool crash_requested(const char* point) {
  const char* wanted = std::getenv("STRATA_TEST_CRASH_AT");
  return wanted != nullptr && std::strcmp(wanted, point) == 0;
}

void crash_point(const char* point) {
  if (crash_requested(point)) ::raise(SIGKILL);
}

}  // namespace

std::string append_undo_path_for(const std::string& ledger_path) { return ledger_path + ".append-undo"; }

std::string ledger_closing(const std::string& content_hash) {
  return "\n  ],\n  \"contentHash\": \"" + content_hash + "\",\n  \"contentHashAlgo\": \"sha256-normalized-v1\"\n}\n";
}

std::optional<long long> closing_offset(int fd, const std::string& content_hash) {
  const std::string closing = ledger_closing(content_hash);
  struct stat info {};
  if (::fstat(fd, &info) != 0 || static_cast<std::size_t>(info.st_size) < closing.size()) return std::nullopt;
  const auto offset = static_cast<off_t>(static_cast<std::size_t>(info.st_size) - closing.size());
  std::string tail(closing.size(), '\0');
  if (::pread(fd, tail.data(), tail.size(), offset) != static_cast<ssize_t>(tail.size()) || tail != closing)
    return std::nullopt;
  return offset;
}

std::optional<std::string> append_to_ledger_file(const std::string& ledger_path, const std::string& old_hash,
                                                 model::LedgerHasher& hasher, std::span<const model::Json> appended) {
  FileDescriptor ledger(::open(ledger_path.c_str(), O_RDWR | O_CLOEXEC));
  if (ledger.get() < 0 || ::flock(ledger.get(), LOCK_EX) != 0) return std::nullopt;
  const std::optional<long long> closing_at = closing_offset(ledger.get(), old_hash);
  if (!closing_at) return std::nullopt;
  const auto offset = static_cast<off_t>(*closing_at);
  struct stat info {};
  if (::fstat(ledger.get(), &info) != 0) return std::nullopt;

  std::string text;
  for (const auto& observation : appended) {
    hasher.append(observation);
    text += ",\n    " + model::pretty_json(observation, 2);
  }
  const std::string new_hash = hasher.hash();
  text += ledger_closing(new_hash);

  write_file_atomically(append_undo_path_for(ledger_path), std::string(kUndoHeader) + "\n" + std::to_string(info.st_ino) +
                                                               " " + std::to_string(offset) + " " + old_hash + "\n");
  crash_point("append-undo-written");
  if (crash_requested("append-torn")) {  // half of the new bytes on disk, then the crash
    write_at(ledger.get(), text.substr(0, text.size() / 2), offset, ledger_path);
    ::fdatasync(ledger.get());
    ::raise(SIGKILL);
  }
  write_at(ledger.get(), text, offset, ledger_path);
  if (checked_fsync(ledger.get(), true, "append") != 0) throw Error("cannot fsync the ledger: " + errno_text(), ledger_path);
  crash_point("append-written");
  remove_undo(ledger_path);
  return new_hash;
}

bool undo_interrupted_append(const std::string& ledger_path) {
  const std::optional<UndoRecord> undo = read_undo(ledger_path);
  if (!undo) return false;
  FileDescriptor ledger(::open(ledger_path.c_str(), O_RDWR | O_CLOEXEC));
  struct stat info {};
  if (ledger.get() < 0 || ::fstat(ledger.get(), &info) != 0 || info.st_ino != undo->inode) {
    remove_undo(ledger_path);  // the ledger was replaced since: the record is about another file
    return false;
  }
  if (static_cast<unsigned long long>(info.st_size) < undo->offset)
    throw Error("the ledger is shorter than an interrupted append left it; restore it from a backup", ledger_path);
  if (::flock(ledger.get(), LOCK_EX) != 0 || ::ftruncate(ledger.get(), static_cast<off_t>(undo->offset)) != 0)
    throw Error("cannot undo an interrupted append: " + errno_text(), ledger_path);
  write_at(ledger.get(), ledger_closing(undo->old_hash), static_cast<off_t>(undo->offset), ledger_path);
  if (::fsync(ledger.get()) != 0) throw Error("cannot fsync the ledger: " + errno_text(), ledger_path);
  remove_undo(ledger_path);
  return true;
}

void apply_pending_undo(const std::string& path, unsigned long long inode, std::string& text) {
  const std::optional<UndoRecord> undo = read_undo(path);
  if (!undo || undo->inode != inode || text.size() < undo->offset) return;
  text.resize(undo->offset);
  text += ledger_closing(undo->old_hash);
}

}  // namespace strata::store
