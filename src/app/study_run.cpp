#include "strata/app/study_run.hpp"

#include <signal.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <unordered_map>

#include "strata/engine/attempt_outcome.hpp"
#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/model/content_hash.hpp"
#include "strata/model/ecmascript_number.hpp"
#include "strata/model/json_writer.hpp"
#include "strata/model/ledger_index.hpp"
#include "strata/model/observation_builder.hpp"
#include "strata/store/ledger_journal.hpp"

namespace strata::app {
namespace {

namespace asio = boost::asio;
using model::Json;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

const std::string& str(const Json& v) { return v.get_ref<const std::string&>(); }

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

// PATH, HOME, TMPDIR and the allowlist (deduplicated, in that order), each only if set.
std::vector<std::string> child_environment(const Json& provider, const std::string& session) {
  std::vector<std::string> names{"PATH", "HOME", "TMPDIR"};
  for (const auto& name : provider["envAllowlist"])
    if (std::find(names.begin(), names.end(), str(name)) == names.end()) names.push_back(str(name));
  std::vector<std::string> env;
  for (const auto& name : names)
    if (const char* value = std::getenv(name.c_str())) env.push_back(name + "=" + value);
  env.push_back("DOC_BRIDGE_STUDY_SESSION_ID=" + session);
  return env;
}

class StudyRun {
 public:
  StudyRun(const StudyInputs& inputs, const RunPreflight& preflight, const RunSettings& settings)
      : inputs_(inputs), preflight_(preflight), settings_(settings), run_id_(str(inputs.plan["runId"])),
        index_(run_id_, str(inputs.plan["contentHash"])),
        wake_(io_), escalation_(io_), progress_timer_(io_), signals_(io_, SIGINT, SIGTERM) {
    wake_.expires_at(asio::steady_timer::time_point::max());
  }

  RunOutcome run() {
    store::LedgerLock lock(settings_.ledger_path);
    load_ledger();
    journal_ = std::make_unique<store::JournalWriter>(io_.get_executor(), pool_, store::journal_path_for(settings_.ledger_path),
                                                      journal_valid_bytes_);
    asio::co_spawn(io_, main_loop(), [this](std::exception_ptr e) { note_failure(e); });
    io_.run();
    if (settings_.progress) std::fputs("\n", stderr);
    RunOutcome outcome = fold();
    if (fatal_) throw Error(*fatal_);
    return outcome;
  }

 private:
  // ---- ledger state ------------------------------------------------------------------
  void load_ledger() {
    const store::LedgerState state = store::read_ledger_state(settings_.ledger_path);
    if (state.journal.dropped)
      std::fprintf(stderr, "strata: %s: dropped %s (a write cut short by an earlier interruption)\n",
                   store::journal_path_for(settings_.ledger_path).c_str(), state.journal.dropped->c_str());
    journal_valid_bytes_ = state.journal.valid_bytes;
    ledger_version_ = str(state.ledger["ledgerVersion"]);
    ledger_hash_ = str(state.ledger["contentHash"]);
    dirty_ = !state.ledger_exists || !state.journal.observations.empty();
    observations_ = store::merged_observations(state);
    for (const auto& o : observations_) index_.add_existing(o);
    if (!state.ledger_exists) ledger_hash_ = store::write_ledger(settings_.ledger_path, ledger_version_, {});
  }

  // This run's observations in selection order, at the place of its first one; other
  // runs' observations keep their order.
  RunOutcome fold() {
    RunOutcome outcome;
    outcome.interrupted = interrupted_;
    outcome.planned = static_cast<double>(preflight_.executions.size());
    outcome.executed = executed_;
    outcome.skipped = skipped_;
    outcome.assisted_arm = preflight_.assisted_arm;
    outcome.assisted_arm.recorded = recorded_unavailable_;
    outcome.ledger_path = std::filesystem::absolute(settings_.ledger_path).lexically_normal().string();
    if (dirty_) fold_journal();
    outcome.ledger_hash = ledger_hash_;
    return outcome;
  }

