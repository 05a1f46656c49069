#include "strata/app/study_run.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "strata/app/recorded_runs.hpp"
#include "strata/app/run_inputs.hpp"
#include "strata/engine/attempt_outcome.hpp"
#include "strata/engine/budget_gate.hpp"
#include "strata/model/artifact.hpp"
#include "strata/engine/job_pool.hpp"
#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/exec/child_environment.hpp"
#include "strata/model/content_hash.hpp"
#include "strata/model/cost.hpp"
#include "strata/model/ecmascript_number.hpp"
#include "strata/model/json_writer.hpp"
#include "strata/model/ledger_index.hpp"
#include "strata/model/observation_builder.hpp"
#include "strata/store/ledger_append.hpp"
#include "strata/store/journal_writer.hpp"
#include "strata/store/ledger_journal.hpp"
#include "strata/store/ledger_writer.hpp"
#include "strata/store/run_inputs_record.hpp"
#include "strata/store/verified_ledger.hpp"
#include "strata/model/json_access.hpp"

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

class StudyRun {
 public:
  StudyRun(const StudyInputs& inputs, const RunPreflight& preflight, const RunSettings& settings)
      : inputs_(inputs), preflight_(preflight), settings_(settings), run_id_(str(inputs.plan["runId"])),
        index_(run_id_, str(inputs.plan["contentHash"])),
        jobs_(io_, settings.jobs, settings.kill_grace), budget_(io_, settings.limits) {}

  // Endpoint connections belong to io_: they go before it does, however the run ended.
  ~StudyRun() {
    if (settings_.endpoints != nullptr) settings_.endpoints->close();
  }

