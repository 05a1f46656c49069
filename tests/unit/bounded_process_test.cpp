#include <catch2/catch.hpp>

#include <signal.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "strata/exec/bounded_process.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using strata::exec::ProcessEnd;
using strata::exec::ProcessResult;
using strata::exec::ProcessSpec;

namespace {

ProcessResult run_sync(const ProcessSpec& spec) {
  strata::exec::init_process_runtime();
  asio::io_context io(1);
  ProcessSpec copy = spec;
  auto future = asio::co_spawn(io, strata::exec::run_bounded_process(std::move(copy)), asio::use_future);
  io.run();
  return future.get();
}

ProcessSpec shell(const std::string& script) {
  ProcessSpec spec;
  spec.program = "/bin/sh";
  spec.args = {"-c", script};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.working_directory = "/";
  spec.timeout = 5s;
  spec.kill_grace = 300ms;
  return spec;
}

bool process_alive(pid_t pid) {
  // A zombie waiting for init to reap it counts as dead.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto state = line.substr(line.rfind(')') + 2, 1);
  return state != "Z" && state != "X";
}

// kill() only queues a signal: the target becomes a zombie when the kernel next runs it, which
// on a loaded machine is a moment after the group kill returned. A killed process is dead within
// `bound`; one that was not killed would still sleep (the tests' sleeps last 30 s).
bool dies_within(pid_t pid, std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (process_alive(pid)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

}  // namespace

TEST_CASE("stdin is written while stdout and stderr are read", "[process]") {
  ProcessSpec spec = shell("cat; echo done >&2; exit 3");
  spec.stdin_data = "{\"id\":7}\n";
  const ProcessResult r = run_sync(spec);
  CHECK(r.end == ProcessEnd::exited);
  CHECK(r.exit_code == 3);
  CHECK(r.stdout_data == "{\"id\":7}\n");
  CHECK(r.stderr_bytes == 5);
  CHECK(r.stderr_sha256 == "d117fa006ba9208500b2930ce69cbde436c647afa917cb7396a9bc9111a46dd2");
}

TEST_CASE("the environment and working directory are exactly as given", "[process]") {
  ProcessSpec spec = shell("pwd; env | sort");
  spec.env = {"PATH=/usr/bin:/bin", "ONLY_THIS=1"};
  spec.working_directory = "/tmp";
  const ProcessResult r = run_sync(spec);
  CHECK(r.stdout_data == "/tmp\nONLY_THIS=1\nPATH=/usr/bin:/bin\nPWD=/tmp\n");
}

TEST_CASE("a timeout terminates the whole group, grandchildren included", "[process]") {
  ProcessSpec spec = shell("sleep 30 & echo $!; sleep 30");
  spec.timeout = 1000ms;  // room for the shell to print the grandchild's pid on a loaded machine
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult r = run_sync(spec);
  CHECK(r.end == ProcessEnd::timed_out);
  CHECK(std::chrono::steady_clock::now() - t0 < 10s);  // not the 30 s of the sleeps
  REQUIRE_FALSE(r.stdout_data.empty());
  const pid_t grandchild = std::stoi(r.stdout_data);
  CHECK(dies_within(grandchild, 5s));
}

TEST_CASE("a child that ignores SIGTERM is killed after the grace period", "[process]") {
  ProcessSpec spec = shell("trap '' TERM; while :; do sleep 0.05; done");
  spec.timeout = 100ms;
  const ProcessResult r = run_sync(spec);
  CHECK(r.end == ProcessEnd::timed_out);
}

TEST_CASE("stdout over the limit fails closed", "[process]") {
  ProcessSpec spec;
  spec.program = "/usr/bin/yes";
  spec.working_directory = "/";
  spec.stdout_limit = 64 * 1024;
  spec.kill_grace = 300ms;
  const ProcessResult r = run_sync(spec);
  CHECK(r.end == ProcessEnd::output_limit);
  CHECK(r.stdout_data.size() > 64 * 1024);
}

TEST_CASE("stdout streamed to a sink: every byte, in order, nothing kept; the limit caps the stream", "[process]") {
  // 3 MB of numbered lines: more than the pipe holds, so the sink sees many chunks.
  ProcessSpec spec = shell("seq 1 400000");
  std::string streamed;
  std::size_t chunks = 0;
  spec.stdout_sink = [&](std::string_view chunk) {
    streamed.append(chunk);
    ++chunks;
  };
  spec.stdout_limit = 16 * 1024 * 1024;
  const ProcessResult r = run_sync(spec);
  CHECK(r.end == ProcessEnd::exited);
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_data.empty());
  CHECK(r.stdout_bytes == streamed.size());
  CHECK(streamed.size() == 2688895);  // seq 1 400000 | wc -c
  CHECK(streamed.substr(0, 4) == "1\n2\n");
  CHECK(streamed.substr(streamed.size() - 7) == "400000\n");
  CHECK(chunks > 1);

  ProcessSpec capped = shell("seq 1 400000");
  std::size_t seen = 0;
  capped.stdout_sink = [&](std::string_view chunk) { seen += chunk.size(); };
  capped.stdout_limit = 256 * 1024;
  const ProcessResult over = run_sync(capped);
  CHECK(over.end == ProcessEnd::output_limit);
  CHECK(over.stdout_data.empty());
  CHECK(seen > 256 * 1024);
  CHECK(seen < 2688895);
}

TEST_CASE("a grandchild holding stdout cannot keep the attempt open", "[process]") {
  ProcessSpec spec = shell("sleep 30 & echo '{}'");
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult r = run_sync(spec);
  CHECK(r.end == ProcessEnd::exited);
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_data == "{}\n");
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);
}

