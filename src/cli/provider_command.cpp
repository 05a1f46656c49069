// strata provider codex [--model M] [--doc-bridge-query TYPE ID [--query-command C]] [--agent-command PATH]
// [--timeout-ms N] [--stream-limit BYTES] [--kill-grace-ms N] [-- extra agent args]
#include <iostream>
#include <iterator>
#include <memory>

#include "command.hpp"
#include "strata/app/codex_provider.hpp"
#include "strata/error.hpp"

namespace strata::cli {
namespace {

struct ProviderOptions {
  app::AgentRunOptions run;
  long long timeout_ms = 600000, kill_grace_ms = 5000;
  std::string model;
  std::vector<std::string> doc_bridge_query;
};

// The provider contract: exactly one JSON object on stdout and exit 0, or nothing on stdout, one
// line on stderr and exit 1; Strata then records the failure by its own rules.
int codex_provider(ProviderOptions options) {
  options.run.timeout = std::chrono::milliseconds(options.timeout_ms);
  options.run.kill_grace = std::chrono::milliseconds(options.kill_grace_ms);
  if (!options.model.empty()) options.run.model = options.model;
  if (!options.doc_bridge_query.empty()) options.run.doc_bridge_query = std::make_pair(options.doc_bridge_query[0], options.doc_bridge_query[1]);
  const std::string request(std::istreambuf_iterator<char>(std::cin), {});
  try {
    const model::Json response = app::run_codex_provider(request, options.run);
    print_json(response);
    return 0;
  } catch (const Error& e) {
    std::cerr << "strata provider codex: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

void add_provider_command(CLI::App& app, Action& action) {
  auto* provider = app.add_subcommand("provider", "Run a coding agent as a Strata provider (one request on stdin, one response on stdout)");
  provider->require_subcommand(1);
  auto options = std::make_shared<ProviderOptions>();
  auto* codex = provider->add_subcommand("codex", "The OpenAI Codex CLI (codex exec --json), read-only and ephemeral");
  codex->add_option("--model", options->model, "The model the agent uses (codex --model)");
  codex->add_option("--agent-command", options->run.agent_command, "The codex executable: a path, or a name in PATH")
      ->capture_default_str();
  codex->add_option("--timeout-ms", options->timeout_ms, "Stop the agent (SIGTERM to its group, then SIGKILL) after this long")
      ->capture_default_str()
      ->check(CLI::Range(1LL, 24LL * 3600 * 1000));
  codex->add_option("--kill-grace-ms", options->kill_grace_ms, "Between SIGTERM and SIGKILL")->capture_default_str()->check(CLI::Range(0LL, 600000LL));
  codex->add_option("--stream-limit", options->run.stream_limit, "Stop the agent when its event stream passes this many bytes")
      ->capture_default_str();
  codex->add_option("--doc-bridge-query", options->doc_bridge_query,
                    "TYPE ID: the deterministic arm; first runs <query command> query TYPE ID --agent and adds its handoff")
      ->expected(2);
  codex->add_option("--query-command", options->run.query_command, "The doc-bridge query command: a path, or a name in PATH")
      ->capture_default_str();
  codex->add_option("agent-args", options->run.extra_args, "After --: more arguments for codex exec (before the prompt)");
  codex->footer(
      "Use it in a provider config as \"command\": \"strata\", \"args\": [\"provider\", \"codex\", \"--model\", \"...\"].\n"
      "Runs codex exec --json --ephemeral --ignore-user-config --skip-git-repo-check --sandbox read-only\n"
      "--output-schema <the provider output schema> - in the working directory Strata gives the provider, without\n"
      "a shell, the request on stdin as the prompt. Prints the model's answer as provider response fields, with the\n"
      "usage (tokenMethod provider), the completed tool calls and byte/time telemetry (docs/PROVIDERS.md).\n"
      "Exit 0; 1 when the agent or its answer failed (one line on stderr, nothing on stdout).");
  codex->callback([options, &action] { action = [options] { return codex_provider(*options); }; });
}

}  // namespace strata::cli
