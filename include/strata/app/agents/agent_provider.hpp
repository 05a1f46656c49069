#pragma once
// `strata provider codex|claude` and `strata provider judge codex|claude` (issue 16,
// docs/PROVIDERS.md): provider processes that answer one request on stdin with one JSON object
// on stdout by running a coding agent's CLI (app/agents/agent_run):
//  - as a study provider (study-v1 §1.9): the provider response with the model's structured
//    fields, the agent's usage, tool calls and byte and time telemetry (never text);
//  - as the independent adjudicator (§4.2-4.3): the adjudicator output, the judgement from the
//    model and the token counts from the agent's stream.
#include <optional>
#include <string>
#include <utility>

#include "strata/app/agents/agent_run.hpp"
#include "strata/model/json/json.hpp"

namespace strata::app {

struct DocBridgeQuery {
  // The deterministic doc-bridge arm: before the agent, `command query TYPE ID --agent` runs in
  // the repository (bounded like the agent, its stdout at most 1 MiB of JSON), and the request
  // gains deterministicDocBridgeInstruction and deterministicDocBridgeHandoff (the query's JSON,
  // compact, as a string).
  std::string type, id;
  std::string command = "ak-docs";
};

// The instruction that goes with the handoff: the reference adapter's text (study-v1 §3.12), so
// the deterministic arm's prompt is the same as in studies run with the reference.
extern const char* const kDocBridgeInstruction;

// The provider response for `request_text` (a doc-bridge.study-provider.v1 request as read from
// stdin). Throws strata::Error with one line (see run_agent) when the request, the agent or its
// answer fails.
model::Json run_agent_provider(AgentCli cli, const std::string& request_text, const AgentRunOptions& options,
                               const std::optional<DocBridgeQuery>& doc_bridge_query);

// The adjudicator output for `request_text` (a doc-bridge.study-adjudicator.v1 request).
model::Json run_agent_adjudicator(AgentCli cli, const std::string& request_text, const AgentRunOptions& options);

}  // namespace strata::app
