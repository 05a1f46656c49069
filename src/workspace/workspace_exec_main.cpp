// strata-workspace-exec: runs one provider in its own mount and PID namespaces, with an overlay
// of its repository mounted over the repository's own path (docs/WORKSPACES.md).
//
//   strata-workspace-exec [--parent PID] [--overlay LOWER UPPER WORK] [--max-processes N] [--no-network] --view DIR
//                         -- PROGRAM [ARG...]
//
// --overlay mounts LOWER+UPPER over LOWER itself; --view is the provider's working directory;
// --max-processes bounds the processes alive at once (this program and everything it starts) by a
// pids cgroup of its own (the verifier's checks, docs/VERIFIER.md): RLIMIT_NPROC bounds nothing
// for root, a cgroup does (../shared/notes/toolchain.md §5a); --no-network gives the program a
// network namespace of its own, with nothing in it (an unconfined check without the network).
// Why a program of its own and not code in strata: the namespaces must be made between fork and
// exec, and strata starts every child with posix_spawn (no code runs there). This one is small,
// single-threaded and statically linked (two execs per attempt: itself and its PID 1).
//
// What it guarantees:
// - the overlay exists only in the provider's mount namespace: when its last process ends the
//   mount ends with it, however strata or this program died (no mount to sweep, ever);
// - the provider runs as PID 2 of a PID namespace whose PID 1 is this program again (started
//   with --init, by posix_spawn like every child of Strata's, not fork): when the
//   provider exits, PID 1 exits and the kernel kills every process left in the namespace (a
//   background child cannot go on writing after the execution is over);
// - this program dies with its parent (strata) and PID 1 dies with this program.
// The exit status is the provider's: its exit code, or the signal that killed it re-raised.
// 125 with a line on stderr means the namespace or the mount could not be made.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace {

constexpr int kSetupFailed = 125;
constexpr int kParentFd = 3;  // PID 1's end of a pipe whose other end only the launcher holds

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "strata-workspace-exec: %s: %s\n", what.c_str(), std::strerror(errno));
  std::_Exit(kSetupFailed);
}

// Overlay options separate their values with ',' and ':': a path holding one is escaped.
std::string escaped(const char* path) {
  std::string out;
  for (const char* c = path; *c; ++c) {
    if (*c == ',' || *c == ':' || *c == '\\') out += '\\';
    out += *c;
  }
  return out;
}

bool write_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// The pids cgroups of --max-processes: one per launcher, named by its PID, under one parent.
constexpr const char* kPidsRoot = "/sys/fs/cgroup/pids";
constexpr const char* kPidsParent = "/sys/fs/cgroup/pids/strata-processes";

// Removes the cgroups whose launcher is gone (killed before it removed its own): an empty cgroup
// is removed, one still holding processes refuses (EBUSY) and stays.
void sweep_pids_cgroups() {
  DIR* directory = ::opendir(kPidsParent);
  if (directory == nullptr) return;
  while (const dirent* entry = ::readdir(directory)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    ::rmdir((std::string(kPidsParent) + "/" + entry->d_name).c_str());
  }
  ::closedir(directory);
}

// Moves this program into a pids cgroup of its own allowing `limit` processes; everything it
// starts inherits it. Returns the cgroup's path. Fails (125) when the controller is there but the
// cgroup cannot be made: a bound asked for is never silently dropped (Strata asks only where
// kPidsRoot is writable).
std::string enter_pids_cgroup(long limit, std::string& was) {
  was = kPidsRoot;
  if (FILE* self = std::fopen("/proc/self/cgroup", "re")) {  // "8:pids:/some/path"
    char line[4096];
    while (std::fgets(line, sizeof line, self) != nullptr) {
      const char* found = std::strstr(line, ":pids:");
      if (found == nullptr) continue;
      std::string path = found + 6;
      while (!path.empty() && path.back() == '\n') path.pop_back();
      if (path != "/") was += path;
    }
    std::fclose(self);
  }
  sweep_pids_cgroups();
  if (::mkdir(kPidsParent, 0755) != 0 && errno != EEXIST) fail(std::string("cannot make ") + kPidsParent);
  const std::string cgroup = std::string(kPidsParent) + "/" + std::to_string(::getpid());
  ::rmdir(cgroup.c_str());  // a PID's earlier launcher, killed
  if (::mkdir(cgroup.c_str(), 0755) != 0) fail("cannot make " + cgroup);
  if (!write_file((cgroup + "/pids.max").c_str(), std::to_string(limit)) ||
      !write_file((cgroup + "/cgroup.procs").c_str(), std::to_string(::getpid()))) {
    ::rmdir(cgroup.c_str());
    fail("cannot bound the processes with " + cgroup);
  }
  return cgroup;
}

