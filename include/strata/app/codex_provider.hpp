#pragma once
// `strata provider codex` (issue 16, docs/PROVIDERS.md): a provider process that answers one
// provider request (study-v1 §1.9) by running the Codex CLI non-interactively — `codex exec
// --json`, read-only sandbox, ephemeral, the user's config ignored, the provider output schema
// — without a shell, bounded like Strata's own providers, reading its event stream as it
// arrives, and returning the provider response with the agent's usage, tool calls and byte and
// time telemetry (never text).
#include <chrono>
#include <cstddef>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "strata/model/json.hpp"

namespace strata::app {

struct AgentRunOptions {
  std::string agent_command = "codex";  // a path, or a name looked up in PATH
  std::optional<std::string> model;
  std::vector<std::string> extra_args;  // after Strata's own, before the prompt argument
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::chrono::milliseconds kill_grace{std::chrono::seconds(5)};  // SIGTERM -> SIGKILL of the agent's group
  std::size_t stream_limit = std::size_t{1} << 30;  // bytes of event stream read at most
  // The deterministic doc-bridge arm: before the agent, `query_command query TYPE ID --agent`
  // runs in the repository (bounded the same way, its stdout at most 1 MiB of JSON), and the
  // request gains deterministicDocBridgeInstruction and deterministicDocBridgeHandoff (the
  // query's JSON, compact, as a string).
  std::optional<std::pair<std::string, std::string>> doc_bridge_query;  // (TYPE, ID)
  std::string query_command = "ak-docs";
};

// The instruction that goes with the handoff: the reference adapter's text (study-v1 §3.12), so
// the deterministic arm's prompt is the same as in studies run with the reference.
extern const char* const kDocBridgeInstruction;

// The provider response for `request_text` (the JSON request as read from stdin). Throws
// strata::Error with one line saying what failed (the agent missing, its exit, a failed turn,
// no final message, an answer outside the schema, a stream that is not JSON Lines, the time or
// stream limit); the line names kinds and numbers only, never the request, the answer or a path.
model::Json run_codex_provider(const std::string& request_text, const AgentRunOptions& options);

}  // namespace strata::app
