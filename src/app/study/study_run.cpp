#include "strata/app/study/study_run.hpp"

#include <signal.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>

#include "strata/app/study/execution_workspaces.hpp"
#include "strata/app/study/repository_trees.hpp"
#include "strata/app/study/run_inputs.hpp"
#include "strata/app/study/run_ledger.hpp"
#include "strata/app/study/run_live_state.hpp"
#include "strata/app/trajectories/trajectory_keeper.hpp"
#include "strata/app/verifier/study_verifier.hpp"
#include "strata/app/verifier/verifier_phase.hpp"
#include "strata/engine/attempt_outcome.hpp"
#include "strata/engine/budget_gate.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/engine/job_pool.hpp"
#include "strata/engine/off_loop.hpp"
#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/exec/child_environment.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/study/cost.hpp"
#include "strata/model/json/ecmascript_number.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/ledger_index.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/store/journal_writer.hpp"
#include "strata/store/ledger_journal.hpp"
#include "strata/store/run_inputs_record.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::app {
namespace {

namespace asio = boost::asio;
using model::Json;

using model::str;

std::string now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(millis));
  return text;
}

// The allowlisted environment plus the session id of this attempt.
std::vector<std::string> child_environment(const Json& provider, const std::string& session) {
  std::vector<std::string> env = exec::allowlisted_environment(provider["envAllowlist"].get<std::vector<std::string>>());
  env.push_back("DOC_BRIDGE_STUDY_SESSION_ID=" + session);
  return env;
}

// ", spent 1200 tokens $0.0031, reserved 8000 tokens $0.0160, limit 100000 tokens, $5.0000"
std::string budget_progress(const engine::BudgetGate& gate) {
  const engine::SpendBudget& budget = gate.budget();
  const engine::SpendLimits& limits = budget.limits();
  char text[256];
  std::snprintf(text, sizeof text, ", spent %.0f tokens $%.4f, reserved %.0f tokens $%.4f, limit", budget.spent().tokens,
                budget.spent().cost_usd, budget.reserved().tokens, budget.reserved().cost_usd);
  std::string line = text;
  if (limits.max_tokens) {
    std::snprintf(text, sizeof text, " %.0f tokens", *limits.max_tokens);
    line += text;
  }
  if (limits.max_cost_usd) {
    std::snprintf(text, sizeof text, "%s $%.4f", limits.max_tokens ? "," : "", *limits.max_cost_usd);
    line += text;
  }
  return line;
}

// The execution key of each execution the plan selects, in selection order.
std::vector<std::string> execution_keys(const RunPreflight& preflight) {
  std::vector<std::string> keys;
  keys.reserve(preflight.executions.size());
  for (const auto& e : preflight.executions) keys.push_back(model::execution_key(e.recorded));
  return keys;
}

class StudyRun {
 public:
  StudyRun(const StudyInputs& inputs, const RunPreflight& preflight, const RunSettings& settings)
      : inputs_(inputs), preflight_(preflight), settings_(settings), run_id_(str(inputs.plan["runId"])),
        ledger_(settings.ledger_path, run_id_, str(inputs.plan["contentHash"]), execution_keys(preflight)),
        jobs_(io_, settings.jobs, settings.kill_grace), budget_(io_, settings.limits) {}

  // Endpoint connections belong to io_: they go before it does, however the run ended.
  ~StudyRun() {
    if (settings_.endpoints != nullptr) settings_.endpoints->close();
  }

  RunOutcome run() {
    store::LedgerLock lock(settings_.ledger_path);
    if (settings_.workspaces != nullptr) settings_.workspaces->sweep_stale();
    jobs_.on_stop([this] { budget_.close(); });  // executions waiting for budget give up
    ledger_.load();
    ledger_.check_capacity();
    check_inputs();
    sweep_trajectories();
    prepare_layers();
    journal_ = std::make_unique<store::JournalWriter>(io_.get_executor(), fsync_pool_, store::journal_path_for(settings_.ledger_path),
                                                      ledger_.journal_valid_bytes());
    std::exception_ptr failure;
    asio::co_spawn(io_, main_loop(), [&failure](std::exception_ptr e) { failure = e; });
    io_.run();
    remove_live_state(settings_.ledger_path);  // nothing runs any more
    if (settings_.endpoints != nullptr) settings_.endpoints->close();  // the fold needs no sockets, maybe their descriptors
    RunOutcome outcome;
    try {
      outcome = finish();
    } catch (const Error& e) {
      if (!failure && !jobs_.failure()) throw;
      // The first failure is the one to report; the fold's is a consequence (e.g. a full disk).
      std::fprintf(stderr, "strata: %s (every completed observation stays in the journal)\n", e.describe().c_str());
    }
    if (failure) std::rethrow_exception(failure);
    if (jobs_.failure()) throw Error(*jobs_.failure());
    return outcome;
  }

