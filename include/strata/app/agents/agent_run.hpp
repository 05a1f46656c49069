#pragma once
// One non-interactive run of a coding agent's CLI for the agent adapters (issue 16,
// docs/PROVIDERS.md), invoked as app/agents/agent_cli says (read-only, ephemeral, its answer
// constrained by a JSON Schema, the prompt on stdin), started without a shell in the current
// directory and bounded like Strata's own providers (time limit, SIGTERM -> grace -> SIGKILL to
// its process group, a cap on the stream), its event stream read as it arrives.
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "strata/app/agents/agent_cli.hpp"
#include "strata/exec/process_spec.hpp"
#include "strata/model/agents/agent_stream.hpp"
#include "strata/model/json/json.hpp"

namespace strata::app {

struct AgentRun {
  model::AgentTurn turn;  // completed, with a final message
  std::size_t prompt_bytes = 0, stderr_bytes = 0;
  std::chrono::milliseconds duration{0};
};

// Runs the agent on `prompt` with its answer constrained by `answer_schema`. Throws
// strata::Error with one line saying what failed (the agent missing, its exit, a failed run, no
// final message, a stream that is not JSON Lines, the time or stream limit); the line names kinds
// and numbers only, never the prompt, the answer or a path.
AgentRun run_agent(AgentCli cli, const std::string& prompt, const model::Json& answer_schema, const AgentRunOptions& options);

// The environment Strata gave this process, passed on as it is (to the agent it starts).
std::vector<std::string> inherited_environment();
// `command` resolved against the working directory and PATH; Error naming the `role` otherwise.
std::string resolved_command(const std::string& command, const std::string& working_directory, const char* role);

}  // namespace strata::app
