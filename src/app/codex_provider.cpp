#include "strata/app/codex_provider.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <cmath>
#include <filesystem>
#include <string_view>

#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/exec/command_lookup.hpp"
#include "strata/model/agent_answer.hpp"
#include "strata/model/codex_stream.hpp"
#include "strata/model/json_document.hpp"
#include "strata/model/json_writer.hpp"

extern char** environ;

namespace strata::app {
namespace {

namespace asio = boost::asio;
using model::Json;
using Clock = std::chrono::steady_clock;

// Cuts the stream into lines as its chunks arrive, each handed to the reader with the time it
// arrived (for timeToFirstToolEventMs); a last line without a newline is read at the end.
class LineFeed {
 public:
  explicit LineFeed(model::CodexStreamReader& reader) : reader_(reader), started_(Clock::now()) {}

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
  // No event comes near this (codex caps a command's output at 1 MiB); a longer line is a
  // defect, and its bytes are counted, not held.
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
    if (overlong_ > 0) reader_.add_overlong_line(overlong_);
    else reader_.add_line(partial_, elapsed_ms());
    partial_.clear();
    overlong_ = 0;
  }

  double elapsed_ms() const { return std::chrono::duration<double, std::milli>(Clock::now() - started_).count(); }

  model::CodexStreamReader& reader_;
  Clock::time_point started_;
  std::string partial_;
  std::size_t overlong_ = 0;  // bytes of the current line, once it is too long to keep
};

// The output schema, in a file of its own for --output-schema, removed when the run ends.
class SchemaFile {
 public:
  SchemaFile() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-provider-schema.XXXXXX";
    const int fd = ::mkstemp(path_.data());
    if (fd < 0) throw Error("cannot create the output schema file in the temporary directory");
    const std::string text = model::compact_json(model::provider_output_schema());
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!written) {
      ::unlink(path_.c_str());
      throw Error("cannot write the output schema file in the temporary directory");
    }
  }
  ~SchemaFile() { ::unlink(path_.c_str()); }
  SchemaFile(const SchemaFile&) = delete;
  SchemaFile& operator=(const SchemaFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> inherited_environment() {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) environment.emplace_back(*entry);
  return environment;  // what Strata's envAllowlist let through to this provider process
}

exec::ProcessResult run_process(exec::ProcessSpec spec) {
  exec::init_process_runtime();
  asio::io_context io(1);
  auto result = asio::co_spawn(io, exec::run_bounded_process(std::move(spec)), asio::use_future);
  io.run();
  return result.get();
}

// Why the run did not give an answer, from the process's end and then the stream's; nullopt
// when it did.
std::optional<std::string> run_failure(const exec::ProcessResult& process, const model::CodexStreamReader& reader,
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

std::string resolved(const std::string& command, const std::string& working_directory, const char* role) {
  const char* path_variable = std::getenv("PATH");
  try {
    return exec::resolve_command(command, working_directory, path_variable ? path_variable : "");
  } catch (const Error&) {
    throw Error(std::string("the ") + role + " command " + command + " is not an executable file (nor found in PATH)");
  }
}

// The request with the doc-bridge handoff added (see AgentRunOptions::doc_bridge_query); the
// handoff's bytes in `handoff_bytes`.
Json with_doc_bridge_handoff(Json request, const AgentRunOptions& options, const std::string& working_directory,
                             std::size_t& handoff_bytes) {
  exec::ProcessSpec query;
  query.program = resolved(options.query_command, working_directory, "doc-bridge query");
  query.args = {"query", options.doc_bridge_query->first, options.doc_bridge_query->second, "--agent"};
  query.env = inherited_environment();
  query.working_directory = working_directory;
  query.timeout = options.timeout;
  query.kill_grace = options.kill_grace;
  query.stdout_limit = std::size_t{1} << 20;
  const exec::ProcessResult result = run_process(std::move(query));
  if (result.end == exec::ProcessEnd::spawn_failed) throw Error("the doc-bridge query could not be started: " + result.spawn_error);
  if (result.end == exec::ProcessEnd::timed_out) throw Error("the doc-bridge query did not finish in time and was stopped");
  if (result.end == exec::ProcessEnd::output_limit) throw Error("the doc-bridge query wrote more than 1 MiB and was stopped");
  if (result.end == exec::ProcessEnd::signaled) throw Error("the doc-bridge query was killed by signal " + std::to_string(result.term_signal));
  if (result.exit_code != 0) throw Error("the doc-bridge query exited with status " + std::to_string(result.exit_code));
  std::string handoff;
  try {
    handoff = model::compact_json(model::parse_json(result.stdout_data));
  } catch (const Error&) {
    throw Error("the doc-bridge query's output is not JSON");
  }
  handoff_bytes = handoff.size();
  request["deterministicDocBridgeInstruction"] = kDocBridgeInstruction;
  request["deterministicDocBridgeHandoff"] = std::move(handoff);
  return request;
}

}  // namespace