 private:
  // ---- the ledger's inputs and the outcome ------------------------------------------------
  // A run resumed with other inputs than it started with would mix two setups: refused, unless
  // accepted (then listed in the summary). The record is written before anything is launched.
  void check_inputs() {
    Json now = current_run_inputs(inputs_, preflight_);
    if (settings_.workspaces != nullptr) now["workspace"] = workspace_inputs(preflight_, settings_.workspaces->settings());
    if (settings_.verifier != nullptr) now["verifier"] = settings_.verifier->inputs(now["workspace"]["trees"]);
    const std::optional<Json> recorded = store::read_run_inputs(settings_.ledger_path, run_id_);
    recorded_inputs_ = recorded;
    if (recorded) {
      input_changes_ = changed_inputs(run_id_, *recorded, now);
      if (!input_changes_.empty() && !settings_.accept_changed_inputs) {
        std::string message = "inputs changed since run " + run_id_ +
                              " started; nothing was launched (--accept-changed-inputs goes on with the new ones):";
        for (const auto& change : input_changes_) message += "\n" + change;
        throw Error(message);
      }
      inputs_check_ = input_changes_.empty() ? "unchanged" : "changed";
    } else {
      inputs_check_ = ledger_.holds_run(run_id_) ? "unrecorded" : "recorded";
    }
    if (!recorded || !input_changes_.empty()) store::write_run_inputs(settings_.ledger_path, run_id_, now);
  }

  // --verify: the prepared layers of the repositories whose executions are still to run, set up
  // before the first of them (docs/VERIFIER.md); a resume re-uses them.
  void prepare_layers() {
    if (settings_.verifier == nullptr) return;
    std::map<std::string, std::string> pending;  // repositoryId -> root
    for (std::size_t i = 0; i < preflight_.executions.size(); ++i) {
      const PlannedExecution& e = preflight_.executions[i];
      if (!e.assisted_unavailable && !ledger_.holds_execution(i)) pending.emplace(str(e.recorded["repositoryId"]), e.repository_root);
    }
    settings_.verifier->prepare(*settings_.workspaces, pending, recorded_inputs_ ? &*recorded_inputs_ : nullptr);
  }

  // --keep-trajectories: what a killed run left (channels; trajectories whose observation never
  // became durable) goes before anything runs, so every trajectory in DIR has its observation.
  void sweep_trajectories() {
    if (settings_.trajectories == nullptr) return;
    std::vector<std::string> unrecorded;
    for (std::size_t i = 0; i < preflight_.executions.size(); ++i)
      if (!ledger_.holds_execution(i)) unrecorded.push_back(model::execution_key(preflight_.executions[i].recorded));
    settings_.trajectories->sweep(unrecorded);
  }

  // After the run: the last fold, then what the summary reports.
  RunOutcome finish() {
    RunOutcome outcome;
    outcome.interrupted = jobs_.interrupted();
    outcome.budget_reached = budget_.reached();
    outcome.spent = budget_.budget().spent();
    outcome.inputs_check = inputs_check_;
    outcome.input_changes = input_changes_;
    outcome.planned = static_cast<double>(preflight_.executions.size());
    outcome.executed = executed_;
    outcome.skipped = skipped_;
    outcome.assisted_arm = preflight_.assisted_arm;
    outcome.assisted_arm.recorded = recorded_unavailable_;
    outcome.ledger_path = std::filesystem::absolute(settings_.ledger_path).lexically_normal().string();
    ledger_.finish(truncate_journal());
    outcome.ledger_hash = ledger_.content_hash();
    outcome.ledger_read = ledger_.read_mode();
    outcome.run_total = ledger_.run_total();
    return outcome;
  }

