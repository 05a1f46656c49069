#include "strata/app/agents/agent_run.hpp"

#include <stdlib.h>
#include <unistd.h>


#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>

#include "strata/app/trajectories/trajectory_keeper.hpp"
#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/exec/command_lookup.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/untrusted_file.hpp"
#include "strata/workspace/tree_copy.hpp"

extern char** environ;

namespace strata::app {
namespace {

using Clock = std::chrono::steady_clock;

// The most of a side output read (Copilot CLI's telemetry: a few kilobytes a model call).
constexpr std::size_t kMaxSideOutputBytes = 64 * 1024 * 1024;

// Cuts the stream into lines as its chunks arrive, each handed to the reader with the time it
// arrived (for timeToFirstToolEventMs); a last line without a newline is read at the end.
class LineFeed {
 public:
  // `trajectory`, when there is one, is fed the same lines (an overlong line is not: its bytes
  // were not kept).
  LineFeed(model::AgentStreamReader& reader, model::TrajectoryNormaliser* trajectory)
      : reader_(reader), trajectory_(trajectory), started_(Clock::now()) {}

  void chunk(std::string_view bytes) {
    std::size_t begin = 0;
    for (std::size_t end = bytes.find('\n'); end != std::string_view::npos; end = bytes.find('\n', begin)) {
      append(bytes.substr(begin, end - begin));
      end_line();
      begin = end + 1;
    }
    append(bytes.substr(begin));
  }

  void finish() {
    if (!partial_.empty() || overlong_ > 0) end_line();
  }

 private:
  // No event comes near this (codex caps a command's output at 1 MiB, the Claude SDK reads lines
  // of up to 1 MiB); a longer line is a defect, and its bytes are counted, not held.
  static constexpr std::size_t kMaxLine = std::size_t{16} << 20;

  void append(std::string_view bytes) {
    if (overlong_ > 0 || partial_.size() + bytes.size() > kMaxLine) {
      overlong_ += partial_.size() + bytes.size();
      partial_.clear();
      return;
    }
    partial_.append(bytes);
  }

  void end_line() {
    if (overlong_ > 0) {
      reader_.add_overlong_line(overlong_);
    } else {
      const double at = elapsed_ms();
      reader_.add_line(partial_, at);
      if (trajectory_ != nullptr) trajectory_->add_line(partial_, at);
    }
    partial_.clear();
    overlong_ = 0;
  }

  double elapsed_ms() const { return std::chrono::duration<double, std::milli>(Clock::now() - started_).count(); }

