#pragma once
// Which coding agent's CLI an adapter runs, and how (issues 16 and 25, docs/PROVIDERS.md): the
// arguments that make each one non-interactive, read-only and ephemeral with its answer held to
// a JSON Schema, the environment it needs for that, the prompt it reads on stdin, and the reader
// of its event stream. Everything agent-specific about starting an agent lives here;
// app/agents/agent_run runs whichever it is under the same bounds.
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/model/agents/agent_stream.hpp"
#include "strata/model/trajectory/atif_trajectory.hpp"

namespace strata::app {

enum class AgentCli { codex, claude, gemini, opencode, qwen, pi, copilot };

const char* agent_cli_name(AgentCli cli);  // "codex", "claude", "gemini", "opencode", "qwen", "pi", "copilot": also the default command

// The tools an agent may use in a study beyond reading the repository (issue 25): off unless the
// provider config's arguments turn them on, so every arm has the same means and no agent reaches
// the network or spawns work that outlives its answer.
struct ToolPolicy {
  bool subagents = false;  // sub-agents and background tasks (Claude's Task, Gemini's invoke_agent, OpenCode's task)
  bool web = false;        // web search and fetch
  // Editing files in the working directory (issue 26): only for a run whose providers each have
  // a workspace of their own (strata run --workspace copy|overlay); shell commands stay refused.
  bool writes = false;
};

struct AgentRunOptions {
  std::string agent_command;  // a path, or a name looked up in PATH; empty: the CLI's name
  std::string model;          // empty: the CLI's default
  std::vector<std::string> extra_args;  // after Strata's own
  ToolPolicy tools;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::chrono::milliseconds kill_grace{std::chrono::seconds(5)};
  std::size_t stream_limit = std::size_t{1} << 30;  // bytes of event stream read at most
  std::string trajectory_path;  // where the run's ATIF trajectory goes (issue 45); empty: none
  // The path is Strata's channel (STRATA_TRAJECTORY_FILE): Strata makes the file durable when it
  // keeps it, so it is written without fsync here.
  bool trajectory_to_channel = false;
};

struct AgentInvocation {
  std::vector<std::string> args;
  std::vector<std::string> env;  // NAME=value set for the agent, over the provider's own
  std::string prompt;            // written to its stdin
  // A file the CLI writes in its temporary directory for the adapter to read after the run
  // (AgentStreamReader::add_side_output); empty: none.
  std::string side_output;
};

// The text of the file the CLI reads beside its arguments, when it needs one: codex's
// --output-schema, Gemini CLI's --policy. app/agents/agent_run writes it to a temporary file for
// the run and removes it after.
struct AgentSideFile {
  std::string text;
  std::string suffix;  // the file name's ending the CLI looks for (".toml": Gemini CLI reads only those)
};
std::optional<AgentSideFile> agent_side_file(AgentCli cli, const AgentRunOptions& options, const std::string& schema_text);

// How to run `cli` on `prompt` with its answer held to the schema (`schema_text`, compact JSON;
// `side_file`, the path of the agent_side_file, when there is one; `temporary_directory`, the
// agent's own TMPDIR for the run). Throws strata::Error when the provider's environment holds a
// setting the agent cannot take (OPENCODE_CONFIG_CONTENT that is not a JSON object).
AgentInvocation agent_invocation(AgentCli cli, const AgentRunOptions& options, const std::string& prompt,
                                 const std::string& schema_text, const std::string& side_file, const std::string& temporary_directory);

// The invocation in words, for --help.
std::string agent_invocation_summary(AgentCli cli);

std::unique_ptr<model::AgentStreamReader> agent_stream_reader(AgentCli cli);

// The stream's ATIF normaliser (issue 45): `prompt` as the agent got it (Gemini CLI's stream
// echoes it; the others' start from it), `secrets` the values never to keep.
std::unique_ptr<model::TrajectoryNormaliser> agent_trajectory(AgentCli cli, const std::string& prompt, std::vector<std::string> secrets);

}  // namespace strata::app
