// strata run <plan> <suite> --providers P --repositories R --ledger L [--dry-run] ...
#include <cstdlib>
#include <memory>

#include "command.hpp"
#include "strata/app/run_preflight.hpp"

namespace strata::cli {
namespace {

using model::ArtifactKind;
using model::Json;

struct RunOptions {
  std::string plan, suite, providers, repositories, ledger, round;
  bool dry_run = false;
  int jobs = 4;
  OutputFormat format;
};

const std::string& str(const Json& v) { return v.get_ref<const std::string&>(); }

Json summary_json(const std::string& status, const app::StudyInputs& inputs, const app::RunPreflight& preflight) {
  return Json{{"status", status},
              {"runId", inputs.plan["runId"]},
              {"planned", static_cast<double>(preflight.executions.size())},
              {"executed", 0.0},
              {"skipped", 0.0},
              {"providerConfigHash", inputs.providers["contentHash"]},
              {"repositoryConfigHash", inputs.repositories["contentHash"]},
              {"assistedArm", preflight.assisted_arm.to_json()}};
}

std::vector<std::string> summary_lines(const Json& summary, const model::AssistedArm& arm) {
  std::vector<std::string> lines{"Study run: " + str(summary["runId"]), "Status: " + str(summary["status"]),
                                 "Planned: " + number_text(summary["planned"]),
                                 "Executed: " + number_text(summary["executed"]),
                                 "Skipped: " + number_text(summary["skipped"])};
  if (summary.contains("ledgerPath")) {
    lines.push_back("Ledger: " + str(summary["ledgerPath"]));
    lines.push_back("Ledger hash: " + str(summary["ledgerHash"]));
  }
  lines.push_back("Provider config hash: " + str(summary["providerConfigHash"]));
  lines.push_back("Repository config hash: " + str(summary["repositoryConfigHash"]));
  for (auto& line : arm.text_lines()) lines.push_back(std::move(line));
  return lines;
}

int run_study(const RunOptions& options) {
  if (options.suite.empty() || options.providers.empty() || options.repositories.empty() || options.ledger.empty())
    throw Error("Study run requires a task suite, --providers, --repositories, and --ledger.");
  app::StudyInputs inputs{load_artifact(ArtifactKind::run_plan, options.plan),
                          load_artifact(ArtifactKind::task_suite, options.suite),
                          load_artifact(ArtifactKind::provider_config, options.providers),
                          load_artifact(ArtifactKind::repository_config, options.repositories)};
  const char* path = std::getenv("PATH");
  const app::RunPreflight preflight = app::prepare_run(inputs, path ? path : "");
  if (!options.dry_run)
    throw Error("executing a plan is not available in this build yet; use --dry-run for the pre-flight checks");
  const Json summary = summary_json("dry-run", inputs, preflight);
  if (options.format.text) {
    print_lines(summary_lines(summary, preflight.assisted_arm));
  } else {
    print_json(Json{{"ok", true}, {"summary", summary}});
  }
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<RunOptions>();
  auto* sub = app.add_subcommand("run", "Run a study plan's executions and record them in a ledger");
  sub->add_option("plan", options->plan, "The run plan (sealed JSON)")->required();
  sub->add_option("suite", options->suite, "The task suite (sealed JSON)");
  sub->add_option("--providers", options->providers, "Provider CLI config (sealed JSON)");
  sub->add_option("--repositories", options->repositories, "Repository config (sealed JSON)");
  sub->add_option("--ledger", options->ledger, "Observation ledger to create or resume");
  sub->add_option("--round", options->round, "Round label recorded in every observation");
  sub->add_option("--jobs", options->jobs, "Executions in flight at once")->check(CLI::Range(1, 4096));
  sub->add_flag("--dry-run", options->dry_run, "Run the pre-flight checks only: start nothing, write nothing");
  add_format_flags(*sub, options->format);
  sub->footer("Exit status: 0 when the run completed (whatever the observations' statuses), 2 on an error.");
  sub->callback([&action, options] { action = [options] { return run_study(*options); }; });
}

}  // namespace strata::cli