  void fold_journal() {
    ledger_hash_ = store::write_ledger(settings_.ledger_path, ledger_version_, ordered_observations());
    journal_->truncate();
    dirty_ = false;
  }

  // Folding rewrites the whole ledger, so it waits until the journal is as long as the
  // ledger (at least kMinFold entries): each completion then costs O(1) amortised.
  void fold_if_large() {
    static constexpr std::uint64_t kMinFold = 4096;
    if (journal_->busy() || journal_->entries() < std::max<std::uint64_t>(kMinFold, observations_.size() / 2)) return;
    fold_journal();
  }

  std::vector<Json> ordered_observations() {
    std::unordered_map<std::string, std::size_t> position;
    for (std::size_t i = 0; i < preflight_.executions.size(); ++i)
      position[model::execution_key(preflight_.executions[i].recorded)] = i;
    std::vector<Json> result, run;
    std::optional<std::size_t> insert_at;
    for (auto& o : observations_) {
      if (o["runId"] == run_id_) {
        if (!insert_at) insert_at = result.size();
        run.push_back(std::move(o));
      } else {
        result.push_back(std::move(o));
      }
    }
    auto index_of = [&](const Json& o) {
      const auto it = position.find(model::execution_key(o["task"]));
      return it == position.end() ? preflight_.executions.size() : it->second;
    };
    std::stable_sort(run.begin(), run.end(), [&](const Json& a, const Json& b) { return index_of(a) < index_of(b); });
    result.insert(result.begin() + static_cast<std::ptrdiff_t>(insert_at.value_or(result.size())),
                  std::make_move_iterator(run.begin()), std::make_move_iterator(run.end()));
    observations_ = result;  // keep the folded order for a later fold
    return result;
  }

  // ---- scheduling --------------------------------------------------------------------
  void notify() { wake_.cancel(); }

  asio::awaitable<void> wait_for_wake() { co_await wake_.async_wait(kTuple); }

  asio::awaitable<void> main_loop() {
    asio::co_spawn(io_, watch_signals(), asio::detached);
    if (settings_.progress) asio::co_spawn(io_, report_progress(), asio::detached);
    started_ = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < preflight_.executions.size(); ++i) {
      if (index_.has_execution(preflight_.executions[i].recorded)) {
        ++skipped_;
        continue;
      }
      while (running_ >= settings_.jobs && !stopping_) co_await wait_for_wake();
      if (stopping_) break;
      ++running_;
      asio::co_spawn(io_, execute(i), [this](std::exception_ptr e) {
        --running_;
        note_failure(e);
        notify();
      });
    }
    while (running_ > 0) co_await wait_for_wake();
    finished_ = true;
    boost::system::error_code ignored;
    signals_.cancel(ignored);
    escalation_.cancel();
    progress_timer_.cancel();
  }

  void note_failure(std::exception_ptr e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const Error& error) {
      if (!fatal_) fatal_ = error.describe();
    } catch (const std::exception& error) {
      if (!fatal_) fatal_ = error.what();
    }
    stop(SIGTERM);
  }

  // Stops new launches and terminates running process groups (SIGTERM, grace, SIGKILL).
  void stop(int first_signal) {
    if (stopping_) return;
    stopping_ = true;
    exec::signal_all_process_groups(first_signal);
    asio::co_spawn(io_, escalate(), asio::detached);
    notify();
  }

  asio::awaitable<void> escalate() {
    escalation_.expires_after(settings_.kill_grace);
    auto [ec] = co_await escalation_.async_wait(kTuple);
    if (!ec) exec::signal_all_process_groups(SIGKILL);
  }

