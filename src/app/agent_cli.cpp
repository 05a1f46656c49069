#include "strata/app/agent_cli.hpp"

#include "strata/model/claude_stream.hpp"
#include "strata/model/codex_stream.hpp"

namespace strata::app {
namespace {

void append(std::vector<std::string>& args, const std::vector<std::string>& more) { args.insert(args.end(), more.begin(), more.end()); }

// codex exec: --sandbox read-only is the OS sandbox (Landlock + seccomp) every command and patch
// the model asks for runs under; --ephemeral and --ignore-user-config keep the run from reading
// or leaving state in CODEX_HOME beyond its credentials.
AgentInvocation codex(const AgentRunOptions& options, const std::string& prompt, const std::string& schema_path) {
  AgentInvocation run{{"exec", "--json", "--ephemeral", "--ignore-user-config", "--skip-git-repo-check", "--sandbox", "read-only"}, {}, prompt};
  if (!options.tools.web) append(run.args, {"-c", "web_search=\"disabled\""});
  if (!options.model.empty()) append(run.args, {"--model", options.model});
  append(run.args, {"--output-schema", schema_path});
  append(run.args, options.extra_args);
  run.args.push_back("-");  // the prompt: stdin
  return run;
}

// claude -p: dontAsk refuses whatever would need asking (a Bash command that writes, for one);
// the file-writing tools are removed outright, and so are sub-agents and the web tools unless the
// policy turns them on.
AgentInvocation claude(const AgentRunOptions& options, const std::string& prompt, const std::string& schema_text) {
  std::string disallowed = "Edit,Write,NotebookEdit";
  if (!options.tools.subagents) disallowed += ",Task";
  if (!options.tools.web) disallowed += ",WebFetch,WebSearch";
  AgentInvocation run{{"-p", "--output-format", "stream-json", "--verbose", "--no-session-persistence", "--permission-mode", "dontAsk",
                       "--disallowedTools", disallowed},
                      {},
                      prompt};
  if (!options.model.empty()) append(run.args, {"--model", options.model});
  append(run.args, {"--json-schema", schema_text});
  append(run.args, options.extra_args);
  return run;  // no prompt argument: print mode reads it from stdin
}

}  // namespace

const char* agent_cli_name(AgentCli cli) { return cli == AgentCli::codex ? "codex" : "claude"; }

bool takes_schema_file(AgentCli cli) { return cli == AgentCli::codex; }

AgentInvocation agent_invocation(AgentCli cli, const AgentRunOptions& options, const std::string& prompt, const std::string& schema_text,
                                 const std::string& schema_path) {
  switch (cli) {
    case AgentCli::codex: return codex(options, prompt, schema_path);
    case AgentCli::claude: return claude(options, prompt, schema_text);
  }
  return {};
}

std::string agent_invocation_summary(AgentCli cli) {
  switch (cli) {
    case AgentCli::codex:
      return "Runs codex exec --json --ephemeral --ignore-user-config --skip-git-repo-check --sandbox read-only\n"
             "[-c web_search=\"disabled\"] [--model M] --output-schema <schema file> [agent args] -";
    case AgentCli::claude:
      return "Runs claude -p --output-format stream-json --verbose --no-session-persistence --permission-mode dontAsk\n"
             "--disallowedTools Edit,Write,NotebookEdit[,Task][,WebFetch,WebSearch] [--model M] --json-schema <schema> [agent args]";
  }
  return {};
}

std::unique_ptr<model::AgentStreamReader> agent_stream_reader(AgentCli cli) {
  if (cli == AgentCli::codex) return std::make_unique<model::CodexStreamReader>();
  return std::make_unique<model::ClaudeStreamReader>();
}

}  // namespace strata::app