  RunOutcome run() {
    store::LedgerLock lock(settings_.ledger_path);
    jobs_.on_stop([this] { budget_.close(); });  // executions waiting for budget give up
    for (const auto& e : preflight_.executions) keys_.push_back(model::execution_key(e.recorded));
    load_ledger();
    check_capacity();
    check_inputs();
    journal_ = std::make_unique<store::JournalWriter>(io_.get_executor(), fsync_pool_, store::journal_path_for(settings_.ledger_path),
                                                      journal_valid_bytes_);
    std::exception_ptr failure;
    asio::co_spawn(io_, main_loop(), [&failure](std::exception_ptr e) { failure = e; });
    io_.run();
    if (settings_.endpoints != nullptr) settings_.endpoints->close();  // the fold needs no sockets, maybe their descriptors
    RunOutcome outcome;
    try {
      outcome = fold();
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
  // ---- ledger state ------------------------------------------------------------------
  void load_ledger() {
    if (store::undo_interrupted_append(settings_.ledger_path))
      std::fprintf(stderr, "strata: %s: undid an append cut short by an earlier interruption (its observations are still in the journal)\n",
                   settings_.ledger_path.c_str());
    if (!load_verified_ledger()) load_whole_ledger();
  }

  // A ledger this program verified and wrote, unchanged since and with an empty journal, is
  // known from its record: a fresh run needs only the count, the run ids and the hash state
  // to append a block; a resumed run with every planned execution recorded (under this plan)
  // has nothing to run. Nothing is read that grows with the ledger; anything else reads it.
  bool load_verified_ledger() {
    struct stat journal {};
    if (::stat(store::journal_path_for(settings_.ledger_path).c_str(), &journal) == 0 && journal.st_size > 0) return false;
    std::optional<store::VerifiedLedger> verified = store::read_verified_ledger(settings_.ledger_path);
    if (!verified) return false;
    const auto this_run = verified->runs.find(run_id_);
    if (this_run != verified->runs.end() && !fully_recorded(this_run->second)) return false;
    hasher_ = model::LedgerHasher::restore(model::ledger_without_observations(verified->ledger_version), verified->hash_state);
    if (!hasher_) return false;
    if (this_run != verified->runs.end()) {
      for (const auto& key : keys_) index_.add_recorded_key(key);
      recorded_run_total_ = engine::Spend{this_run->second.reported_tokens, this_run->second.reported_cost_usd};
    }
    ledger_version_ = verified->ledger_version;
    ledger_hash_ = verified->content_hash;
    unloaded_observations_ = verified->observations;
    for (const auto& [run_id, run] : verified->runs) run_ids_.insert(run_id);
    appendable_ = run_ids_.count(run_id_) == 0;
    recorded_runs_ = std::move(verified->runs);
    record_current_ = true;
    return true;
  }

  // Under this plan, with every execution this plan selects recorded.
  bool fully_recorded(const store::RecordedRun& run) const {
    if (run.plan_hash != str(inputs_.plan["contentHash"])) return false;  // the full read reports it
    for (const auto& key : keys_)
      if (!run.has_execution_key(key)) return false;
    return true;
  }

  void load_whole_ledger() {
    store::LedgerState state = store::read_ledger_state(settings_.ledger_path);
    if (state.journal.dropped)
      std::fprintf(stderr, "strata: %s: dropped %s (a write cut short by an earlier interruption)\n",
                   store::journal_path_for(settings_.ledger_path).c_str(), state.journal.dropped->c_str());
    journal_valid_bytes_ = state.journal.valid_bytes;
    ledger_version_ = str(state.ledger["ledgerVersion"]);
    ledger_hash_ = str(state.ledger["contentHash"]);
    const bool journal_empty = state.journal.observations.empty();
    dirty_ = !state.ledger_exists || !journal_empty;
    observations_ = store::take_merged_observations(state);
    for (const auto& o : observations_) {
      index_.add_existing(o);
      run_ids_.insert(str(o["runId"]));
    }
    // A fresh run on a folded ledger only adds a block at the end: the fold can append.
    if (state.ledger_exists && journal_empty && state.hasher) {
      hasher_ = std::move(state.hasher);
      appendable_ = run_ids_.count(run_id_) == 0;
      folded_count_ = observations_.size();
    }
    if (!state.ledger_exists) ledger_hash_ = store::write_ledger(settings_.ledger_path, ledger_version_, {});
  }

  std::size_t total_observations() const { return unloaded_observations_ + observations_.size(); }

  // Keeps <ledger>.verified in step with the file when the hash state matches it. With the
  // ledger's observations not loaded, observations_ holds only this fresh run's block.
  void record_verified_ledger() {
    if (!hasher_ || record_current_) return;
    std::map<std::string, store::RecordedRun> runs = recorded_runs(observations_);
    if (unloaded_observations_ > 0) runs.merge(recorded_runs_);
    store::VerifiedLedger verified{ledger_hash_, ledger_version_, total_observations(), std::move(runs), hasher_->saved_state()};
    record_current_ = store::write_verified_ledger(settings_.ledger_path, verified);
  }

  // A ledger holds at most 100,000 observations: refuse before running anything.
  void check_capacity() const {
    std::size_t to_run = 0;
    for (const auto& key : keys_) to_run += index_.has_execution_key(key) ? 0 : 1;
    if (total_observations() + to_run > model::kMaxLedgerObservations)
      throw Error("Ledger " + settings_.ledger_path + " holds " + std::to_string(total_observations()) + " observations; " +
                  std::to_string(to_run) + " more would exceed the limit of 100000. Use another ledger.");
  }

  // A run resumed with other inputs than it started with would mix two setups: refused, unless
  // accepted (then listed in the summary). The record is written before anything is launched.
  void check_inputs() {
    const Json now = current_run_inputs(inputs_, preflight_);
    const std::optional<Json> recorded = store::read_run_inputs(settings_.ledger_path, run_id_);
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
      inputs_check_ = run_ids_.count(run_id_) > 0 ? "unrecorded" : "recorded";
    }
    if (!recorded || !input_changes_.empty()) store::write_run_inputs(settings_.ledger_path, run_id_, now);
  }

  // This run's observations in selection order, at the place of its first one; other
  // runs' observations keep their order.
  RunOutcome fold() {
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
    if (dirty_) fold_journal();
    record_verified_ledger();
    outcome.ledger_hash = ledger_hash_;
    outcome.ledger_read = unloaded_observations_ > 0 ? "verified-record" : "full";
    outcome.run_total = recorded_run_total_;
    for (const auto& o : observations_)
      if (o["runId"] == run_id_) {
        const engine::Spend reported = engine::reported_spend(o).value_or(engine::Spend{});
        outcome.run_total.tokens += reported.tokens;
        outcome.run_total.cost_usd += reported.cost_usd;
      }
    return outcome;
  }

  void fold_journal() {
    observations_ = ordered_observations();  // keep the folded order for a later fold
    if (!append_fold()) {
      if (unloaded_observations_ > 0)  // only a fresh run's block on an unchanged ledger gets here
        throw Error("Ledger " + settings_.ledger_path + " changed during the run; every completed observation is in " +
                    store::journal_path_for(settings_.ledger_path) + " and the next run folds it.");
      // Written a piece at a time (no copy of the observations); the hash state it ends with
      // lets <ledger>.verified describe the new file.
      std::string hash_state;
      ledger_hash_ = store::write_ledger_streamed(settings_.ledger_path, ledger_version_, observations_.size(),
                                                  [this](std::size_t i) { return observations_[i]; }, &hash_state);
      hasher_ = model::LedgerHasher::restore(model::ledger_without_observations(ledger_version_), hash_state);
      record_current_ = false;
    }
    journal_->truncate();
    dirty_ = false;
  }

  // The run's block goes after the observations already folded, in selection order. That
  // holds for the first fold of a fresh run only: a later completion may come earlier in
  // selection order than what an earlier fold wrote, so later folds rewrite the ledger.
  bool append_fold() {
    if (!appendable_ || !hasher_) return false;
    appendable_ = false;
    std::unordered_set<std::string> folded;
    for (std::size_t i = 0; i < folded_count_; ++i) folded.insert(str(observations_[i]["contentHash"]));
    const std::span<const Json> block(observations_.data() + folded_count_, observations_.size() - folded_count_);
    for (const auto& o : block)
      if (!folded.insert(str(o["contentHash"])).second) return false;  // let the full fold report it
    if (total_observations() > model::kMaxLedgerObservations) return false;
    auto hash = store::append_to_ledger_file(settings_.ledger_path, ledger_hash_, *hasher_, block);
    if (!hash) return false;
    ledger_hash_ = *hash;
    run_ids_.insert(run_id_);
    record_current_ = false;
    return true;
  }

  // Folding rewrites the whole ledger, so it waits until the journal is as long as the
  // ledger (at least kMinFold entries): each completion then costs O(1) amortised. With the
  // ledger's observations not loaded (a fresh run, at most 768 executions) the only fold is
  // the final append.
  void fold_if_large() {
    static constexpr std::uint64_t kMinFold = 4096;
    if (unloaded_observations_ > 0 || journal_->busy() ||
        journal_->entries() < std::max<std::uint64_t>(kMinFold, observations_.size() / 2))
      return;
    fold_journal();
  }

  std::vector<Json> ordered_observations() {
    std::unordered_map<std::string, std::size_t> position;
    for (std::size_t i = 0; i < keys_.size(); ++i) position[keys_[i]] = i;
    std::vector<Json> result;
    std::vector<std::pair<std::size_t, Json>> run;  // (selection index, observation)
    std::optional<std::size_t> insert_at;
    for (auto& o : observations_) {
      if (o["runId"] == run_id_) {
        if (!insert_at) insert_at = result.size();
        const auto it = position.find(model::execution_key(o["task"]));
        run.emplace_back(it == position.end() ? keys_.size() : it->second, std::move(o));
      } else {
        result.push_back(std::move(o));
      }
    }
    std::stable_sort(run.begin(), run.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    auto at = result.begin() + static_cast<std::ptrdiff_t>(insert_at.value_or(result.size()));
    std::vector<Json> ordered_run;
    ordered_run.reserve(run.size());
    for (auto& [index, o] : run) ordered_run.push_back(std::move(o));
    result.insert(at, std::make_move_iterator(ordered_run.begin()), std::make_move_iterator(ordered_run.end()));
    return result;
  }

  // ---- scheduling --------------------------------------------------------------------
  asio::awaitable<void> main_loop() {
    if (settings_.progress) jobs_.show_progress([this] { return progress_text(); });
    started_ = std::chrono::steady_clock::now();
    const auto wanted = [this](std::size_t i) {
      if (!index_.has_execution_key(keys_[i])) return true;
      ++skipped_;
      return false;
    };
    co_await jobs_.run(preflight_.executions.size(), wanted, [this](std::size_t i) { return execute(i); });
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

  exec::ProcessSpec process_spec(const PlannedExecution& e, int attempt) const {
    const Json& provider = *e.provider;
    const Json& budget = inputs_.plan["budget"];
    exec::ProcessSpec spec;
    spec.program = e.command_path;
    for (const auto& arg : provider["args"]) spec.args.push_back(str(arg));
    spec.env = child_environment(provider, model::session_id(run_id_, e.recorded) + "-" + std::to_string(attempt));
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
    // The run-wide budget: every attempt at the plan's token budget, at the entry's highest rate.
    const int attempts = static_cast<int>(inputs_.plan["budget"]["maxAttempts"].get<double>());
    const engine::Spend worst_one = worst_attempt(*e.provider);
    const engine::Spend worst{worst_one.tokens * attempts, worst_one.cost_usd * attempts};
    if (!co_await budget_.admit(worst)) {
      jobs_.stop_launching();
      co_return;  // not launched, not recorded: a resume with a higher limit runs it
    }
    engine::Spend earlier;  // spent by the attempts before the recorded one
    model::AttemptRecord record;
    for (int attempt = 1; attempt <= attempts; ++attempt) {
      if (attempt > 1) {
        const engine::Spend previous = attempt_spend(record, *e.provider).value_or(worst_one);
        earlier.tokens += previous.tokens;
        earlier.cost_usd += previous.cost_usd;
      }
      if (e.provider->contains("endpoint")) {
        EndpointAttempt call{e.provider, e.request, model::EndpointRole::provider, output_limit(*e.provider),
                             &run_id_, &e.recorded, attempt};
        record = co_await endpoint_caller().attempt(std::move(call));
      } else {
        exec::ProcessSpec spec = process_spec(e, attempt);
        const exec::ProcessResult result = co_await exec::run_bounded_process(std::move(spec));
        record = engine::attempt_record(result, output_limit(*e.provider));
      }
      if (jobs_.stopping()) {  // interrupted: not an outcome; a resume runs it again
        budget_.settle(worst, worst);
        co_return;
      }
      if (record.status == "completed") break;
    }
    in.observed_at = now_iso8601();
    ++executed_;
    Charge charge{worst, worst_one, earlier};
    jobs_.finish_outside_slot(record_execution(index, std::move(in), std::move(record), charge));
  }

  // An execution's reservation and what its attempts before the recorded one spent.
  struct Charge {
    engine::Spend reserved, worst_attempt, earlier_attempts;
  };

  asio::awaitable<void> record_execution(std::size_t index, model::ObservationInputs in, model::AttemptRecord record,
                                         Charge charge) {
    Json observation = model::build_judged_observation(in, record, *preflight_.executions[index].task);
    // The reservation is replaced by the real usage once the observation is durable; an
    // attempt that reports none keeps its worst case.
    engine::Spend actual = engine::reported_spend(observation).value_or(charge.worst_attempt);
    actual.tokens += charge.earlier_attempts.tokens;
    actual.cost_usd += charge.earlier_attempts.cost_usd;
    co_await record_observation(std::move(observation));
    budget_.settle(charge.reserved, actual);
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
    if (index_.upsert(observation) == model::LedgerIndex::Upsert::unchanged) co_return;
    co_await journal_->append(model::compact_json(observation));
    account(observation);
    observations_.push_back(std::move(observation));
    dirty_ = true;
    fold_if_large();
  }

  void account(const Json& observation) {
    ++completed_;
    const Json& execution = observation["execution"];
    if (execution["status"] != "completed") ++failed_;
    tokens_ += execution.value("inputTokens", 0.0) + execution.value("outputTokens", 0.0);
    if (observation.contains("measurements")) cost_ += observation["measurements"].value("agentCostUsd", 0.0);
  }

  const StudyInputs& inputs_;
  const RunPreflight& preflight_;
  const RunSettings& settings_;
  const std::string run_id_;
  model::LedgerIndex index_;
  asio::io_context io_{1};
  asio::thread_pool fsync_pool_{1};  // journal fsyncs run here
  engine::JobPool jobs_;
  engine::BudgetGate budget_;
  std::unique_ptr<store::JournalWriter> journal_;
  std::uint64_t journal_valid_bytes_ = 0;
  std::string ledger_version_ = "v1", ledger_hash_;
  std::vector<Json> observations_;
  std::vector<std::string> keys_;  // execution key of each planned execution
  std::unique_ptr<model::LedgerHasher> hasher_;  // hash state of the ledger file, while known
  bool appendable_ = false;                      // the next fold may append (a fresh run)
  std::size_t folded_count_ = 0;                 // of observations_, those in the file when loaded
  std::size_t unloaded_observations_ = 0;        // in the file but not in observations_ (verified record)
  std::set<std::string> run_ids_;                // of the observations in the file
  bool record_current_ = false;                  // <ledger>.verified describes the file
  std::map<std::string, store::RecordedRun> recorded_runs_;  // from <ledger>.verified, when loaded from it
  engine::Spend recorded_run_total_;             // this run's reported usage, when loaded from the record
  std::chrono::steady_clock::time_point started_;
  double executed_ = 0, skipped_ = 0, completed_ = 0, failed_ = 0, tokens_ = 0, cost_ = 0;
  int recorded_unavailable_ = 0;
  bool dirty_ = false;
  std::string inputs_check_;
  std::vector<std::string> input_changes_;
};

}  // namespace

RunOutcome run_study(const StudyInputs& inputs, const RunPreflight& preflight, const RunSettings& settings) {
  exec::init_process_runtime();
  StudyRun run(inputs, preflight, settings);
  return run.run();
}

}  // namespace strata::app
