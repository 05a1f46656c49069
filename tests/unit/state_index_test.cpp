// store/state_index: a log read through its state index gives the answers of a full read
// (usage-lifecycle spec §2.1 last paragraph), whoever appended since, and a stale or damaged
// index falls back to the full read.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "../../src/store/state_index.hpp"

namespace fs = std::filesystem;
using strata::store::event_log::IndexedLog;
using strata::store::event_log::LogDigest;

// Named (the unit tests are a unity build: helpers must not meet another file's).
namespace state_index_test {
namespace {

struct IndexTestDir {
  fs::path path;
  IndexTestDir() {
    std::string pattern = (fs::temp_directory_path() / "strata-state-index.XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~IndexTestDir() { fs::remove_all(path); }
};

std::string event_row(int n, const std::string& event, const std::string& members = "") {
  char id[40];
  std::snprintf(id, sizeof id, "%08x-0000-5000-8000-%012x", n, n);
  return R"({"run_id":"idx-run-0001","event":")" + event + "\"" + (members.empty() ? "" : "," + members) +
         R"(,"event_id":")" + id + "\"}\n";
}

std::string event_id(int n) {
  char id[40];
  std::snprintf(id, sizeof id, "%08x-0000-5000-8000-%012x", n, n);
  return id;
}

void append(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::app) << text;
}

std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What a full read of the file says.
LogDigest full_read(const fs::path& file) {
  LogDigest digest;
  digest.add_text(read_all(file), 0);
  return digest;
}

IndexedLog loaded(const fs::path& file) {
  IndexedLog log(file.string(), false);
  log.load();
  return log;
}

const char* kAcquire = R"("phase":"acquired","resource_id":"vm-1","resource_kind":"vm","cleanup_required":true)";

}  // namespace

TEST_CASE("appends by any writer are folded onto the index, with the answers of a full read", "[state-index]") {
  IndexTestDir dir;
  const fs::path log_path = dir.path / "log.jsonl";
  std::string rows;
  for (int n = 1; n <= 50; ++n) rows += event_row(n, "progress");
  append(log_path, event_row(0, "run_start") + rows + event_row(51, "resource", kAcquire));

  IndexedLog first = loaded(log_path);
  CHECK_FALSE(first.used_index());  // no index yet: the full read
  first.after_append();             // ... which writes it
  REQUIRE(fs::exists(dir.path / ".log.jsonl.strata-index"));

  // A foreign writer appends a release and a test run start (CRLF and a lone CR included).
  append(log_path, event_row(52, "resource", R"("phase":"released","resource_id":"vm-1","resource_kind":"vm")") + "\r\n");
  append(log_path, event_row(53, "test_run", R"("phase":"start")").substr(0, event_row(53, "test_run", R"("phase":"start")").size() - 1) + "\r");
  append(log_path, event_row(54, "progress"));
  const IndexedLog second = loaded(log_path);
  CHECK(second.used_index());
  const LogDigest expected = full_read(log_path);
  CHECK(second.digest().summary() == expected.summary());
  const auto* run = second.digest().run("idx-run-0001");
  REQUIRE(run != nullptr);
  CHECK(run->lifecycle.resources.open_ids().empty());
  CHECK(run->lifecycle.test_run.active);
  for (int n : {0, 25, 51, 52, 53, 54}) CHECK(second.digest().event_offset(event_id(n)) == expected.event_offset(event_id(n)));
  CHECK_FALSE(second.digest().event_offset(event_id(99)));
  const auto stored = second.row_with_event_id(event_id(53));
  REQUIRE(stored);
  CHECK((*stored)["event"] == "test_run");
}

TEST_CASE("a stale or damaged index is not used", "[state-index]") {
  IndexTestDir dir;
  const fs::path log_path = dir.path / "log.jsonl";
  const fs::path index_path = dir.path / ".log.jsonl.strata-index";
  append(log_path, event_row(1, "resource", kAcquire) + event_row(2, "progress"));
  {
    IndexedLog log = loaded(log_path);
    log.after_append();
  }
  REQUIRE(loaded(log_path).used_index());

  SECTION("the sealed bytes changed, same size") {
    std::string text = read_all(log_path);
    text.replace(text.find("vm-1"), 4, "vm-2");
    std::ofstream(log_path, std::ios::binary | std::ios::trunc) << text;
  }
  SECTION("the log was truncated") { fs::resize_file(log_path, fs::file_size(log_path) - 10); }
  SECTION("the index was torn") { fs::resize_file(index_path, fs::file_size(index_path) - 24); }
  SECTION("the log was replaced by another file with the same bytes") {
    const fs::path copy = dir.path / "log.jsonl.new";  // created while the old one exists: another inode
    std::ofstream(copy, std::ios::binary) << read_all(log_path);
    fs::rename(copy, log_path);
  }
  const IndexedLog log = loaded(log_path);
  CHECK_FALSE(log.used_index());
  CHECK(log.digest().summary() == full_read(log_path).summary());
}

TEST_CASE("an unterminated last line is read but never indexed", "[state-index]") {
  IndexTestDir dir;
  const fs::path log_path = dir.path / "log.jsonl";
  const std::string row = event_row(2, "resource", R"("phase":"released","resource_id":"vm-1","resource_kind":"vm")");
  append(log_path, event_row(1, "resource", kAcquire) + row.substr(0, 20));
  IndexedLog torn = loaded(log_path);
  CHECK(torn.digest().unparseable());  // a truncated row is a line that does not parse
  torn.after_append();
  append(log_path, row.substr(20));  // the rest of the row arrives: the line is whole again
  const IndexedLog whole = loaded(log_path);
  CHECK(whole.used_index());
  CHECK_FALSE(whole.digest().unparseable());
  CHECK(whole.digest().summary() == full_read(log_path).summary());
}

TEST_CASE("an unreadable log is an error, a missing one is empty", "[state-index]") {
  IndexTestDir dir;
  const IndexedLog missing = loaded(dir.path / "absent.jsonl");
  CHECK(missing.read_error() == 0);
  CHECK_FALSE(missing.digest().latest_run());
  const IndexedLog not_a_directory = loaded(dir.path / "absent.jsonl" / "log.jsonl");
  CHECK(not_a_directory.read_error() == 0);
  if (::geteuid() != 0) {  // root reads a 0200 file anyway
    const fs::path log_path = dir.path / "log.jsonl";
    append(log_path, event_row(1, "progress"));
    fs::permissions(log_path, fs::perms::owner_write);
    CHECK(loaded(log_path).read_error() == EACCES);
  }
}

}  // namespace state_index_test
