// strata provider codex|claude|gemini|opencode|qwen|pi|copilot [--model M] [--doc-bridge-query TYPE ID [--query-command C]] [--agent-command PATH]
//   [--timeout-ms N] [--stream-limit BYTES] [--kill-grace-ms N] [-- extra agent args]
// strata provider judge codex|claude|gemini|opencode|qwen|pi|copilot [the same, without the doc-bridge query]
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <memory>

#include "command.hpp"
#include "strata/app/agents/agent_provider.hpp"
#include "strata/app/trajectories/trajectory_keeper.hpp"
#include "strata/error.hpp"

namespace strata::cli {
namespace {

using app::AgentCli;

struct AdapterOptions {
  app::AgentRunOptions run;
  long long timeout_ms = 600000, kill_grace_ms = 5000;
  std::vector<std::string> doc_bridge_query;  // TYPE ID
  std::string query_command = "ak-docs";
};

// The provider (and adjudicator) contract: exactly one JSON object on stdout and exit 0, or
// nothing on stdout, one line on stderr and exit 1; Strata then records the failure by its own
// rules.
int answer(const std::string& name, const std::function<model::Json(const std::string&)>& respond) {
  const std::string request(std::istreambuf_iterator<char>(std::cin), {});
  try {
    print_json(respond(request));
    return 0;
  } catch (const Error& e) {
    std::cerr << "strata " << name << ": " << e.what() << "\n";
    return 1;
  }
}

app::AgentRunOptions run_options(const AdapterOptions& options) {
  app::AgentRunOptions run = options.run;
  run.timeout = std::chrono::milliseconds(options.timeout_ms);
  run.kill_grace = std::chrono::milliseconds(options.kill_grace_ms);
  // Under strata run/adjudicate --keep-trajectories, Strata names the file (its channel).
  const char* channel = std::getenv(app::kTrajectoryVariable);
  if (run.trajectory_path.empty() && channel != nullptr && *channel != '\0') {
    run.trajectory_path = channel;
    run.trajectory_to_channel = true;
  }
  return run;
}

int provider(AgentCli cli, const AdapterOptions& options) {
  std::optional<app::DocBridgeQuery> query;
  if (!options.doc_bridge_query.empty())
    query = app::DocBridgeQuery{options.doc_bridge_query[0], options.doc_bridge_query[1], options.query_command};
  return answer(std::string("provider ") + app::agent_cli_name(cli),
                [&](const std::string& request) { return app::run_agent_provider(cli, request, run_options(options), query); });
}

int judge(AgentCli cli, const AdapterOptions& options) {
  return answer(std::string("provider judge ") + app::agent_cli_name(cli),
                [&](const std::string& request) { return app::run_agent_adjudicator(cli, request, run_options(options)); });
}

// The options every adapter takes: which agent, how it is bounded, and arguments to pass on.
void add_agent_options(CLI::App* command, AdapterOptions& options, AgentCli cli) {
  const std::string name = app::agent_cli_name(cli);
  command->add_option("--model", options.run.model, "The model the agent uses (" + name + " --model)");
  command->add_option("--agent-command", options.run.agent_command, "The " + name + " executable: a path, or a name in PATH (default " + name + ")");
  command->add_option("--timeout-ms", options.timeout_ms, "Stop the agent (SIGTERM to its group, then SIGKILL) after this long")
      ->capture_default_str()
      ->check(CLI::Range(1LL, 24LL * 3600 * 1000));
  command->add_option("--kill-grace-ms", options.kill_grace_ms, "Between SIGTERM and SIGKILL")->capture_default_str()->check(CLI::Range(0LL, 600000LL));
  command->add_option("--stream-limit", options.run.stream_limit, "Stop the agent when its event stream passes this many bytes")
      ->capture_default_str();
  command->add_flag("--allow-subagents", options.run.tools.subagents,
                    "Let the agent start sub-agents and background tasks (Claude's Task tool; off by default)");
  command->add_flag("--allow-web", options.run.tools.web, "Let the agent search and fetch from the web (off by default)");
  command->add_flag("--allow-writes", options.run.tools.writes,
                    "Let the agent edit files in its working directory (off by default), and with Codex and Claude Code "
                    "also write through its shell: only for a study run with --workspace copy|overlay, where each "
                    "execution writes into its own view (docs/WORKSPACES.md, docs/PROVIDERS.md)");
  command->add_option("--trajectory", options.run.trajectory_path,
                      "Write the run's trajectory to FILE as ATIF v1.7 (every step, tool call and result, bounded and with "
                      "credentials redacted; docs/TRAJECTORIES.md), also when the run fails (default: "
                      "$STRATA_TRAJECTORY_FILE, which strata run and adjudicate --keep-trajectories set)")
      ->type_name("FILE");
  command->add_option("agent-args", options.run.extra_args, "After --: more arguments for the agent, after Strata's own");
}

void add_provider_flavour(CLI::App* provider_command, Action& action, AgentCli cli, const char* description) {
  auto options = std::make_shared<AdapterOptions>();
  auto* command = provider_command->add_subcommand(app::agent_cli_name(cli), description);
  add_agent_options(command, *options, cli);
  command->add_option("--doc-bridge-query", options->doc_bridge_query,
                      "TYPE ID: the deterministic arm; first runs <query command> query TYPE ID --agent and adds its handoff")
      ->expected(2);
  command->add_option("--query-command", options->query_command, "The doc-bridge query command: a path, or a name in PATH")
      ->capture_default_str();
  command->footer(std::string("Use it in a provider config as \"command\": \"strata\", \"args\": [\"provider\", \"") + app::agent_cli_name(cli) +
                  "\", \"--model\", \"...\"].\n" + app::agent_invocation_summary(cli) +
                  "\nin the working directory Strata gives the provider, without a shell, the request on stdin as the prompt.\n"
                  "Prints the model's answer as provider response fields, with the usage (tokenMethod provider), the completed\n"
                  "tool calls and byte/time telemetry (docs/PROVIDERS.md).\n"
                  "Exit 0; 1 when the agent or its answer failed (one line on stderr, nothing on stdout).");
  command->callback([options, cli, &action] { action = [options, cli] { return provider(cli, *options); }; });
}

void add_judge_flavour(CLI::App* judge_command, Action& action, AgentCli cli) {
  auto options = std::make_shared<AdapterOptions>();
  auto* command = judge_command->add_subcommand(app::agent_cli_name(cli), std::string("The independent adjudicator on ") + app::agent_cli_name(cli));
  add_agent_options(command, *options, cli);
  command->footer(std::string("Use it as the provider config's adjudicator: \"command\": \"strata\", \"args\": [\"provider\", \"judge\", \"") +
                  app::agent_cli_name(cli) + "\", \"--model\", \"...\"].\n" + app::agent_invocation_summary(cli) +
                  "\nin the current directory, the adjudicator request (study-v1 §4.2) on stdin as the prompt, the answer\n"
                  "constrained to {outcome, confidence, reasonCodes}. Prints the adjudicator output (§4.3) with the agent's\n"
                  "token counts (tokenMethod provider) and cachedInputTokens (docs/PROVIDERS.md).\n"
                  "Exit 0; 1 when the agent or its answer failed (Strata records the judgement as pending).");
  command->callback([options, cli, &action] { action = [options, cli] { return judge(cli, *options); }; });
}

}  // namespace

void add_provider_command(CLI::App& app, Action& action) {
  auto* provider_command = app.add_subcommand("provider", "Run a coding agent as a Strata provider or adjudicator (one request on stdin, one response on stdout)");
  provider_command->require_subcommand(1);
  add_provider_flavour(provider_command, action, AgentCli::codex, "The OpenAI Codex CLI (codex exec --json), read-only and ephemeral");
  add_provider_flavour(provider_command, action, AgentCli::claude, "Claude Code in print mode (claude -p --output-format stream-json), read-only");
  add_provider_flavour(provider_command, action, AgentCli::gemini, "Gemini CLI headless (gemini -p --output-format stream-json), read-only");
  add_provider_flavour(provider_command, action, AgentCli::opencode, "OpenCode (opencode run --format json), its writing tools denied");
  add_provider_flavour(provider_command, action, AgentCli::qwen, "Qwen Code headless (qwen --output-format stream-json), plan mode, read-only");
  add_provider_flavour(provider_command, action, AgentCli::pi, "pi (pi --mode json -p), its reading tools only");
  add_provider_flavour(provider_command, action, AgentCli::copilot, "GitHub Copilot CLI (copilot --output-format json), its reading tools only");
  auto* judge_command = provider_command->add_subcommand("judge", "A coding agent as the independent adjudicator (study-v1 §4.2-4.3)");
  judge_command->require_subcommand(1);
  add_judge_flavour(judge_command, action, AgentCli::codex);
  add_judge_flavour(judge_command, action, AgentCli::claude);
  add_judge_flavour(judge_command, action, AgentCli::gemini);
  add_judge_flavour(judge_command, action, AgentCli::opencode);
  add_judge_flavour(judge_command, action, AgentCli::qwen);
  add_judge_flavour(judge_command, action, AgentCli::pi);
  add_judge_flavour(judge_command, action, AgentCli::copilot);
}

}  // namespace strata::cli
