#include "strata/app/agents/agent_provider.hpp"

#include <cmath>
#include <filesystem>

#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/model/agents/adjudicator_answer.hpp"
#include "strata/model/agents/agent_answer.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"

namespace strata::app {
namespace {

using model::Json;

Json request_of(const std::string& request_text, const char* protocol) {
  Json request;
  try {
    request = model::parse_json(request_text);
  } catch (const Error&) {
    throw Error("the request on stdin is not JSON");
  }
  if (!request.is_object() || !request.contains("protocol") || request["protocol"] != protocol)
    throw Error(std::string("the request on stdin is not a ") + protocol + " request");
  return request;
}

// Runs the doc-bridge query (see DocBridgeQuery) and returns its output, compact.
std::string doc_bridge_handoff(const DocBridgeQuery& query, const AgentRunOptions& options) {
  exec::ProcessSpec spec;
  spec.working_directory = std::filesystem::current_path().string();
  spec.program = resolved_command(query.command, spec.working_directory, "doc-bridge query");
  spec.args = {"query", query.type, query.id, "--agent"};
  spec.env = inherited_environment();
  spec.timeout = options.timeout;
  spec.kill_grace = options.kill_grace;
  spec.stdout_limit = std::size_t{1} << 20;
  exec::init_process_runtime();
  const exec::ProcessResult result = exec::run_process_to_end(std::move(spec));
  if (result.end == exec::ProcessEnd::spawn_failed) throw Error("the doc-bridge query could not be started: " + result.spawn_error);
  if (result.end == exec::ProcessEnd::timed_out) throw Error("the doc-bridge query did not finish in time and was stopped");
  if (result.end == exec::ProcessEnd::output_limit) throw Error("the doc-bridge query wrote more than 1 MiB and was stopped");
  if (result.end == exec::ProcessEnd::signaled) throw Error("the doc-bridge query was killed by signal " + std::to_string(result.term_signal));
  if (result.exit_code != 0) throw Error("the doc-bridge query exited with status " + std::to_string(result.exit_code));
  try {
    return model::compact_json(model::parse_json(result.stdout_data));
  } catch (const Error&) {
    throw Error("the doc-bridge query's output is not JSON");
  }
}

// The agent's token counts as the stream reported them (both, or none: a count needs its method).
void add_usage(Json& answer, const model::AgentTurn& turn) {
  if (!turn.input_tokens || !turn.output_tokens) return;
  answer["inputTokens"] = *turn.input_tokens;
  answer["outputTokens"] = *turn.output_tokens;
  answer["tokenMethod"] = "provider";
}

// What the agent could do and was refused, as counts (issue 25): the names of its tools never
// reach the ledger. `prefix` keeps the judge's counts apart from the judged provider's.
void add_tool_policy_counts(Json& measurements, const model::AgentTurn& turn, const std::string& prefix) {
  if (turn.available_tools) measurements[prefix + "AvailableToolCount"] = static_cast<double>(*turn.available_tools);
  if (turn.denied_tool_uses) measurements[prefix + "DeniedToolUseCount"] = static_cast<double>(*turn.denied_tool_uses);
  if (turn.background_results > 0) measurements[prefix + "BackgroundResultCount"] = static_cast<double>(turn.background_results);
}

// Sub-agents (issue 36): the counts of add_usage cover every model call; the main loop's own
// calls go beside them when they differ (sub-agents or the CLI's side calls ran; absent, the
// main loop's are the counts), with how many sub-agents ran, and a stream that leaves the
// sub-agents' calls out of its counts says so. `prefix` as above.
void add_subagent_measurements(Json& measurements, const model::AgentTurn& turn, const std::string& prefix) {
  if (turn.main_loop && (turn.main_loop->input_tokens != turn.input_tokens || turn.main_loop->output_tokens != turn.output_tokens)) {
    const auto put = [&](const char* name, const std::optional<double>& count) {
      if (count) measurements[prefix + name] = *count;
    };
    put("MainLoopInputTokens", turn.main_loop->input_tokens);
    put("MainLoopCachedInputTokens", turn.main_loop->cached_input_tokens);
    put("MainLoopCacheCreationInputTokens", turn.main_loop->cache_creation_input_tokens);
    put("MainLoopOutputTokens", turn.main_loop->output_tokens);
  }
  if (turn.subagent_runs > 0) measurements[prefix + "SubagentRuns"] = static_cast<double>(turn.subagent_runs);
  if (turn.subagent_usage_unreported) measurements[prefix + "SubagentTokensUnreported"] = 1.0;
}

}  // namespace

const char* const kDocBridgeInstruction =
    "Use deterministicDocBridgeHandoff as the first evidence source. Follow its startHere and readBeforeEditing paths, "
    "then use repository tools only to verify gaps or acceptance checks.";

Json run_agent_provider(AgentCli cli, const std::string& request_text, const AgentRunOptions& options,
                        const std::optional<DocBridgeQuery>& doc_bridge_query) {
  Json request = request_of(request_text, "doc-bridge.study-provider.v1");
  std::size_t handoff_bytes = 0;
  if (doc_bridge_query) {
    std::string handoff = doc_bridge_handoff(*doc_bridge_query, options);
    handoff_bytes = handoff.size();
    request["deterministicDocBridgeInstruction"] = kDocBridgeInstruction;
    request["deterministicDocBridgeHandoff"] = std::move(handoff);
  }
  const AgentRun run = run_agent(cli, model::compact_json(request), model::provider_output_schema(), options);
  const model::AgentTurn& turn = run.turn;

  Json response = model::provider_fields_from_answer(*turn.final_message);
  add_usage(response, turn);
  response["toolCalls"] = static_cast<double>(turn.tool_calls);
  // Observed by the adapter: these replace a value of the same name the model reported.
  Json& measurements = response["measurements"];
  if (turn.cached_input_tokens) measurements["cachedInputTokens"] = *turn.cached_input_tokens;
  if (turn.reasoning_output_tokens) measurements["reasoningOutputTokens"] = *turn.reasoning_output_tokens;
  if (turn.cache_creation_input_tokens) measurements["cacheCreationInputTokens"] = *turn.cache_creation_input_tokens;
  // The CLI's own figure has a name of its own: agentCostUsd is Strata's configured pricing
  // (study-v1 §3.9, set when the provider entry has pricing), and a model cannot observe what it
  // costs, so a figure the model itself put under that name is not kept (issue 36).
  measurements.erase("agentCostUsd");
  if (turn.cost_usd) measurements["agentReportedCostUsd"] = *turn.cost_usd;
  measurements["stderrBytes"] = static_cast<double>(run.stderr_bytes);
  measurements["observedToolEventCount"] = static_cast<double>(turn.tool_events);
  measurements["observedToolInputBytes"] = static_cast<double>(turn.tool_input_bytes);
  measurements["observedToolOutputBytes"] = static_cast<double>(turn.tool_output_bytes);
  measurements["observedProviderInputBytes"] = static_cast<double>(run.prompt_bytes);
  measurements["observedAgentMessageBytes"] = static_cast<double>(turn.agent_message_bytes);
  measurements["observedContextBytes"] = static_cast<double>(run.prompt_bytes + turn.tool_output_bytes);
  measurements["observedProviderDurationMs"] = static_cast<double>(run.duration.count());
  if (turn.first_tool_event_ms) measurements["timeToFirstToolEventMs"] = std::floor(*turn.first_tool_event_ms);
  add_tool_policy_counts(measurements, turn, "observed");
  add_subagent_measurements(measurements, turn, "observed");
  if (doc_bridge_query) measurements["observedDocBridgeHandoffBytes"] = static_cast<double>(handoff_bytes);
  return response;
}

Json run_agent_adjudicator(AgentCli cli, const std::string& request_text, const AgentRunOptions& options) {
  // The request goes to the agent as it came: it is already the anonymised record (§4.2).
  request_of(request_text, "doc-bridge.study-adjudicator.v1");
  const AgentRun run = run_agent(cli, request_text, model::adjudicator_answer_schema(), options);
  const model::AgentTurn& turn = run.turn;

  Json output = model::adjudicator_fields_from_answer(*turn.final_message);
  add_usage(output, turn);
  // §4.3 merges these into the judged observation's measurements, over same-named ones:
  // cachedInputTokens is the name the adjudicator cost (§3.9) reads, as in the reference's
  // wrapper; everything else is prefixed so the provider's own telemetry is never overwritten.
  Json measurements = Json::object();
  if (turn.cached_input_tokens) measurements["cachedInputTokens"] = *turn.cached_input_tokens;
  if (turn.reasoning_output_tokens) measurements["adjudicatorReasoningOutputTokens"] = *turn.reasoning_output_tokens;
  if (turn.cache_creation_input_tokens) measurements["adjudicatorCacheCreationInputTokens"] = *turn.cache_creation_input_tokens;
  if (turn.cost_usd) measurements["adjudicatorReportedCostUsd"] = *turn.cost_usd;
  measurements["adjudicatorToolCalls"] = static_cast<double>(turn.tool_calls);
  add_tool_policy_counts(measurements, turn, "adjudicator");
  add_subagent_measurements(measurements, turn, "adjudicator");
  output["measurements"] = std::move(measurements);
  return output;
}

}  // namespace strata::app