  // What a fold calls once the file holds what the journal did.
  std::function<void()> truncate_journal() {
    return [this] { journal_->truncate(); };
  }

  // ---- scheduling --------------------------------------------------------------------
  asio::awaitable<void> main_loop() {
    if (settings_.progress) jobs_.show_progress([this] { return progress_text(); });
    started_ = std::chrono::steady_clock::now();
    asio::co_spawn(io_, live_state_loop(), asio::detached);
    const LiveStateStop stop_live_state(*this);  // however the loop ends, the live state's writer ends with it
    const auto wanted = [this](std::size_t i) {
      if (!ledger_.holds_execution(i)) return true;
      ++skipped_;
      return false;
    };
    co_await jobs_.run(preflight_.executions.size(), wanted, [this](std::size_t i) { return execute(i); });
  }

  // ---- the live state (<ledger>.live, for strata view) -------------------------------------
  struct Running {
    int attempt = 1;
    std::string started_at;
  };
  // Marks an execution running for as long as its attempts run (the coroutine frame holds it).
  class RunningMark {
   public:
    RunningMark(std::map<std::size_t, Running>& running, std::size_t index) : running_(running), index_(index) {
      running_[index_].started_at = now_iso8601();
    }
    ~RunningMark() { running_.erase(index_); }
    RunningMark(const RunningMark&) = delete;
    RunningMark& operator=(const RunningMark&) = delete;
    void attempt(int number) { running_[index_].attempt = number; }

   private:
    std::map<std::size_t, Running>& running_;
    std::size_t index_;
  };
  class LiveStateStop {
   public:
    explicit LiveStateStop(StudyRun& run) : run_(run) {}
    ~LiveStateStop() {
      run_.live_done_ = true;
      if (run_.live_timer_ != nullptr) run_.live_timer_->cancel();
    }
    LiveStateStop(const LiveStateStop&) = delete;
    LiveStateStop& operator=(const LiveStateStop&) = delete;

   private:
    StudyRun& run_;
  };

  asio::awaitable<void> live_state_loop() {
    asio::steady_timer timer(io_);
    live_timer_ = &timer;
    while (!live_done_) {
      write_live_state(settings_.ledger_path, live_state());  // best effort: a run never fails for it
      timer.expires_after(std::chrono::seconds(1));
      boost::system::error_code ignored;
      co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    }
    live_timer_ = nullptr;
  }

  Json live_state() const {
    Json running = Json::array();
    for (const auto& [index, r] : running_) {
      const Json& task = preflight_.executions[index].recorded;
      running.push_back(Json{{"taskId", task["taskId"]}, {"repositoryId", task["repositoryId"]}, {"modelId", task["modelId"]},
                             {"scenarioId", task["scenarioId"]}, {"replicate", task["replicate"]}, {"attempt", r.attempt},
                             {"startedAt", r.started_at}});
    }
    Json budget = nullptr;
    if (budget_.limited()) {
      const engine::SpendBudget& b = budget_.budget();
      const auto limit = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
      budget = Json{{"spentTokens", b.spent().tokens}, {"spentCostUsd", b.spent().cost_usd}, {"reservedTokens", b.reserved().tokens},
                    {"reservedCostUsd", b.reserved().cost_usd}, {"maxTokens", limit(b.limits().max_tokens)},
                    {"maxCostUsd", limit(b.limits().max_cost_usd)}};
    }
    return Json{{"format", "strata-run-live-v1"}, {"runId", run_id_}, {"pid", static_cast<double>(::getpid())},
                {"updatedAt", now_iso8601()}, {"planned", static_cast<double>(preflight_.executions.size())},
                {"skipped", skipped_}, {"completed", completed_}, {"failed", failed_}, {"tokens", tokens_}, {"costUsd", cost_},
                {"running", std::move(running)}, {"budget", std::move(budget)}};
  }