TEST_CASE("a child that never reads 8 MB of stdin cannot deadlock", "[process]") {
  ProcessSpec spec = shell("echo '{}'");
  spec.stdin_data.assign(8 * 1000 * 1000, 'x');
  const ProcessResult r = run_sync(spec);
  CHECK(r.end == ProcessEnd::exited);
  CHECK(r.stdout_data == "{}\n");
}

TEST_CASE("a child that closes stdout and keeps running times out", "[process]") {
  ProcessSpec spec = shell("exec 1>&-; sleep 30");
  spec.timeout = 200ms;
  const ProcessResult r = run_sync(spec);
  CHECK(r.end == ProcessEnd::timed_out);
}

TEST_CASE("spawn failures are reported, not thrown", "[process]") {
  ProcessSpec spec;
  spec.program = "/definitely/missing/study-agent";
  spec.working_directory = "/";
  ProcessResult r = run_sync(spec);
  CHECK(r.end == ProcessEnd::spawn_failed);
  CHECK(r.spawn_error == "No such file or directory");
  spec.program = "/tmp";
  r = run_sync(spec);
  CHECK(r.end == ProcessEnd::spawn_failed);
  CHECK(r.spawn_error == "Permission denied");
}

TEST_CASE("a child killed by a signal reports it", "[process]") {
  const ProcessResult r = run_sync(shell("kill -9 $$"));
  CHECK(r.end == ProcessEnd::signaled);
  CHECK(r.term_signal == SIGKILL);
}

TEST_CASE("200 children at once on one io_context", "[process]") {
  strata::exec::init_process_runtime();
  asio::io_context io(1);
  int ok = 0;
  for (int i = 0; i < 200; ++i)
    asio::co_spawn(
        io,
        [&ok, i]() -> asio::awaitable<void> {
          ProcessSpec spec;
          spec.program = "/bin/cat";
          spec.working_directory = "/";
          spec.stdin_data = std::to_string(i);
          const ProcessResult r = co_await strata::exec::run_bounded_process(std::move(spec));
          ok += r.end == ProcessEnd::exited && r.exit_code == 0 && r.stdout_data == std::to_string(i);
        },
        asio::detached);
  io.run();
  CHECK(ok == 200);
}