// Back to the pids cgroup it came from (`was`), and its own removed: every process of the
// namespace is gone once its PID 1 is reaped, so it is empty (a retry covers the kernel's last
// release).
void leave_pids_cgroup(const std::string& cgroup, const std::string& was) {
  write_file((was + "/cgroup.procs").c_str(), std::to_string(::getpid()));
  for (int attempt = 0; attempt < 100 && ::rmdir(cgroup.c_str()) != 0 && errno == EBUSY; ++attempt) ::usleep(1000);
}

// Root makes the namespaces directly; anyone else through a user namespace that maps them to
// root inside it (kernel 5.11+ then allows the overlay, with extended attributes in the user
// namespace's own space: "userxattr").
bool enter_namespaces(bool no_network) {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  const int network = no_network ? CLONE_NEWNET : 0;
  if (uid == 0) {
    if (::unshare(CLONE_NEWNS | CLONE_NEWPID | network) != 0) fail("cannot make a mount and PID namespace");
    return false;
  }
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | network) != 0) fail("cannot make a user, mount and PID namespace");
  if (!write_file("/proc/self/setgroups", "deny") || !write_file("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
      !write_file("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1"))
    fail("cannot map the user into its namespace");
  return true;
}

void ignore_termination(void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  for (int signal : {SIGTERM, SIGINT, SIGHUP, SIGQUIT}) ::sigaction(signal, &action, nullptr);
}

void nothing(int) {}

// Waits for `child`, reaping any other process that ends meanwhile (PID 1 inherits orphans),
// and returns its wait status.
int wait_for(pid_t child) {
  for (;;) {
    int status = 0;
    const pid_t ended = ::waitpid(-1, &status, 0);
    if (ended == child) return status;
    if (ended < 0 && errno != EINTR) fail("lost the provider");
  }
}

[[noreturn]] void exit_like(int status) {
  if (WIFSIGNALED(status)) {
    ::signal(WTERMSIG(status), SIG_DFL);
    ::prctl(PR_SET_DUMPABLE, 0);  // no core file of this program for the provider's crash
    ::raise(WTERMSIG(status));
  }
  std::_Exit(WIFEXITED(status) ? WEXITSTATUS(status) : kSetupFailed);
}

// Starts `argv` (argv[0] a path) with every signal unblocked and default; returns its PID.
// `pass_fd` >= 0: that descriptor becomes the child's descriptor 3.
pid_t spawn(char** argv, int pass_fd = -1) {
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  if (pass_fd >= 0) ::posix_spawn_file_actions_adddup2(&actions, pass_fd, kParentFd);
  posix_spawnattr_t attributes;
  ::posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  ::posix_spawnattr_setsigmask(&attributes, &none);
  ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  pid_t child = 0;
  const int error = ::posix_spawn(&child, argv[0], &actions, &attributes, argv, environ);
  ::posix_spawnattr_destroy(&attributes);
  ::posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    errno = error;
    fail(std::string("cannot start ") + argv[0]);
  }
  return child;
}