  std::string progress_text() const {
    const double total = static_cast<double>(preflight_.executions.size()) - skipped_;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const double rate = seconds > 0 ? completed_ / seconds : 0;
    const double eta = rate > 0 ? (total - completed_) / rate : 0;
    char line[256];
    std::snprintf(line, sizeof line, "[%.0f/%.0f] running %d, failed %.0f, %.1f/s, ETA %.0fs, tokens %.0f, cost $%.4f",
                  completed_, total, jobs_.running(), failed_, rate, eta, tokens_, cost_);
    return budget_.limited() ? line + budget_progress(budget_) : line;
  }

  // An attempt's name: its DOC_BRIDGE_STUDY_SESSION_ID, and the name of its workspace and of its
  // trajectory channel.
  std::string attempt_name(const PlannedExecution& e, int attempt) const {
    return model::session_id(run_id_, e.recorded) + "-" + std::to_string(attempt);
  }

  // `channel`: the attempt's trajectory channel, or "" (--keep-trajectories not given).
  exec::ProcessSpec process_spec(const PlannedExecution& e, int attempt, const std::string& channel) const {
    const Json& provider = *e.provider;
    const Json& budget = inputs_.plan["budget"];
    exec::ProcessSpec spec;
    spec.program = e.command_path;
    for (const auto& arg : provider["args"]) spec.args.push_back(str(arg));
    spec.env = child_environment(provider, attempt_name(e, attempt));
    if (!channel.empty()) {  // set by Strata, whatever the allowlist says; a confined provider sees it in its /tmp
      const bool confined = settings_.workspaces != nullptr && settings_.workspaces->settings().confine;
      spec.env.push_back(std::string(kTrajectoryVariable) + "=" + TrajectoryKeeper::file_in(confined ? kConfinedTrajectoryChannel : channel));
    }
    spec.working_directory = e.repository_root;
    spec.stdin_data = e.request;
    spec.timeout = std::chrono::milliseconds(static_cast<long long>(budget["maxRuntimeMs"].get<double>()));
    spec.stdout_limit = output_limit(provider);
    spec.kill_grace = settings_.kill_grace;
    return spec;
  }

  // Bytes of provider output kept: the smaller of the provider's and the plan's bound.
  std::size_t output_limit(const Json& provider) const {
    return static_cast<std::size_t>(
        std::min(provider["maxOutputBytes"].get<double>(), inputs_.plan["budget"]["maxOutputBytes"].get<double>()));
  }

  EndpointCaller& endpoint_caller() const {
    if (settings_.endpoints == nullptr) throw Error("This build of strata cannot call endpoint providers.");
    return *settings_.endpoints;
  }

