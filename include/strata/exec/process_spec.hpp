#pragma once
// What a bounded child process is asked to do and what became of it (exec/bounded_process.hpp
// runs it): plain data, so the rules that read a result (engine/attempt_outcome) need no event
// loop.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::exec {

struct ProcessSpec {
  std::string program;               // resolved path, run without a shell
  std::vector<std::string> args;     // argv[1..]
  std::vector<std::string> env;      // exactly these "NAME=value" entries
  std::string working_directory;
  std::string stdin_data;
  std::chrono::milliseconds timeout{10000};
  std::size_t stdout_limit = 256000;        // more bytes than this: output-limit
  std::size_t stderr_limit = 1024 * 1024;   // counted and hashed up to this many bytes
  std::chrono::milliseconds kill_grace{2000};  // SIGTERM -> SIGKILL
  // When set, stdout goes here as it arrives (chunks as read, not lines), on the event loop's
  // thread, instead of into ProcessResult::stdout_data; stdout_limit then caps the bytes
  // streamed. For a child whose output is a long event stream (an agent CLI, issue 16).
  std::function<void(std::string_view)> stdout_sink;
  // Keep the (capped) stderr bytes in ProcessResult::stderr_data: for Strata's own helper
  // processes (a pre-flight probe), whose error line is the message to show. Never for providers.
  bool keep_stderr = false;
};

enum class ProcessEnd {
  exited,        // exit_code is set
  signaled,      // killed by term_signal (not by us)
  timed_out,     // our deadline fired first
  output_limit,  // stdout went over the limit first
  spawn_failed,  // could not start (spawn_error says why)
};

struct ProcessResult {
  ProcessEnd end = ProcessEnd::spawn_failed;
  int exit_code = -1;    // when the leader exited normally
  int term_signal = 0;   // when the leader was killed by a signal
  std::string stdout_data;  // raw bytes, at most stdout_limit + one read (empty with a stdout_sink)
  std::size_t stdout_bytes = 0;  // every byte read from stdout
  std::size_t stderr_bytes = 0;  // kept (capped) stderr bytes
  std::string stderr_data;       // those bytes, with ProcessSpec::keep_stderr only
  std::string stderr_sha256 =    // hex SHA-256 of the kept stderr bytes
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  std::chrono::milliseconds duration{0};
  std::string spawn_error;
};

}  // namespace strata::exec
