#include "strata/exec/bounded_process.hpp"

#include "strata/error.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/exec/awaitable_tuple.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>

namespace strata::exec {
namespace {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using Clock = std::chrono::steady_clock;

// Live process group ids, so an interrupt can reach every child.
std::set<pid_t>& live_groups() {
  static std::set<pid_t> groups;
  return groups;
}

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  bool open() { int fds[2]; if (::pipe2(fds, O_CLOEXEC) != 0) return false; read_end = fds[0]; write_end = fds[1]; return true; }
  void close_both() {
    if (read_end >= 0) ::close(read_end);
    if (write_end >= 0) ::close(write_end);
    read_end = write_end = -1;
  }
};

// Spawns the child as the leader of a new process group with the three pipes as its
// standard streams. Returns the pid, or -1 with errno set.
pid_t spawn_child(const ProcessSpec& spec, Pipe& in, Pipe& out, Pipe& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read_end, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write_end, 1);
  posix_spawn_file_actions_adddup2(&actions, err.write_end, 2);
  posix_spawn_file_actions_addchdir_np(&actions, spec.working_directory.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGCHLD, SIGXFSZ}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv{const_cast<char*>(spec.program.c_str())};
  for (const auto& a : spec.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, spec.program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    errno = rc;
    return -1;
  }
  return pid;
}

// Bytes read from a pipe at once. Each reader keeps its buffer in its coroutine frame; below
// 64 KiB, so freeing a frame does not make glibc consolidate its fast bins every execution.
constexpr std::size_t kReadChunk = 32 * 1024;

// The shared state of one running attempt; every coroutine below runs on one thread.
class Attempt {
 public:
  Attempt(asio::any_io_executor ex, const ProcessSpec& spec, std::size_t stdin_written, pid_t pid, int pidfd, Pipe& in,
          Pipe& out, Pipe& err)
      : spec_(spec), stdin_written_(stdin_written), pid_(pid), pidfd_(ex, pidfd), stdin_(ex), stdout_(ex, out.read_end),
        stderr_(ex, err.read_end), escalation_(ex), drain_(ex), watchdog_(ex) {
    if (in.write_end >= 0) stdin_.assign(in.write_end);  // else the request is all in the pipe already
    in.write_end = out.read_end = err.read_end = -1;  // now owned by the descriptors
    live_groups().insert(pid_);
  }
  ~Attempt() { live_groups().erase(pid_); }

  asio::awaitable<void> run() {
    co_await ((write_stdin() && read_stdout() && read_stderr() && wait_exit()) || watchdog());
  }

  ProcessResult result;

 private:
  void signal_group(int sig) {
    if (!reaped_) ::kill(-pid_, sig);  // the unreaped leader keeps the group id ours
  }

  // SIGTERM to the group, a grace period, then SIGKILL. Returns early once the leader exits.
  asio::awaitable<void> terminate_group() {
    if (terminating_) co_return;
    terminating_ = true;
    signal_group(SIGTERM);
    escalation_.expires_after(spec_.kill_grace);
    co_await escalation_.async_wait(kTuple);
    if (!exited_) signal_group(SIGKILL);
  }

  void pipe_finished() {
    if (--open_pipes_ == 0) drain_.cancel();
  }

  asio::awaitable<void> write_stdin() {
    if (stdin_.is_open()) {
      co_await asio::async_write(stdin_, asio::buffer(spec_.stdin_data) + stdin_written_, kTuple);
      boost::system::error_code ignored;
      stdin_.close(ignored);  // EOF for the child; EPIPE above just means it stopped reading
    }
    pipe_finished();
  }

  asio::awaitable<void> read_stdout() {
    char buffer[kReadChunk];
    for (;;) {
      auto [ec, n] = co_await stdout_.async_read_some(asio::buffer(buffer), kTuple);
      if (ec) break;
      result.stdout_bytes += n;
      if (spec_.stdout_sink) spec_.stdout_sink(std::string_view(buffer, n));
      else result.stdout_data.append(buffer, n);
      if (result.stdout_bytes > spec_.stdout_limit) {
        if (!ended_) {
          ended_ = true;
          result.end = ProcessEnd::output_limit;
        }
        boost::system::error_code ignored;
        stdout_.close(ignored);
        pipe_finished();
        co_await terminate_group();
        co_return;
      }
    }
    pipe_finished();
  }

