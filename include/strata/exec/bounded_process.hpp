#pragma once
// One bounded child process (spec §3.4-3.5, improved): no shell, a new process group,
// stdin written while stdout and stderr are read, a stdout cap that fails closed, a
// counted-and-hashed stderr with a total cap, and on timeout or overflow SIGTERM to the
// group, a grace period, then SIGKILL to the group. Exits are watched through a pidfd.
#include <boost/asio/awaitable.hpp>

#include "strata/exec/process_spec.hpp"

namespace strata::exec {

// Call once at start-up: ignore SIGPIPE, mark inherited descriptors close-on-exec.
void init_process_runtime();

// How many bounded processes (or endpoint calls) can be in flight under the open-file limit,
// at most `requested`. Raises the soft limit to the hard one first. Each one in flight holds up
// to seven descriptors (both ends of three pipes until it is spawned, then a pidfd); the rest of
// the run keeps a few for itself.
int jobs_within_open_file_limit(int requested, long* limit = nullptr);

// Runs one process to completion on the calling coroutine's executor. Never throws for
// child behaviour; running out of descriptors (EMFILE/ENFILE) is Strata's problem, not the
// child's, so it throws strata::Error instead of reporting a spawn failure; pass a named ProcessSpec (g++ 12 coroutine parameter bug).
boost::asio::awaitable<ProcessResult> run_bounded_process(ProcessSpec spec);

// The same, to completion, on an event loop of its own: for a short helper process (a probe, git)
// before or outside the run's loop. Blocks the calling thread.
ProcessResult run_process_to_end(ProcessSpec spec);

// Strata itself is out of file descriptors (EMFILE/ENFILE while starting a provider or opening
// an endpoint connection): the run must stop (or run fewer at once), never record that as the
// provider's outcome. Releases the descriptors held back for the stop path (the error, the fold,
// the sanitizer runtime) and throws strata::Error with `what` and the advice.
[[noreturn]] void stop_out_of_descriptors(const std::string& what);

// Signal every live process group started by run_bounded_process (used on interrupt).
void signal_all_process_groups(int signal_number);

}  // namespace strata::exec
