// strata call (cm-openai-compatible-call): one verified OpenAI-compatible model call
// through the CM boundary (usage-boundary spec §1).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "command.hpp"
#include "strata/app/cm/model_call.hpp"

namespace strata::cli {
namespace {

struct CallFlags {
  app::CallOptions options;
  std::string specs_dir, run_id;
};

std::string read_stdin(std::size_t limit) {
  std::string data;
  char buffer[65536];
  while (data.size() < limit) {
    const std::size_t n = std::fread(buffer, 1, std::min(sizeof buffer, limit - data.size()), stdin);
    if (n == 0) break;
    data.append(buffer, n);
  }
  return data;
}

bool write_result(const std::string& text) {
  const bool ok = std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0;
  if (!ok) std::freopen("/dev/null", "w", stdout);  // so that exit does not fail on the broken stream
  return ok;
}

int call(const CallFlags& flags) {
  ::signal(SIGPIPE, SIG_IGN);  // a closed stdout is an error to report, not a death
  app::CallOptions options = flags.options;
  options.project_root = app::resolved_path(options.project_root);
  if (!flags.specs_dir.empty()) options.specs_dir = app::resolved_path(flags.specs_dir);
  if (!flags.run_id.empty()) options.run_id = flags.run_id;
  std::map<std::string, std::string> environment;
  for (const char* name : {"CM_OPENAI_COMPATIBLE_ENABLED", "CM_OPENAI_COMPATIBLE_BASE_URL", "CM_OPENAI_COMPATIBLE_API_KEY"})
    if (const char* value = std::getenv(name)) environment[name] = value;
  const app::EventLogTarget target{options.workflow, options.runtime, options.project_root, options.specs_dir, options.run_id};
  const auto write_event = [&target](const app::EventWrite& w) { return app::write_event_log(target, w); };
  const app::CallOutcome outcome = app::perform_model_call(options, environment, read_stdin, write_event, write_result);
  for (const auto& message : outcome.messages) std::fprintf(stderr, "%s: %s\n", program_name("call").c_str(), message.c_str());
  return outcome.exit_code;
}

}  // namespace

void add_call_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<CallFlags>();
  auto* sub = app.add_subcommand("call", "One verified OpenAI-compatible model call (cm-openai-compatible-call)");
  app::CallOptions& o = flags->options;
  sub->add_option("--workflow", o.workflow, "Workflow identifier")->required();
  sub->add_option("--stage", o.stage, "Stage identifier")->required();
  sub->add_option("--role", o.role, "Role identifier")->required();
  sub->add_option("--runtime", o.runtime, "codex, claude or unknown")
      ->required()
      ->check(CLI::IsMember(std::vector<std::string>{"codex", "claude", "unknown"}));
  sub->add_option("--requested-model", o.requested_model, "Model alias sent to the endpoint")->required();
  sub->add_option("--call-id", o.call_id, "Unique id of this call within the run")->required();
  sub->add_option("--project-root", o.project_root, "Project directory (recorded only)")->required();
  sub->add_option("--specs-dir", flags->specs_dir, "Specs directory holding the authoritative project log");
  sub->add_option("--run-id", flags->run_id, "Run id (required without --specs-dir)");
  sub->add_option("--timeout-seconds", o.timeout_seconds, "Total deadline of the HTTP exchange (1-600)")
      ->check(CLI::Range(1, 600));
  sub->footer(
      "Environment: CM_OPENAI_COMPATIBLE_ENABLED=true, CM_OPENAI_COMPATIBLE_BASE_URL, CM_OPENAI_COMPATIBLE_API_KEY,\n"
      "CM_WORKFLOW_LOG_HOME. The role packet is read from stdin. Proxy variables are never read; redirects are\n"
      "never followed; plain HTTP only to loopback.\n"
      "Exit status: 0 result and usage recorded; 1 call failed, error recorded; 2 rejected before any HTTP;\n"
      "3 result printed but usage not recorded (do not retry automatically); 4 call failed and not recorded.");
  sub->callback([&action, flags] { action = [flags] { return call(*flags); }; });
}

}  // namespace strata::cli
