// strata adjudicate <ledger> <suite> --adjudicator P --output O [--run-id] [--offset] [--limit] [--jobs]
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "command.hpp"
#include "strata/app/adjudication/adjudication_run.hpp"
#include "strata/app/endpoints/hosted_endpoints.hpp"
#include "strata/app/trajectories/trajectory_keeper.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/store/ledger_source.hpp"
#include "budget_flags.hpp"
#include "shard_flag.hpp"
#include "usage_log_flags.hpp"

namespace strata::cli {
namespace {

using model::ArtifactKind;
using model::Json;

struct AdjudicateOptions {
  std::string ledger, suite, adjudicator, output, run_id, offset, limit, shard, trajectories;
  int jobs = 4;
  int kill_grace_ms = 2000;
  bool force = false;
  OutputFormat format;
  UsageLogFlags usage_log;
  BudgetFlags budget;
};

// --limit/--offset take JavaScript Number() text, as the reference does ("1e1" is 10).
std::optional<double> count_option(const std::string& text, bool positive) {
  if (text.empty()) return std::nullopt;
  const double value = model::javascript_number(text);
  const bool ok = std::isfinite(value) && std::trunc(value) == value && value >= (positive ? 1 : 0);
  if (!ok)
    throw Error(positive ? "Adjudication limit must be a positive integer."
                         : "Adjudication offset must be a non-negative integer.");
  return value;
}

// The budget ran out before every selected observation was judged: no output ledger (the
// checkpoint journal keeps every judgement made; a re-run with a higher limit goes on).
int budget_reached(const AdjudicateOptions& options, const app::AdjudicationOutcome& outcome,
                   const app::AdjudicationSettings& settings, const app::EndpointUsageLog* usage_log) {
  const Json budget = budget_summary(settings.limits, outcome.spent, std::nullopt);
  const double judged = outcome.judged + outcome.reused;
  if (options.format.text) {
    std::vector<std::string> lines{"Status: budget-reached",
                                   "Judged: " + number_text(judged) + " of " + number_text(outcome.selected),
                                   "Checkpoint: " + outcome.output_path + ".adjudication-journal"};
    for (auto& line : budget_lines(budget)) lines.push_back(std::move(line));
    if (usage_log != nullptr) {
      for (auto& line : usage_log_lines(*usage_log)) lines.push_back(std::move(line));
    }
    print_lines(lines);
  } else {
    Json payload{{"ok", true}, {"status", "budget-reached"}, {"judged", judged}, {"selected", outcome.selected},
                 {"budget", budget}};
    if (usage_log != nullptr) payload["usageLog"] = usage_log_summary(*usage_log);
    print_json(payload);
  }
  return usage_log_status(usage_log, kBudgetReachedExit);
}

int adjudicate(const AdjudicateOptions& options) {
  if (options.suite.empty() || options.adjudicator.empty() || options.output.empty())
    throw Error("Study adjudication requires a task suite, --adjudicator with an adjudicator, and --output.");
  const std::unique_ptr<app::EndpointUsageLog> usage_log = open_usage_log(options.usage_log);
  app::AdjudicationSettings settings;
  settings.selection.limit = count_option(options.limit, true);
  settings.selection.offset = count_option(options.offset, false);
  if (!options.run_id.empty()) settings.selection.run_id = options.run_id;
  settings.shard = shard_of(options.shard);
  settings.force = options.force;
  const std::unique_ptr<store::LedgerSource> ledger = open_ledger(options.ledger);
  const Json suite = load_artifact(ArtifactKind::task_suite, options.suite);
  const Json config = load_artifact(ArtifactKind::provider_config, options.adjudicator);
  if (!config.contains("adjudicator")) throw Error("Study provider config must declare an adjudicator.");
  settings.limits = options.budget.limits();
  if (settings.limits.max_cost_usd && !config["adjudicator"].contains("pricing"))
    throw Error("--max-cost-usd needs pricing on the adjudicator; " + model::str(config["adjudicator"]["id"]) +
                " declares none.");
  settings.output_path = options.output;
  settings.jobs = jobs_within_limits(options.jobs);
  settings.kill_grace = std::chrono::milliseconds(options.kill_grace_ms);
  settings.progress = ::isatty(2) == 1;
  // An endpoint adjudicator's variables are checked before anything is judged.
  app::HostedEndpoints endpoints({&config["adjudicator"]},
                                 std::chrono::milliseconds(static_cast<long long>(suite["maxRuntimeMsPerTask"].get<double>())),
                                 usage_log.get());
  settings.endpoints = &endpoints;
  std::optional<app::TrajectoryKeeper> trajectories;
  if (!options.trajectories.empty())
    settings.trajectories = &trajectories.emplace(options.trajectories, options.output + ".incoming-trajectories", ".judge.trajectory.json");
  app::AdjudicationOutcome outcome = app::run_adjudication(*ledger, suite, config, settings);
  if (outcome.interrupted) {
    std::fprintf(stderr, "strata: adjudication interrupted: %.0f of %.0f judged; re-run the same command to continue\n",
                 outcome.judged + outcome.reused, outcome.selected);
    return usage_log_status(usage_log.get(), 130);
  }
  const bool limited = settings.limits.any();
  if (outcome.budget_reached) return budget_reached(options, outcome, settings, usage_log.get());
  if (options.format.text) {
    std::vector<std::string> lines{"Adjudicated observations: " + std::to_string(outcome.observations),
                                   "Ledger: " + outcome.output_path, "Content hash: " + outcome.content_hash};
    if (settings.shard)
      lines.insert(lines.begin(), "Shard: " + settings.shard->text() + " (the output holds this shard's judgements only)");
    if (limited) {
      for (auto& line : budget_lines(budget_summary(settings.limits, outcome.spent, std::nullopt))) lines.push_back(std::move(line));
    }
    if (usage_log) {
      for (auto& line : usage_log_lines(*usage_log)) lines.push_back(std::move(line));
    }
    print_lines(lines);
  } else {
    Json payload{{"ok", true}, {"ledger", nullptr}};
    if (limited) payload["budget"] = budget_summary(settings.limits, outcome.spent, std::nullopt);
    if (usage_log) payload["usageLog"] = usage_log_summary(*usage_log);
    print_json_with_file(payload, "ledger", outcome.output_file->get(), outcome.output_path);  // not held whole
  }
  return usage_log_status(usage_log.get(), 0);
}

}  // namespace

void add_adjudicate_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<AdjudicateOptions>();
  auto* sub = app.add_subcommand("adjudicate", "Judge a batch of a ledger's observations with the independent adjudicator");
  sub->add_option("ledger", options->ledger, "The observation ledger to judge (never modified)")->required();
  sub->add_option("suite", options->suite, "The task suite (sealed JSON)");
  sub->add_option("--adjudicator", options->adjudicator, "Provider CLI config that declares the adjudicator");
  sub->add_option("--output", options->output, "Where to write the adjudicated ledger");
  sub->add_option("--run-id", options->run_id, "Only observations of this run");
  sub->add_option("--offset", options->offset, "Skip this many selected observations first");
  sub->add_option("--limit", options->limit, "Judge at most this many observations");
  sub->add_option("--jobs", options->jobs, "Judgements in flight at once")->check(CLI::Range(1, 4096))->capture_default_str();
  sub->add_option("--kill-grace-ms", options->kill_grace_ms, "Grace between SIGTERM and SIGKILL")->check(CLI::Range(0, 600000))->capture_default_str();
  sub->add_flag("--force", options->force,
                "Judge into --output even when it holds another batch's judgements (another input ledger, adjudicator "
                "configuration or selection), replacing them");
  sub->add_option("--keep-trajectories", options->trajectories,
                  "Keep each judge's trajectory (ATIF) in DIR as <execution key>.judge.trajectory.json, durable before its "
                  "judgement (docs/TRAJECTORIES.md); the judge gets its file's path in STRATA_TRAJECTORY_FILE")
      ->type_name("DIR");
  add_format_flags(*sub, options->format);
  add_usage_log_flags(*sub, options->usage_log);
  add_budget_flags(*sub, options->budget, "judgement");
  add_shard_flag(*sub, options->shard, "observations (the output then holds only this shard's; merge with strata ledger merge --base)");
  sub->footer(
      "Unselected observations are carried over byte-identically; failed judgements are recorded as pending.\n"
      "Each judgement is made durable in <output>.adjudication-journal first: re-running the same command after\n"
      "an interruption continues without judging anything twice. A completed batch leaves <output>.adjudication-receipt:\n"
      "the same command run again judges nothing (the output already holds every judgement), and another batch\n"
      "(input ledger, configuration or selection) is refused rather than replacing it, unless --force.\n"
      "With --max-tokens or --max-cost-usd, a judgement starts only when its worst case (the task's\n"
      "budget.maxTokens at the adjudicator's highest rate) fits beside what this invocation spent and what\n"
      "running judgements reserved; once one cannot fit, nothing more starts, no output is written, and a\n"
      "re-run with a higher limit goes on from the checkpoint.\n"
      "Exit status: 0 done, 2 error, 3 done but usage events could not be recorded, 4 budget reached,\n"
      "130 interrupted.\n" +
      std::string(kUsageLogHelp));
  sub->callback([&action, options] { action = [options] { return adjudicate(*options); }; });
}

}  // namespace strata::cli