  asio::awaitable<void> watch_signals() {
    for (;;) {
      auto [ec, number] = co_await signals_.async_wait(kTuple);
      if (ec || finished_) co_return;
      if (interrupted_) {  // second signal: kill at once; the journal is already durable
        exec::signal_all_process_groups(SIGKILL);
        std::fputs("\nstrata: killed; completed observations are in the journal, re-run to resume\n", stderr);
        std::_Exit(130);
      }
      interrupted_ = true;
      std::fprintf(stderr, "\nstrata: %s: stopping; completed observations are kept (again to kill at once)\n",
                   number == SIGINT ? "interrupted" : "terminated");
      stop(SIGTERM);
    }
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
    spec.stdout_limit = static_cast<std::size_t>(
        std::min(provider["maxOutputBytes"].get<double>(), budget["maxOutputBytes"].get<double>()));
    spec.kill_grace = settings_.kill_grace;
    return spec;
  }

  asio::awaitable<void> execute(std::size_t index) {
    const PlannedExecution& e = preflight_.executions[index];
    model::ObservationInputs in{&inputs_.plan, e.provider, e.recorded, e.request, settings_.round, now_iso8601()};
    Json observation;
    if (e.assisted_unavailable) {
      observation = model::unavailable_arm_observation(in, preflight_.assisted_arm.reason);
      ++recorded_unavailable_;
    } else {
      model::AttemptRecord record;
      const int attempts = static_cast<int>(inputs_.plan["budget"]["maxAttempts"].get<double>());
      for (int attempt = 1; attempt <= attempts; ++attempt) {
        exec::ProcessSpec spec = process_spec(e, attempt);
        const std::size_t output_limit = spec.stdout_limit;
        const exec::ProcessResult result = co_await exec::run_bounded_process(std::move(spec));
        if (stopping_) co_return;  // interrupted: not an outcome; a resume runs it again
        record = engine::attempt_record(result, output_limit);
        if (record.status == "completed") break;
      }
      in.observed_at = now_iso8601();
      observation = model::apply_deterministic_rubric(model::build_observation(in, record), *e.task);
      ++executed_;
    }
    co_await record_observation(std::move(observation));
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

  asio::awaitable<void> report_progress() {
    while (!finished_) {
      const double total = static_cast<double>(preflight_.executions.size()) - skipped_;
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
      const double rate = seconds > 0 ? completed_ / seconds : 0;
      const double eta = rate > 0 ? (total - completed_) / rate : 0;
      std::fprintf(stderr, "\r[%.0f/%.0f] running %d, failed %.0f, %.1f/s, ETA %.0fs, tokens %.0f, cost $%.4f   ",
                   completed_, total, running_, failed_, rate, eta, tokens_, cost_);
      std::fflush(stderr);
      progress_timer_.expires_after(std::chrono::milliseconds(250));
      co_await progress_timer_.async_wait(kTuple);
    }
  }

  const StudyInputs& inputs_;
  const RunPreflight& preflight_;
  const RunSettings& settings_;
  const std::string run_id_;
  model::LedgerIndex index_;
  asio::io_context io_{1};
  asio::thread_pool pool_{1};
  asio::steady_timer wake_, escalation_, progress_timer_;
  asio::signal_set signals_;
  std::unique_ptr<store::JournalWriter> journal_;
  std::uint64_t journal_valid_bytes_ = 0;
  std::string ledger_version_ = "v1", ledger_hash_;
  std::vector<Json> observations_;
  std::chrono::steady_clock::time_point started_;
  int running_ = 0;
  double executed_ = 0, skipped_ = 0, completed_ = 0, failed_ = 0, tokens_ = 0, cost_ = 0;
  int recorded_unavailable_ = 0;
  bool stopping_ = false, interrupted_ = false, finished_ = false, dirty_ = false;
  std::optional<std::string> fatal_;
};

}  // namespace

RunOutcome run_study(const StudyInputs& inputs, const RunPreflight& preflight, const RunSettings& settings) {
  exec::init_process_runtime();
  StudyRun run(inputs, preflight, settings);
  return run.run();
}

}  // namespace strata::app