  model::AgentStreamReader& reader_;
  model::TrajectoryNormaliser* trajectory_;
  Clock::time_point started_;
  std::string partial_;
  std::size_t overlong_ = 0;  // bytes of the current line, once it is too long to keep
};

// The file an agent reads beside its arguments (codex's output schema, Gemini CLI's policy:
// agent_side_file), in TMPDIR; removed when the run ends.
class SideFile {
 public:
  SideFile(const std::string& text, const std::string& suffix) {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-agent-file.XXXXXX" + suffix;
    const int fd = ::mkstemps(path_.data(), static_cast<int>(suffix.size()));
    if (fd < 0) throw Error("cannot create the agent's settings file in the temporary directory");
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!written) {
      ::unlink(path_.c_str());
      throw Error("cannot write the agent's settings file in the temporary directory");
    }
  }
  ~SideFile() { ::unlink(path_.c_str()); }
  SideFile(const SideFile&) = delete;
  SideFile& operator=(const SideFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Whether a name says it holds a credential (KEY, TOKEN, SECRET, ... in any case).
bool names_a_secret(std::string name) {
  static constexpr const char* kSecretWords[] = {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE"};
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return std::any_of(std::begin(kSecretWords), std::end(kSecretWords), [&](const char* word) { return name.find(word) != std::string::npos; });
}

// The strings of a JSON setting held under a credential's name, at any depth (OpenCode's
// OPENCODE_CONFIG_CONTENT carries its provider's apiKey).
void secrets_in(const model::Json& value, std::vector<std::string>& secrets) {
  if (!value.is_structured()) return;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (value.is_object() && it->is_string() && names_a_secret(it.key())) secrets.push_back(it->get<std::string>());
    secrets_in(*it, secrets);
  }
}

// The values never kept in a trajectory (the agent may print them: a tool that reads its
// environment or its configuration, a log): those of the variables whose names say they hold a
// credential, and the credentials inside a variable that holds JSON.
std::vector<std::string> secret_values(const std::vector<std::string>& environment) {
  std::vector<std::string> secrets;
  for (const std::string& entry : environment) {
    const std::size_t equals = entry.find('=');
    if (equals == std::string::npos) continue;
    const std::string value = entry.substr(equals + 1);
    if (names_a_secret(entry.substr(0, equals))) secrets.push_back(value);
    if (!value.empty() && value.front() == '{') {
      try {
        secrets_in(model::parse_json(value), secrets);
      } catch (const Error&) {
        // not JSON: only its name counts
      }
    }
  }
  return secrets;
}

// The trajectory, written whole (a temporary file renamed into place; fsynced unless Strata's
// channel, which Strata makes durable itself); a failure to write it is one line on stderr, never
// the run's failure.
void keep_trajectory(const model::TrajectoryNormaliser& trajectory, const model::AgentTurn& turn, const AgentRunOptions& options) {
  try {
    store::write_file_atomically(options.trajectory_path, model::compact_json(trajectory.finish(turn)) + "\n",
                                 !options.trajectory_to_channel);
  } catch (const Error& error) {
    std::fprintf(stderr, "strata: the trajectory was not written: %s\n", error.describe().c_str());
  }
}

// A temporary directory of the agent's own for the run, its TMPDIR; removed when the run ends
// (issue 36). Measured with Codex 0.169.0: when its home lies under the temporary directory
// (TMPDIR, or /tmp when unset) it refuses to make its helper binaries ("Refusing to create helper
// binaries under temporary dir") and then reports no command_execution events at all, so the
// tool counts read 0 while the commands ran. A fresh directory holds no home.
class AgentTempDirectory {
 public:
  AgentTempDirectory() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-agent-tmp.XXXXXX";
    if (::mkdtemp(path_.data()) == nullptr) throw Error("cannot create the agent's temporary directory in the temporary directory");
  }
  ~AgentTempDirectory() { workspace::remove_tree(path_); }
  AgentTempDirectory(const AgentTempDirectory&) = delete;
  AgentTempDirectory& operator=(const AgentTempDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The provider's environment with the agent's own settings over it (NAME=value, same name replaced).
std::vector<std::string> with_overrides(std::vector<std::string> environment, const std::vector<std::string>& overrides) {
  for (const std::string& setting : overrides) {
    const std::string prefix = setting.substr(0, setting.find('=') + 1);
    std::erase_if(environment, [&](const std::string& entry) { return entry.compare(0, prefix.size(), prefix) == 0; });
    environment.push_back(setting);
  }
  return environment;
}

// Why the run did not give an answer, from the process's end and then the stream's; nullopt
// when it did.
std::optional<std::string> run_failure(const exec::ProcessResult& process, const model::AgentStreamReader& reader,
                                       const AgentRunOptions& options) {
  switch (process.end) {
    case exec::ProcessEnd::spawn_failed: return "the agent could not be started: " + process.spawn_error;
    case exec::ProcessEnd::timed_out:
      return "the agent did not finish within " + std::to_string(options.timeout.count()) + " ms and was stopped";
    case exec::ProcessEnd::output_limit:
      return "the agent's event stream passed " + std::to_string(options.stream_limit) + " bytes and the agent was stopped";
    case exec::ProcessEnd::signaled: return "the agent was killed by signal " + std::to_string(process.term_signal);
    case exec::ProcessEnd::exited: break;
  }
  const std::optional<std::string> stream = reader.failure();
  if (process.exit_code != 0)
    return (stream ? *stream + "; " : std::string()) + "the agent exited with status " + std::to_string(process.exit_code);
  return stream;
}

}  // namespace

std::vector<std::string> inherited_environment() {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) environment.emplace_back(*entry);
  return environment;  // what Strata's envAllowlist let through to this provider process
}

std::string resolved_command(const std::string& command, const std::string& working_directory, const char* role) {
  const char* path_variable = std::getenv("PATH");
  try {
    return exec::resolve_command(command, working_directory, path_variable ? path_variable : "");
  } catch (const Error&) {
    throw Error(std::string("the ") + role + " command " + command + " is not an executable file (nor found in PATH)");
  }
}

AgentRun run_agent(AgentCli cli, const std::string& prompt, const model::Json& answer_schema, const AgentRunOptions& options) {
  exec::ProcessSpec spec;
  spec.working_directory = std::filesystem::current_path().string();
  spec.program = resolved_command(options.agent_command.empty() ? agent_cli_name(cli) : options.agent_command,
                                  spec.working_directory, "agent");
  const std::string schema_text = model::compact_json(answer_schema);
  std::optional<SideFile> side_file;
  if (const std::optional<AgentSideFile> file = agent_side_file(cli, options, schema_text)) side_file.emplace(file->text, file->suffix);
  const AgentTempDirectory temporary;
  AgentInvocation invocation = agent_invocation(cli, options, prompt, schema_text, side_file ? side_file->path() : "", temporary.path());
  spec.args = std::move(invocation.args);
  spec.env = with_overrides(with_overrides(inherited_environment(), {"TMPDIR=" + temporary.path()}), invocation.env);
  // The trajectory's channel is the adapter's, not the agent's to write.
  std::erase_if(spec.env, [](const std::string& entry) { return entry.rfind(std::string(kTrajectoryVariable) + "=", 0) == 0; });
  const std::size_t prompt_bytes = invocation.prompt.size();
  spec.stdin_data = std::move(invocation.prompt);
  spec.timeout = options.timeout;
  spec.kill_grace = options.kill_grace;
  spec.stdout_limit = options.stream_limit;
  const std::unique_ptr<model::AgentStreamReader> reader = agent_stream_reader(cli);
  const std::unique_ptr<model::TrajectoryNormaliser> trajectory =
      options.trajectory_path.empty() ? nullptr : agent_trajectory(cli, spec.stdin_data, secret_values(spec.env));
  LineFeed feed(*reader, trajectory.get());
  spec.stdout_sink = [&feed](std::string_view chunk) { feed.chunk(chunk); };

  exec::init_process_runtime();
  const exec::ProcessResult process = exec::run_process_to_end(std::move(spec));
  feed.finish();
  // What the CLI wrote beside its stream, read before its temporary directory goes; it is the
  // agent's file, not trusted (store/untrusted_file).
  if (!invocation.side_output.empty()) {
    const store::UntrustedFile side = store::read_untrusted_file(invocation.side_output, kMaxSideOutputBytes);
    if (side.text) reader->add_side_output(*side.text);
  }
  // Kept whether the run answered or not: a failed run's trajectory says why.
  if (trajectory) keep_trajectory(*trajectory, reader->turn(), options);
  if (const auto failure = run_failure(process, *reader, options)) throw Error(*failure);
  return AgentRun{reader->turn(), prompt_bytes, process.stderr_bytes, process.duration};
}

}  // namespace strata::app