  // The slot-bound part of an execution: its attempts. Everything after the last attempt
  // (building the observation, its hashes, the journal) runs outside the slot, after the slot's
  // next process is on its way: a burst of exits is not serialised behind its bookkeeping.
  asio::awaitable<void> execute(std::size_t index) {
    const PlannedExecution& e = preflight_.executions[index];
    model::ObservationInputs in{&inputs_.plan, e.provider, e.recorded, e.request, settings_.round, now_iso8601()};
    if (e.assisted_unavailable) {
      ++recorded_unavailable_;
      Json observation = model::unavailable_arm_observation(in, preflight_.assisted_arm.reason);
      jobs_.finish_outside_slot(record_observation(std::move(observation)));
      co_return;
    }
    if (settings_.verifier != nullptr && settings_.verifier->setup_failed(str(e.recorded["repositoryId"]))) {
      // Its repository's set-up failed: nothing to run it in. Recorded as a provider that could
      // not be started, with the set-up named as the cause; not launched.
      exec::ProcessResult not_started;
      model::AttemptRecord record = engine::attempt_record(not_started, output_limit(*e.provider));
      record.error_code = "setup-failed";
      in.observed_at = now_iso8601();
      ++executed_;
      jobs_.finish_outside_slot(record_observation(model::build_judged_observation(in, record, *e.task)));
      co_return;
    }
    // The run-wide budget: every attempt at the plan's token budget, at the entry's highest rate.
    const int attempts = static_cast<int>(inputs_.plan["budget"]["maxAttempts"].get<double>());
    const engine::Spend worst_one = worst_attempt(*e.provider);
    const engine::Spend worst{worst_one.tokens * attempts, worst_one.cost_usd * attempts};
    if (!co_await budget_.admit(worst)) {
      jobs_.stop_launching();
      co_return;  // not launched, not recorded: a resume with a higher limit runs it
    }
    RunningMark running(running_, index);  // for <ledger>.live, until the attempts end
    engine::Spend earlier;  // spent by the attempts before the recorded one
    model::AttemptRecord record;
    std::optional<AttemptWorkspace> workspace;  // the latest attempt's (--workspace copy|overlay)
    std::string channel_name;  // the latest attempt's trajectory channel (--keep-trajectories), or ""
    for (int attempt = 1; attempt <= attempts; ++attempt) {
      running.attempt(attempt);
      if (attempt > 1) {
        const engine::Spend previous = attempt_spend(record, *e.provider).value_or(worst_one);
        earlier.tokens += previous.tokens;
        earlier.cost_usd += previous.cost_usd;
      }
      if (e.provider->contains("endpoint")) {
        EndpointAttempt call{e.provider, e.request, model::EndpointRole::provider, output_limit(*e.provider),
                             &run_id_, &e.recorded, attempt};
        record = co_await endpoint_caller().attempt(std::move(call));
      } else if (settings_.workspaces == nullptr) {
        exec::ProcessSpec spec = process_spec(e, attempt, open_channel(e, attempt, channel_name));
        const exec::ProcessResult result = co_await exec::run_bounded_process(std::move(spec));
        record = engine::attempt_record(result, output_limit(*e.provider));
      } else {
        if (workspace) co_await remove_workspace(std::move(*workspace));  // an earlier attempt's
        workspace.reset();
        record = co_await attempt_in_workspace(e, attempt, workspace, open_channel(e, attempt, channel_name));
      }
      if (jobs_.stopping()) {  // interrupted: not an outcome; a resume runs it again
        budget_.settle(worst, worst);
        if (workspace) co_await remove_workspace(std::move(*workspace));
        if (!channel_name.empty()) settings_.trajectories->close_channel(channel_name);
        co_return;
      }
      if (record.status == "completed") break;
    }
    in.observed_at = now_iso8601();
    ++executed_;
    Charge charge{worst, worst_one, earlier};
    jobs_.finish_outside_slot(
        record_execution(index, std::move(in), std::move(record), charge, std::move(workspace), std::move(channel_name)));
  }

  // --keep-trajectories: the attempt's channel, made empty (an earlier attempt's removed);
  // `name` is set to it. "" without --keep-trajectories, or when the channel cannot be made (said
  // on stderr): the attempt runs without one and its trajectoryKept is 0.
  std::string open_channel(const PlannedExecution& e, int attempt, std::string& name) const {
    if (settings_.trajectories == nullptr) return "";
    if (!name.empty()) settings_.trajectories->close_channel(name);
    name = attempt_name(e, attempt);
    try {
      return settings_.trajectories->open_channel(name);
    } catch (const Error& error) {
      std::fprintf(stderr, "strata: execution %s: no trajectory channel: %s\n", model::execution_key(e.recorded).c_str(),
                   error.describe().c_str());
      return "";
    }
  }

  // ---- workspaces (--workspace copy|overlay) --------------------------------------------
  // Blocking file-system work runs on the workspace pool (co_spawn there: an awaitable resumes
  // on its own executor), so the event loop keeps serving the other executions.
  // (g++ 12 mishandles a lambda with captures in a co_await expression: callers pass a named one.)
  asio::awaitable<void> off_loop(std::function<void()> work) { co_await engine::off_loop(workspace_pool_, std::move(work)); }