  asio::awaitable<void> read_stderr() {
    char buffer[kReadChunk];
    model::Sha256 hash;
    for (;;) {
      auto [ec, n] = co_await stderr_.async_read_some(asio::buffer(buffer), kTuple);
      if (ec) break;
      const std::size_t keep = std::min(n, spec_.stderr_limit - result.stderr_bytes);
      hash.update(std::string_view(buffer, keep));
      if (spec_.keep_stderr) result.stderr_data.append(buffer, keep);
      result.stderr_bytes += keep;
    }
    result.stderr_sha256 = hash.hex();
    pipe_finished();
  }

  // The pidfd becoming readable is only a hint (spurious wake-ups were measured):
  // confirm with waitid(WNOWAIT) before acting.
  asio::awaitable<void> wait_exit() {
    for (;;) {
      co_await pidfd_.async_wait(asio::posix::stream_descriptor::wait_read, kTuple);
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_)
        break;
    }
    exited_ = true;
    escalation_.cancel();
    ::kill(-pid_, SIGKILL);  // stragglers of the group must not hold the pipes open
    int status = 0;
    ::waitpid(pid_, &status, 0);
    reaped_ = true;
    result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_);
    if (!ended_) {
      ended_ = true;
      if (WIFEXITED(status)) {
        result.end = ProcessEnd::exited;
        result.exit_code = WEXITSTATUS(status);
      } else {
        result.end = ProcessEnd::signaled;
        result.term_signal = WTERMSIG(status);
      }
    }
    // A process that escaped the group (setsid) may still hold a pipe: close ours soon.
    if (open_pipes_ > 0) {
      drain_.expires_after(std::chrono::milliseconds(200));
      co_await drain_.async_wait(kTuple);
      boost::system::error_code ignored;
      stdin_.close(ignored);
      stdout_.close(ignored);
      stderr_.close(ignored);
    }
  }

  asio::awaitable<void> watchdog() {
    watchdog_.expires_after(spec_.timeout);
    auto [ec] = co_await watchdog_.async_wait(kTuple);
    if (ec) co_return;
    if (!ended_) {
      ended_ = true;
      result.end = ProcessEnd::timed_out;
      result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_);
    }
    co_await terminate_group();
    watchdog_.expires_at(Clock::time_point::max());  // wait here until the process is gone
    co_await watchdog_.async_wait(kTuple);
  }

  const ProcessSpec& spec_;
  std::size_t stdin_written_;  // before the spawn (prefill_stdin)
  pid_t pid_;
  asio::posix::stream_descriptor pidfd_, stdin_, stdout_, stderr_;
  asio::steady_timer escalation_, drain_, watchdog_;
  Clock::time_point start_ = Clock::now();
  int open_pipes_ = 3;
  bool ended_ = false, exited_ = false, reaped_ = false, terminating_ = false;
};

asio::thread_pool& spawn_pool() {
  static asio::thread_pool pool(2);
  return pool;
}

// Descriptors held back for the stop path: once a launch finds none left, these are closed
// so that reporting the error, folding the journal (a temporary file, a directory fsync) and the
// sanitizer runtime (which checks memory through a pipe) still get descriptors.
int reserved_descriptors[2] = {-1, -1};

void hold_reserved_descriptors() {
  for (int& fd : reserved_descriptors)
    if (fd < 0) fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
}

void release_reserved_descriptors() {
  for (int& fd : reserved_descriptors) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
}

void throw_if_out_of_descriptors(int error) {
  if (error == EMFILE || error == ENFILE) stop_out_of_descriptors(std::string("cannot start a provider: ") + std::strerror(error));
}

// The three pipes of one child, until the Attempt takes the parent's ends.
struct Pipes {
  Pipe in, out, err;
  bool open() { return in.open() && out.open() && err.open(); }
  void close_child_ends() {
    for (int* fd : {&in.read_end, &out.write_end, &err.write_end}) {
      if (*fd >= 0) ::close(*fd);
      *fd = -1;
    }
  }
  void close_parent_stdin() {
    ::close(in.write_end);
    in.write_end = -1;
  }
  void close_all() {
    in.close_both();
    out.close_both();
    err.close_both();
  }
};

