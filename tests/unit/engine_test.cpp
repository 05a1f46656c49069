// The engine's scheduling and durability pieces on their own: JobPool (slots, order, work
// outside a slot, failures) and JournalWriter (group commit on the fsync thread). With
// -DSTRATA_TSAN=ON these run under ThreadSanitizer together with the process tests, which is
// where the engine's threads meet (event loop, spawn threads, fsync thread).
#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "strata/engine/job_pool.hpp"
#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/store/journal_writer.hpp"
#include "strata/store/ledger_journal.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

asio::awaitable<void> sleep_for(std::chrono::milliseconds duration) {
  asio::steady_timer timer(co_await asio::this_coro::executor, duration);
  co_await timer.async_wait(asio::use_awaitable);
}

// Runs `body` as the io_context's only coroutine and returns when it and all it started end.
template <typename Body>
void run_on(asio::io_context& io, Body body) {
  auto done = asio::co_spawn(io, body(), asio::use_future);
  io.run();
  done.get();
}

std::filesystem::path scratch_directory() {
  auto dir = std::filesystem::temp_directory_path() / ("strata-engine-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

std::vector<std::string> lines_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("jobs start in order, at most N at once, and run() waits for work outside the slots", "[engine]") {
  asio::io_context io(1);
  strata::engine::JobPool pool(io, 3, 100ms);
  std::vector<std::size_t> started;
  int running = 0, most = 0, finished_outside = 0;
  auto outside = [&](std::size_t i) -> asio::awaitable<void> {
    co_await sleep_for(std::chrono::milliseconds(5 + (i % 3) * 5));
    ++finished_outside;
  };
  auto job = [&](std::size_t i) -> asio::awaitable<void> {
    started.push_back(i);
    most = std::max(most, ++running);
    co_await sleep_for(std::chrono::milliseconds(1 + (7 * i) % 11));
    --running;
    pool.finish_outside_slot(outside(i));
  };
  run_on(io, [&]() -> asio::awaitable<void> {
    co_await pool.run(20, [](std::size_t i) { return i % 5 != 4; }, job);
  });
  const std::vector<std::size_t> wanted{0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13, 15, 16, 17, 18};
  CHECK(started == wanted);
  CHECK(most == 3);
  CHECK(finished_outside == 16);  // every trailing piece ended before run() returned
  CHECK_FALSE(pool.failure());
}

TEST_CASE("a failure outside a slot stops launching and is reported", "[engine]") {
  asio::io_context io(1);
  strata::engine::JobPool pool(io, 2, 100ms);
  int started = 0;
  auto fail = []() -> asio::awaitable<void> {
    co_await sleep_for(1ms);
    throw strata::Error("disk full", "ledger.journal");
  };
  auto job = [&](std::size_t i) -> asio::awaitable<void> {
    ++started;
    co_await sleep_for(5ms);
    if (i == 1) pool.finish_outside_slot(fail());
  };
  run_on(io, [&]() -> asio::awaitable<void> { co_await pool.run(100, [](std::size_t) { return true; }, job); });
  REQUIRE(pool.failure());
  CHECK(pool.failure()->find("disk full") != std::string::npos);
  CHECK(pool.stopping());
  CHECK(started < 10);  // stopped soon after the failure, not after all 100
}

TEST_CASE("concurrent appends are all durable, in one journal, with fewer fsyncs than lines", "[engine]") {
  const auto dir = scratch_directory();
  const auto path = dir / "ledger.json.journal";
  std::filesystem::remove(path);
  asio::io_context io(1);
  asio::thread_pool fsync_pool(1);
  strata::store::JournalWriter journal(io.get_executor(), fsync_pool, path.string(), 0);
  strata::engine::JobPool pool(io, 16, 100ms);
  auto job = [&](std::size_t i) -> asio::awaitable<void> {
    co_await sleep_for(std::chrono::milliseconds(i % 4));
    std::string line = "{\"n\":" + std::to_string(i) + "}";
    co_await journal.append(std::move(line));
  };
  run_on(io, [&]() -> asio::awaitable<void> { co_await pool.run(400, [](std::size_t) { return true; }, job); });
  const auto lines = lines_of(path);
  REQUIRE(lines.size() == 400);
  std::vector<bool> seen(400, false);
  for (const auto& line : lines) seen.at(std::stoul(line.substr(5))) = true;
  CHECK(std::count(seen.begin(), seen.end(), true) == 400);
  CHECK(journal.entries() == 400);
  CHECK(journal.syncs() < 400);  // 16 appenders at once share fsyncs (group commit)
  fsync_pool.join();
  std::filesystem::remove_all(dir);
}

TEST_CASE("processes started from many slots at once all finish with their own output", "[engine]") {
  strata::exec::init_process_runtime();
  asio::io_context io(1);
  strata::engine::JobPool pool(io, 32, 300ms);
  std::vector<std::string> outputs(96);
  auto job = [&](std::size_t i) -> asio::awaitable<void> {
    strata::exec::ProcessSpec spec;
    spec.program = "/bin/sh";
    spec.args = {"-c", "read line; echo \"$line-$1\"", "sh", std::to_string(i)};
    spec.env = {"PATH=/usr/bin:/bin"};
    spec.working_directory = "/";
    spec.stdin_data = "request\n";
    spec.timeout = 20s;
    spec.kill_grace = 300ms;
    const strata::exec::ProcessResult result = co_await strata::exec::run_bounded_process(std::move(spec));
    outputs[i] = result.stdout_data;
  };
  run_on(io, [&]() -> asio::awaitable<void> { co_await pool.run(outputs.size(), [](std::size_t) { return true; }, job); });
  for (std::size_t i = 0; i < outputs.size(); ++i) CHECK(outputs[i] == "request-" + std::to_string(i) + "\n");
}