  // One attempt in a workspace of its own; `made` keeps the workspace (until the observation is
  // durable). A workspace that cannot be made fails the attempt, recording nothing of it.
  asio::awaitable<model::AttemptRecord> attempt_in_workspace(const PlannedExecution& e, int attempt,
                                                             std::optional<AttemptWorkspace>& made, std::string channel) {
    const ExecutionWorkspaces& workspaces = *settings_.workspaces;
    const std::string name = attempt_name(e, attempt);
    std::string failure;
    const std::function<void()> make = [&] {
      try {
        made = workspaces.make(name, e.repository_root,
                               settings_.verifier != nullptr ? settings_.verifier->base_of(str(e.recorded["repositoryId"])) : "");
      } catch (const Error& error) {
        failure = error.describe();
      }
    };
    co_await off_loop(make);
    if (!made) {
      std::fprintf(stderr, "strata: execution %s: %s\n", model::execution_key(e.recorded).c_str(), failure.c_str());
      // Recorded as a provider that could not be started, with the workspace named as the cause.
      exec::ProcessResult not_started;
      model::AttemptRecord record = engine::attempt_record(not_started, output_limit(*e.provider));
      record.error_code = "workspace-unavailable";
      co_return record;
    }
    exec::ProcessSpec spec = process_spec(e, attempt, channel);
    workspaces.wrap(spec, *made, *e.provider, channel);
    const exec::ProcessResult result = co_await exec::run_bounded_process(std::move(spec));
    model::AttemptRecord record = engine::attempt_record(result, output_limit(*e.provider));
    if (jobs_.stopping()) co_return record;
    const std::string key = model::execution_key(e.recorded);
    const std::function<void()> measure = [&] {
      try {
        const workspace::TreeChanges changes = workspaces.changes(*made);
        record.workspace_change = model::AttemptRecord::WorkspaceChange{static_cast<double>(changes.files.size()),
                                                                        static_cast<double>(changes.bytes)};
        if (workspaces.settings().diff_directory) workspaces.keep_patch(changes, key);
      } catch (const Error& error) {
        failure = error.describe();
      }
    };
    co_await off_loop(measure);
    if (!failure.empty()) std::fprintf(stderr, "strata: execution %s: %s\n", key.c_str(), failure.c_str());
    if (settings_.verifier != nullptr) co_await verify(e, *made, record);
    co_return record;
  }

  // --verify: the task's checks in the attempt's workspace, whatever the provider's status, and
  // their output kept outside the ledger. Interrupted, it records nothing (the caller discards
  // the attempt: a resume runs the execution again).
  asio::awaitable<void> verify(const PlannedExecution& e, const AttemptWorkspace& made, model::AttemptRecord& record) {
    const model::VerifierPlan& plan = settings_.verifier->plan();
    VerifierPhase phase;
    phase.workspaces = settings_.workspaces;
    phase.workspace = &made;
    phase.checks = &plan.checks_by_task.at(str(e.recorded["taskId"]));
    phase.preparation = plan.preparation(str(e.recorded["repositoryId"]));
    phase.kill_grace = settings_.kill_grace;
    phase.bound_processes = settings_.verifier->processes_bounded();
    phase.stopping = [this] { return jobs_.stopping(); };
    model::VerifiedRun verified = co_await run_verifier_phase(std::move(phase));
    if (jobs_.stopping()) co_return;
    const std::string key = model::execution_key(e.recorded);
    std::string failure;
    const std::function<void()> keep = [&] {
      try {
        settings_.verifier->write_output(key, verified);
      } catch (const Error& error) {
        failure = error.describe();
      }
    };
    co_await off_loop(keep);
    if (!failure.empty()) std::fprintf(stderr, "strata: execution %s: verifier output: %s\n", key.c_str(), failure.c_str());
    record.verification = std::move(verified);
  }

  asio::awaitable<void> remove_workspace(AttemptWorkspace made) {
    const std::function<void()> remove = [&] { settings_.workspaces->remove(made); };
    co_await off_loop(remove);
  }

  // An execution's reservation and what its attempts before the recorded one spent.
  struct Charge {
    engine::Spend reserved, worst_attempt, earlier_attempts;
  };

  asio::awaitable<void> record_execution(std::size_t index, model::ObservationInputs in, model::AttemptRecord record,
                                         Charge charge, std::optional<AttemptWorkspace> workspace, std::string channel_name) {
    if (!channel_name.empty()) co_await keep_trajectory(channel_name, model::execution_key(in.recorded_task), record);
    Json observation = model::build_judged_observation(in, record, *preflight_.executions[index].task);
    // The reservation is replaced by the real usage once the observation is durable; an
    // attempt that reports none keeps its worst case.
    engine::Spend actual = engine::reported_spend(observation).value_or(charge.worst_attempt);
    actual.tokens += charge.earlier_attempts.tokens;
    actual.cost_usd += charge.earlier_attempts.cost_usd;
    co_await record_observation(std::move(observation));
    budget_.settle(charge.reserved, actual);
    if (workspace) co_await remove_workspace(std::move(*workspace));  // removed once the observation is durable
  }