const char* const kDocBridgeInstruction =
    "Use deterministicDocBridgeHandoff as the first evidence source. Follow its startHere and readBeforeEditing paths, "
    "then use repository tools only to verify gaps or acceptance checks.";

Json run_codex_provider(const std::string& request_text, const AgentRunOptions& options) {
  Json request;
  try {
    request = model::parse_json(request_text);
  } catch (const Error&) {
    throw Error("the request on stdin is not JSON");
  }
  if (!request.is_object() || request.value("protocol", "") != "doc-bridge.study-provider.v1")
    throw Error("the request on stdin is not a doc-bridge.study-provider.v1 request");

  const std::string working_directory = std::filesystem::current_path().string();
  exec::ProcessSpec spec;
  spec.program = resolved(options.agent_command, working_directory, "agent");
  std::size_t handoff_bytes = 0;
  if (options.doc_bridge_query) request = with_doc_bridge_handoff(std::move(request), options, working_directory, handoff_bytes);
  const SchemaFile schema;
  spec.args = {"exec", "--json", "--ephemeral", "--ignore-user-config", "--skip-git-repo-check", "--sandbox", "read-only"};
  if (options.model) spec.args.insert(spec.args.end(), {"--model", *options.model});
  spec.args.insert(spec.args.end(), {"--output-schema", schema.path()});
  spec.args.insert(spec.args.end(), options.extra_args.begin(), options.extra_args.end());
  spec.args.push_back("-");  // the prompt: stdin
  spec.env = inherited_environment();
  spec.working_directory = working_directory;
  spec.stdin_data = model::compact_json(request);
  spec.timeout = options.timeout;
  spec.kill_grace = options.kill_grace;
  spec.stdout_limit = options.stream_limit;
  model::CodexStreamReader reader;
  LineFeed feed(reader);
  spec.stdout_sink = [&feed](std::string_view chunk) { feed.chunk(chunk); };
  const std::size_t prompt_bytes = spec.stdin_data.size();

  const exec::ProcessResult process = run_process(std::move(spec));
  feed.finish();
  if (const auto failure = run_failure(process, reader, options)) throw Error(*failure);

  const model::CodexTurn& turn = reader.turn();
  Json response = model::provider_fields_from_answer(*turn.final_message);
  if (turn.input_tokens && turn.output_tokens) {
    response["inputTokens"] = *turn.input_tokens;
    response["outputTokens"] = *turn.output_tokens;
    response["tokenMethod"] = "provider";
  }
  response["toolCalls"] = static_cast<double>(turn.tool_calls);
  // Observed by the adapter: these replace a value of the same name the model reported.
  Json& measurements = response["measurements"];
  if (turn.cached_input_tokens) measurements["cachedInputTokens"] = *turn.cached_input_tokens;
  if (turn.reasoning_output_tokens) measurements["reasoningOutputTokens"] = *turn.reasoning_output_tokens;
  measurements["stderrBytes"] = static_cast<double>(process.stderr_bytes);
  measurements["observedToolEventCount"] = static_cast<double>(turn.tool_events);
  measurements["observedToolInputBytes"] = static_cast<double>(turn.tool_input_bytes);
  measurements["observedToolOutputBytes"] = static_cast<double>(turn.tool_output_bytes);
  measurements["observedProviderInputBytes"] = static_cast<double>(prompt_bytes);
  measurements["observedAgentMessageBytes"] = static_cast<double>(turn.agent_message_bytes);
  measurements["observedContextBytes"] = static_cast<double>(prompt_bytes + turn.tool_output_bytes);
  measurements["observedProviderDurationMs"] = static_cast<double>(process.duration.count());
  if (turn.first_tool_event_ms) measurements["timeToFirstToolEventMs"] = std::floor(*turn.first_tool_event_ms);
  if (options.doc_bridge_query) measurements["observedDocBridgeHandoffBytes"] = static_cast<double>(handoff_bytes);
  return response;
}

}  // namespace strata::app