// PID 1 of the namespace: starts the provider and waits for it.
[[noreturn]] void run_as_init(char** program, const char* view) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail("cannot tie PID 1 to its parent");
  // The launcher may have died before the line above: then its end of the pipe is closed (PID 1
  // cannot ask getppid(), its parent is outside its namespace). From here on, its death kills us.
  struct pollfd parent {kParentFd, 0, 0};
  if (::poll(&parent, 1, 0) != 0) std::_Exit(kSetupFailed);
  ::close(kParentFd);
  if (::chdir(view) != 0) fail(std::string("cannot enter ") + view);
  // Handlers (not SIG_IGN, which a child would inherit through exec): a signal to the process
  // group reaches the provider, and PID 1 only waits for it to end.
  ignore_termination(nothing);
  exit_like(wait_for(spawn(program)));
}

int usage() {
  std::fprintf(stderr,
               "usage: strata-workspace-exec [--parent PID] [--overlay LOWER UPPER WORK] [--max-processes N] [--no-network] --view WORKING-DIR "
               "-- PROGRAM [ARG...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const char *lower = nullptr, *upper = nullptr, *work = nullptr, *view = nullptr;
  bool init = false;
  long max_processes = 0;  // --max-processes: 0, no bound of its own
  bool no_network = false;
  pid_t expected_parent = 0;  // --parent: Strata's PID (it may be gone before this line)
  int i = 1;
  for (; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--overlay" && i + 3 < argc) {
      lower = argv[++i];
      upper = argv[++i];
      work = argv[++i];
    } else if (flag == "--parent" && i + 1 < argc) {
      expected_parent = static_cast<pid_t>(std::atol(argv[++i]));
    } else if (flag == "--max-processes" && i + 1 < argc) {
      max_processes = std::atol(argv[++i]);
      if (max_processes <= 0) return usage();
    } else if (flag == "--no-network") {
      no_network = true;
    } else if (flag == "--init") {
      init = true;
    } else if (flag == "--view" && i + 1 < argc) {
      view = argv[++i];
    } else if (flag == "--") {
      ++i;
      break;
    } else {
      return usage();
    }
  }
  if (view == nullptr || i >= argc) return usage();
  if (init) run_as_init(argv + i, view);
  const pid_t parent = expected_parent != 0 ? expected_parent : ::getppid();
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) fail("the parent is gone");
  std::string cgroup_was;
  const std::string cgroup = max_processes > 0 ? enter_pids_cgroup(max_processes, cgroup_was) : std::string();
  const bool user_namespace = enter_namespaces(no_network);
  // Nothing mounted here may propagate back to the parent's namespace.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail("cannot make the mounts private");
  if (lower != nullptr) {
    std::string options = "lowerdir=" + escaped(lower) + ",upperdir=" + escaped(upper) + ",workdir=" + escaped(work);
    if (user_namespace) options += ",userxattr";
    // Over the repository's own path: inside, that path is the writable view; the repository
    // itself cannot be reached from here at all.
    if (::mount("overlay", lower, "overlay", 0, options.c_str()) != 0) fail(std::string("cannot mount the overlay on ") + lower);
  }
  ignore_termination(nothing);
  // PID 1: this program again, in --init mode, with the same view and program.
  std::string self = "/proc/self/exe";
  std::string init_flag = "--init", view_flag = "--view", end = "--";
  std::vector<char*> init_argv{self.data(), init_flag.data(), view_flag.data(), const_cast<char*>(view), end.data()};
  for (int k = i; k < argc; ++k) init_argv.push_back(argv[k]);
  init_argv.push_back(nullptr);
  int alive[2];
  if (::pipe2(alive, O_CLOEXEC) != 0) fail("cannot make a pipe");
  const pid_t pid_1 = spawn(init_argv.data(), alive[0]);
  ::close(alive[0]);  // alive[1] stays open, here only, until this program ends
  const int status = wait_for(pid_1);
  if (!cgroup.empty()) leave_pids_cgroup(cgroup, cgroup_was);
  exit_like(status);
}
