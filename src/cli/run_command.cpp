// strata run <plan> <suite> --providers P --repositories R --ledger L [--dry-run] ...
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <memory>

#include "command.hpp"
#include "strata/app/study/execution_workspaces.hpp"
#include "strata/app/trajectories/trajectory_keeper.hpp"
#include "strata/app/verifier/study_verifier.hpp"
#include "strata/app/endpoints/hosted_endpoints.hpp"
#include "strata/app/study/workspace_preflight.hpp"
#include "strata/app/study/run_preflight.hpp"
#include "strata/app/study/study_run.hpp"
#include "strata/model/json/json_access.hpp"
#include "budget_flags.hpp"
#include "shard_flag.hpp"
#include "usage_log_flags.hpp"

namespace strata::cli {
namespace {

using model::ArtifactKind;
using model::Json;

struct RunOptions {
  std::string plan, suite, providers, repositories, ledger, round, shard;
  bool dry_run = false;
  bool accept_changed_inputs = false;
  int jobs = 4;
  int kill_grace_ms = 2000;
  OutputFormat format;
  UsageLogFlags usage_log;
  BudgetFlags budget;
  std::string workspace_mode = "none", confine_network, workspace_diff, trajectories;
  std::vector<std::string> confine_show;
  bool confine = false;
  bool verify = false;
  std::string verifier_config, prepared_dir;
};

// --verify and --verifier-config (docs/VERIFIER.md): the checks run what the agent wrote, so only
// in its own workspace; confined like the provider with --confine. A set-up and hidden checks
// need the confinement (the set-up's copy is seen at the repository's path, the hidden files are
// mounted for the checks alone). Refused before anything is launched.
std::optional<app::StudyVerifier> study_verifier(const RunOptions& options, const app::StudyInputs& inputs,
                                                 const std::vector<std::string>& repository_roots) {
  if (!options.verifier_config.empty() && !options.verify) throw Error("--verifier-config needs --verify");
  if (!options.prepared_dir.empty() && !options.verify) throw Error("--prepared-dir needs --verify");
  if (!options.prepared_dir.empty()) {
    // A layer is a copy of its repository: kept inside one, it would be copied into itself.
    const std::string prepared = std::filesystem::absolute(options.prepared_dir).lexically_normal().string();
    for (const auto& root : repository_roots)
      if (prepared == root || prepared.rfind(root + "/", 0) == 0)
        throw Error("--prepared-dir lies in the repository " + root + ": give a directory outside every repository", options.prepared_dir);
  }
  if (!options.verify) return std::nullopt;
  if (options.workspace_mode != "copy" && options.workspace_mode != "overlay")
    throw Error("--verify needs --workspace copy|overlay: the checks run in the execution's own workspace");
  std::optional<Json> config;
  std::string directory = ".";
  if (!options.verifier_config.empty()) {
    config = load_artifact(ArtifactKind::verifier_config, options.verifier_config);
    directory = std::filesystem::absolute(options.verifier_config).parent_path().lexically_normal().string();
  }
  try {
    model::VerifierPlan plan = model::verifier_plan(config ? &*config : nullptr, directory, inputs.suite, inputs.repositories);
    if (!options.confine)
      for (const auto& [id, preparation] : plan.repositories) {
        if (preparation.setup) throw Error("verifier-config repository " + id + ": a setup needs --confine");
        if (preparation.hidden_directory) throw Error("verifier-config repository " + id + ": hiddenChecks need --confine");
      }
    std::optional<std::string> diffs;
    if (!options.workspace_diff.empty()) diffs = std::filesystem::absolute(options.workspace_diff).lexically_normal().string();
    std::optional<std::string> prepared;
    if (!options.prepared_dir.empty()) prepared = options.prepared_dir;
    app::StudyVerifier verifier(std::move(plan), options.ledger, diffs, prepared);
    verifier.check_hidden_directories();
    return verifier;
  } catch (const Error& error) {
    throw Error(error.describe(), options.verifier_config);
  }
}

// strata-workspace-exec, built beside strata (docs/WORKSPACES.md).
std::string launcher_path() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return (self.parent_path() / "strata-workspace-exec").string();
}

workspace::WorkspaceSettings workspace_settings(const RunOptions& options) {
  workspace::WorkspaceSettings settings;
  settings.mode = workspace::parse_mode(options.workspace_mode);
  settings.confine = options.confine;
  if (!options.confine_network.empty()) {
    if (options.confine_network != "none") throw Error("--confine-network takes only 'none', not '" + options.confine_network + "'");
    settings.network_none = true;
  }
  for (const auto& directory : options.confine_show) {
    if (!options.confine) throw Error("--confine-show needs --confine");
    if (!std::filesystem::is_directory(directory)) throw Error("--confine-show: not a directory", directory);
    settings.shown.push_back(std::filesystem::absolute(directory).lexically_normal().string());
  }
  if (!options.workspace_diff.empty()) settings.diff_directory = std::filesystem::absolute(options.workspace_diff).lexically_normal().string();
  return settings;
}

using model::str;

Json summary_json(const app::StudyInputs& inputs, const app::RunOutcome* outcome, const app::RunPreflight& preflight,
                  const app::EndpointUsageLog* usage_log, const engine::SpendLimits& limits) {
  const char* status = !outcome ? "dry-run" : outcome->budget_reached ? "budget-reached" : "completed";
  Json summary = {{"status", status},
                  {"runId", inputs.plan["runId"]},
                  {"planned", static_cast<double>(preflight.executions.size())},
                  {"executed", outcome ? outcome->executed : 0.0},
                  {"skipped", outcome ? outcome->skipped : 0.0}};
  if (preflight.shard) summary["shard"] = {{"shard", preflight.shard->text()}, {"selected", static_cast<double>(preflight.selected)}};
  if (outcome) {
    summary["ledgerPath"] = outcome->ledger_path;
    summary["ledgerHash"] = outcome->ledger_hash;
    summary["ledgerRead"] = outcome->ledger_read;  // "verified-record" or "full" (docs/DECISIONS.md)
  }
  if (outcome && limits.any()) summary["budget"] = budget_summary(limits, outcome->spent, outcome->run_total);
  if (outcome && (outcome->inputs_check == "unrecorded" || outcome->inputs_check == "changed"))
    summary["inputs"] = {{"check", outcome->inputs_check}, {"changes", outcome->input_changes}};
  summary["providerConfigHash"] = inputs.providers["contentHash"];
  summary["repositoryConfigHash"] = inputs.repositories["contentHash"];
  summary["assistedArm"] = (outcome ? outcome->assisted_arm : preflight.assisted_arm).to_json();
  if (usage_log != nullptr) summary["usageLog"] = usage_log_summary(*usage_log);
  return summary;
}

std::vector<std::string> summary_lines(const Json& summary, const model::AssistedArm& arm) {
  std::vector<std::string> lines{"Study run: " + str(summary["runId"]), "Status: " + str(summary["status"]),
                                 "Planned: " + number_text(summary["planned"]),
                                 "Executed: " + number_text(summary["executed"]),
                                 "Skipped: " + number_text(summary["skipped"])};
  if (summary.contains("shard"))
    lines.push_back("Shard: " + str(summary["shard"]["shard"]) + " of " + number_text(summary["shard"]["selected"]) +
                    " selected executions");
  if (summary.contains("budget")) {
    for (auto& line : budget_lines(summary["budget"])) lines.push_back(std::move(line));
  }
  if (summary.contains("inputs")) {
    if (summary["inputs"]["check"] == "unrecorded")
      lines.push_back("Inputs: not checked: the ledger has no record of what run " + str(summary["runId"]) +
                      " started with (written by the reference or an older Strata); recorded now");
    for (const auto& change : summary["inputs"]["changes"]) lines.push_back("Inputs changed (accepted): " + str(change));
  }
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
  const std::unique_ptr<app::EndpointUsageLog> usage_log = open_usage_log(options.usage_log);
  const char* path = std::getenv("PATH");
  const std::optional<model::Shard> shard = shard_of(options.shard);
  app::RunPreflight preflight = app::prepare_run(inputs, path ? path : "");
  if (shard) app::restrict_to_shard(preflight, *shard);
  const workspace::WorkspaceSettings workspace = workspace_settings(options);
  std::optional<app::StudyVerifier> verifier = study_verifier(options, inputs, preflight.repository_roots);
  std::vector<std::string> artifacts{options.plan, options.suite, options.providers, options.repositories};
  if (!options.verifier_config.empty()) artifacts.push_back(options.verifier_config);
  const app::WorkspaceTools tools = app::check_workspace_preflight(
      workspace, {options.ledger, artifacts,
                  preflight.repository_roots, launcher_path(), path ? path : ""});
  // Unconfined, a check is kept offline by the launcher's network namespace: without one (copy
  // where the kernel gives no namespaces) it could not be.
  if (verifier && !options.confine && tools.launcher.empty())
    throw Error("--verify without --confine needs the namespaces strata-workspace-exec makes (none here) to keep the "
                "checks offline: add --confine");
  const engine::SpendLimits limits = options.budget.limits();
  if (limits.max_cost_usd) app::require_pricing_for_cost_limit(inputs, preflight);
  // Endpoint providers' variables are checked here, in the dry run too.
  app::HostedEndpoints endpoints(
      app::endpoint_providers(preflight), std::chrono::milliseconds(static_cast<long long>(inputs.plan["budget"]["maxRuntimeMs"].get<double>())),
      usage_log.get());
  std::optional<app::RunOutcome> outcome;
  if (!options.dry_run) {
    app::RunSettings settings;
    settings.ledger_path = options.ledger;
    if (!options.round.empty()) settings.round = options.round;
    settings.jobs = jobs_within_limits(options.jobs);
    settings.kill_grace = std::chrono::milliseconds(options.kill_grace_ms);
    settings.progress = ::isatty(2) == 1;
    settings.endpoints = &endpoints;
    settings.limits = limits;
    settings.accept_changed_inputs = options.accept_changed_inputs;
    std::optional<app::TrajectoryKeeper> trajectories;
    if (!options.trajectories.empty())
      settings.trajectories = &trajectories.emplace(options.trajectories, options.ledger + ".incoming-trajectories", ".trajectory.json");
    std::optional<app::ExecutionWorkspaces> workspaces;
    if (workspace.isolated()) {
      app::ExecutionWorkspaces& made = workspaces.emplace(workspace, tools, options.ledger);
      if (trajectories) {  // every execution's, and the channels: no provider sees another's
        made.keep_out(trajectories->directory());
        made.keep_out(trajectories->incoming_root());
      }
      if (verifier) {  // the prepared layers, outputs and hidden checks: the verifier's, never a provider's
        for (const auto& directory : verifier->private_directories()) made.keep_out(directory);
        settings.verifier = &*verifier;
      }
      settings.workspaces = &made;
    }
    outcome = app::run_study(inputs, preflight, settings);
    if (outcome->interrupted) {
      std::fprintf(stderr, "strata: run %s interrupted: %.0f executed, ledger %s; re-run the same command to resume\n",
                   str(inputs.plan["runId"]).c_str(), outcome->executed, outcome->ledger_path.c_str());
      return usage_log_status(usage_log.get(), 130);
    }
  }
  const Json summary = summary_json(inputs, outcome ? &*outcome : nullptr, preflight, usage_log.get(), limits);
  if (options.format.text) {
    std::vector<std::string> lines = summary_lines(summary, outcome ? outcome->assisted_arm : preflight.assisted_arm);
    if (usage_log) {
      for (auto& line : usage_log_lines(*usage_log)) lines.push_back(std::move(line));
    }
    print_lines(lines);
  } else {
    print_json(Json{{"ok", true}, {"summary", summary}});
  }
  return usage_log_status(usage_log.get(), outcome && outcome->budget_reached ? kBudgetReachedExit : 0);
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
  sub->add_option("--jobs", options->jobs, "Executions in flight at once")->check(CLI::Range(1, 4096))->capture_default_str();
  sub->add_option("--kill-grace-ms", options->kill_grace_ms, "Grace between SIGTERM and SIGKILL for a process group")
      ->check(CLI::Range(0, 600000))
      ->capture_default_str();
  sub->add_flag("--dry-run", options->dry_run, "Run the pre-flight checks only: start nothing, write nothing");
  sub->add_flag("--accept-changed-inputs", options->accept_changed_inputs,
                "Resume even when the configs or provider programs differ from those the run started with");
  sub->add_option("--workspace", options->workspace_mode,
                  "none (providers run in the repository itself), copy or overlay (each attempt gets a writable view of "
                  "its own)")
      ->check(CLI::IsMember({"none", "copy", "overlay"}))
      ->capture_default_str();
  sub->add_flag("--confine", options->confine,
                "Run each provider under bubblewrap: system read-only, its workspace writable, its own /tmp, no home "
                "and no Strata files");
  sub->add_option("--confine-network", options->confine_network, "none: a confined provider gets no network at all")
      ->check(CLI::IsMember({"none"}));
  sub->add_option("--confine-show", options->confine_show,
                  "A directory a confined provider may see, read-only, where --confine would hide it (an agent installed "
                  "under a home directory); repeatable");
  sub->add_option("--keep-workspace-diff", options->workspace_diff,
                  "Write each execution's changes as DIR/<execution key>.patch (outside the ledger)");
  sub->add_option("--keep-trajectories", options->trajectories,
                  "Keep each execution's trajectory (ATIF, from the agent adapters) in DIR as <execution key>.trajectory.json, "
                  "durable before its observation; the provider gets its file's path in STRATA_TRAJECTORY_FILE "
                  "(docs/TRAJECTORIES.md). Read them with strata trajectory DIR")
      ->type_name("DIR");
  sub->add_flag("--verify", options->verify,
                "After each provider exits, run its task's acceptance checks in its workspace (needs --workspace "
                "copy|overlay; confined with --confine); observations get verified counts beside the agent's claim");
  sub->add_option("--verifier-config", options->verifier_config,
                  "A sealed strata-verifier-config: per-check bounds and rules, per-repository set-up and hidden checks "
                  "(needs --verify)");
  sub->add_option("--prepared-dir", options->prepared_dir,
                  "Where the repositories' prepared layers live (default <ledger>.prepared): shards on one machine given the "
                  "same directory set each layer up once (needs --verify)");
  add_format_flags(*sub, options->format);
  add_usage_log_flags(*sub, options->usage_log);
  add_budget_flags(*sub, options->budget, "execution");
  add_shard_flag(*sub, options->shard, "executions");
  sub->footer(
      "Each completed observation is made durable in <ledger>.journal before it counts; the journal is folded\n"
      "into the ledger at the end and on interrupt. Re-running the same command resumes: recorded executions\n"
      "are skipped. Ctrl-C stops launching, terminates running providers and keeps every completed observation;\n"
      "a second Ctrl-C kills at once.\n"
      "<ledger>.inputs records what each run started with (artifact hashes, each provider program's path, size,\n"
      "modification time and SHA-256); a resume with anything changed stops before launching (exit 2) and names\n"
      "each change, unless --accept-changed-inputs (the summary then lists them).\n"
      "With --workspace copy|overlay each attempt runs in a writable view of its repository, made before it starts\n"
      "and removed once its observation is durable; the repository itself is never written. overlay mounts it in\n"
      "the provider's own namespace (constant time), copy copies it (reflink where possible). The repository's tree\n"
      "(a git commit, or a digest of its files) is pinned in <ledger>.inputs: a resume with a changed tree is\n"
      "refused. Observations carry measurements.workspaceChangedFiles and workspaceChangedBytes. Workspaces an\n"
      "interrupted run left in <ledger>.workspaces/ are removed at the next start. docs/WORKSPACES.md tells what\n"
      "each mode, and --confine, protects against.\n"
      "With --verify, Strata runs each check of the task itself after the provider exits, one after another, in its\n"
      "workspace (/bin/sh -c; confined like the provider with --confine; no network; Strata's environment, none of\n"
      "the provider's variables), each bounded: 60000 ms, 65536 bytes of stdout, 256 processes at once (defaults; a\n"
      "sealed --verifier-config changes them per check). A check passes when it exits 0 within its bounds; exit 127\n"
      "or 126 (program missing) is 'not executed'. It records verifiedChecksTotal/Executed/Passed, verifiedCheck.<id>\n"
      "and verifiedClaimAgrees beside the agent's own acceptanceChecks* claim, judges the rubric on the verified\n"
      "counts, and keeps each execution's check output in <ledger>.verifier/ (or DIR/<key>.verifier.json with\n"
      "--keep-workspace-diff). A repository's set-up (with --confine) runs once per tree into <ledger>.prepared/.\n"
      "docs/VERIFIER.md tells what is verified and what stays claimed.\n"
      "With --max-tokens or --max-cost-usd, an execution starts only when its worst case (every attempt at the\n"
      "plan's budget.maxTokens, at its entry's highest rate) fits beside what this invocation spent and what\n"
      "runs reserved; once one cannot fit, nothing more starts, running executions finish and the summary says\n"
      "'Status: budget-reached'. Re-run with a higher limit to go on: the limit counts this invocation only.\n"
      "Exit status: 0 when the run completed (whatever the observations' statuses), 2 on an error, 3 when it\n"
      "completed but usage events could not be recorded, 4 when the budget was reached, 130 when interrupted.\n" +
      std::string(kUsageLogHelp));
  sub->callback([&action, options] { action = [options] { return run_study(*options); }; });
}

}  // namespace strata::cli