// A child that could not be started: its pipes closed; out of descriptors stops the run
// (throws), anything else is the provider's spawn failure, described as `what` + strerror.
ProcessResult give_up(Pipes& pipes, int error, const std::string& what) {
  pipes.close_all();
  throw_if_out_of_descriptors(error);
  ProcessResult r;
  r.end = ProcessEnd::spawn_failed;
  r.spawn_error = what + std::strerror(error);
  return r;
}

// Writes as much of the request as the pipe takes now, before the child exists, so the child
// finds its stdin waiting instead of waiting for the event loop, which is busiest exactly when
// many children start or end together. Only the parent's end is made non-blocking (the child's
// end is a separate open file). Returns the bytes written; when that is all of it, the caller
// closes its end before the spawn too, so the child's EOF does not wait for the event loop
// either; otherwise the Attempt writes the rest.
std::size_t prefill_stdin(int write_end, const std::string& data) {
  if (data.empty() || ::fcntl(write_end, F_SETFL, ::fcntl(write_end, F_GETFL) | O_NONBLOCK) != 0) return 0;
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(write_end, data.data() + written, data.size() - written);
    if (n > 0)
      written += static_cast<std::size_t>(n);
    else if (n < 0 && errno == EINTR)
      continue;
    else
      break;  // full (EAGAIN): the rest goes once the child reads
  }
  return written;
}

}  // namespace

void stop_out_of_descriptors(const std::string& what) {
  release_reserved_descriptors();
  throw Error(what + "; lower --jobs or raise the open-file limit (ulimit -n)");
}

void init_process_runtime() {
  ::signal(SIGPIPE, SIG_IGN);
  ::syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
  hold_reserved_descriptors();
}

int jobs_within_open_file_limit(int requested, long* limit) {
  static constexpr long kReserved = 24, kPerJob = 7;  // six pipe ends until the spawn, and a pidfd
  struct rlimit files {};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0) return requested;
  if (files.rlim_cur < files.rlim_max) {  // the hard limit is ours to use
    files.rlim_cur = files.rlim_max == RLIM_INFINITY ? std::max<rlim_t>(files.rlim_cur, 1 << 20) : files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
    ::getrlimit(RLIMIT_NOFILE, &files);
  }
  if (files.rlim_cur == RLIM_INFINITY) return requested;
  if (limit != nullptr) *limit = static_cast<long>(files.rlim_cur);
  const long fit = std::max(1L, (static_cast<long>(files.rlim_cur) - kReserved) / kPerJob);
  return static_cast<int>(std::min<long>(requested, fit));
}

void signal_all_process_groups(int signal_number) {
  for (pid_t group : live_groups()) ::kill(-group, signal_number);
}

asio::awaitable<ProcessResult> run_bounded_process(ProcessSpec spec) {
  Pipes pipes;
  if (!pipes.open()) {
    const int error = errno;  // before anything else can change it
    co_return give_up(pipes, error, "cannot create pipes: ");
  }
  const std::size_t stdin_written = prefill_stdin(pipes.in.write_end, spec.stdin_data);
  if (stdin_written == spec.stdin_data.size()) pipes.close_parent_stdin();  // EOF follows the request
  // posix_spawn blocks until the child has exec'd (about half a millisecond): run it on the
  // spawn threads so the event loop keeps serving the other children meanwhile.
  pid_t pid = -1;
  int spawn_errno = 0;
  co_await asio::co_spawn(
      spawn_pool(),
      [&]() -> asio::awaitable<void> {
        pid = spawn_child(spec, pipes.in, pipes.out, pipes.err);
        spawn_errno = errno;
        co_return;
      },
      asio::use_awaitable);
  pipes.close_child_ends();  // the child's now
  if (pid < 0) co_return give_up(pipes, spawn_errno, "");
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {  // cannot watch it: do not leave it running
    const int error = errno;
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    co_return give_up(pipes, error, "pidfd_open failed: ");
  }
  auto attempt = std::make_unique<Attempt>(co_await asio::this_coro::executor, spec, stdin_written, pid, pidfd,
                                           pipes.in, pipes.out, pipes.err);
  co_await attempt->run();
  co_return std::move(attempt->result);
}

ProcessResult run_process_to_end(ProcessSpec spec) {
  asio::io_context io(1);
  auto result = asio::co_spawn(io, run_bounded_process(std::move(spec)), asio::use_future);
  io.run();
  return result.get();
}

}  // namespace strata::exec