  // The attempt's trajectory into DIR, durable before its observation is written: a kill between
  // the two leaves a trajectory the next run's sweep removes, never an observation without one.
  asio::awaitable<void> keep_trajectory(const std::string& channel_name, const std::string& key, model::AttemptRecord& record) {
    bool kept = false;
    std::string failure;
    const std::function<void()> keep = [&] {
      try {
        kept = settings_.trajectories->keep(channel_name, key);
      } catch (const Error& error) {
        failure = error.describe();
      }
    };
    co_await off_loop(keep);
    if (!failure.empty()) std::fprintf(stderr, "strata: execution %s: its trajectory was not kept: %s\n", key.c_str(), failure.c_str());
    record.trajectory_kept = kept;
  }

  engine::Spend worst_attempt(const Json& provider) const {
    const double max_tokens = inputs_.plan["budget"]["maxTokens"].get<double>();
    return engine::worst_attempt(max_tokens, provider.contains("pricing") ? &provider["pricing"] : nullptr);
  }

  // What a failed attempt spent, when its endpoint reported usage (a process attempt that did
  // not complete reports nothing).
  static std::optional<engine::Spend> attempt_spend(const model::AttemptRecord& record, const Json& provider) {
    if (!record.measured_usage) return std::nullopt;
    const auto& usage = *record.measured_usage;
    engine::Spend spend{usage.input_tokens + usage.output_tokens, 0};
    if (provider.contains("pricing"))
      spend.cost_usd = model::cost_usd(model::pricing_from(provider["pricing"]), usage.input_tokens,
                                       usage.cached_input_tokens, usage.output_tokens)
                           .value_or(0);
    return spend;
  }

  asio::awaitable<void> record_observation(Json observation) {
    if (ledger_.index().upsert(observation) == model::LedgerIndex::Upsert::unchanged) co_return;
    co_await journal_->append(model::compact_json(observation));
    account(observation);
    ledger_.add(std::move(observation));
    if (!journal_->busy() && ledger_.fold_due(journal_->entries())) ledger_.fold(truncate_journal());
  }

  void account(const Json& observation) {
    ++completed_;
    const Json& execution = observation["execution"];
    if (execution["status"] != "completed") ++failed_;
    tokens_ += execution.value("inputTokens", 0.0) + execution.value("outputTokens", 0.0);
    if (observation.contains("measurements")) cost_ += model::spent_cost_usd(observation["measurements"]);
  }

  const StudyInputs& inputs_;
  const RunPreflight& preflight_;
  const RunSettings& settings_;
  const std::string run_id_;
  RunLedger ledger_;
  // Before io_: coroutine frames io_ may still hold when it goes refer to these.
  std::map<std::size_t, Running> running_;  // the executions whose attempts run now (index in the plan)
  bool live_done_ = false;
  asio::steady_timer* live_timer_ = nullptr;  // the live state's writer's, while it waits
  asio::io_context io_{1};
  asio::thread_pool fsync_pool_{1};  // journal fsyncs run here
  asio::thread_pool workspace_pool_{2};  // workspaces are made, measured and removed here
  engine::JobPool jobs_;
  engine::BudgetGate budget_;
  std::unique_ptr<store::JournalWriter> journal_;
  std::chrono::steady_clock::time_point started_;
  double executed_ = 0, skipped_ = 0, completed_ = 0, failed_ = 0, tokens_ = 0, cost_ = 0;
  int recorded_unavailable_ = 0;
  std::string inputs_check_;
  std::optional<Json> recorded_inputs_;  // <ledger>.inputs as the run found it
  std::vector<std::string> input_changes_;
};

}  // namespace

RunOutcome run_study(const StudyInputs& inputs, const RunPreflight& preflight, const RunSettings& settings) {
  exec::init_process_runtime();
  StudyRun run(inputs, preflight, settings);
  return run.run();
}

}  // namespace strata::app
