#include "strata/app/adjudication/adjudication_run.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "strata/app/adjudication/adjudication_receipt.hpp"
#include "strata/app/trajectories/trajectory_keeper.hpp"
#include "strata/engine/attempt_outcome.hpp"
#include "strata/engine/budget_gate.hpp"
#include "strata/engine/job_pool.hpp"
#include "strata/engine/off_loop.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/error.hpp"
#include "strata/exec/bounded_process.hpp"
#include "strata/exec/child_environment.hpp"
#include "strata/exec/command_lookup.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/json/shape.hpp"
#include "strata/model/study/provider_request.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/fault_injection.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/store/journal_writer.hpp"
#include "strata/store/ledger_journal.hpp"
#include "strata/store/ledger_writer.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::app {
namespace {

namespace asio = boost::asio;
using model::Json;

using model::str;

// The adjudicated observation of a checkpoint line, normalised as a parsed observation is.
Json judged_observation(const Json& line) {
  return model::conform(line.at("observation"), *model::artifact_spec(model::ArtifactKind::observation).sealed);
}

// Where a durable judgement lies in the checkpoint journal: it is read back for the output.
struct JournalSpan {
  std::uint64_t offset = 0;
  std::size_t length = 0;
};

// A checkpoint line longer than this is not one Strata wrote (a line holds one observation).
constexpr std::size_t kMaxCheckpointLine = 16 << 20;

// Checkpoint lines: {"source": <judged observation's original hash>, "configuration":
// <provider config hash>, "observation": <adjudicated observation>}. The valid prefix
// counts; entries made with another configuration are not reused. What follows the valid
// prefix (a line a kill cut short) is described in `dropped`, as `strata run` does for its journal.
// The file is read a piece at a time and each line is checked and not kept (the output reads
// it again): a checkpoint of 100,000 judgements is larger than any artifact Strata reads whole.
std::map<std::string, JournalSpan> read_checkpoint(const std::string& path, const std::string& configuration,
                                                   std::uint64_t& valid_bytes, std::string& dropped) {
  std::map<std::string, JournalSpan> judged;
  valid_bytes = 0;
  dropped.clear();
  const store::FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0 && errno == ENOENT) return judged;
  struct stat info {};
  if (file.get() < 0 || ::fstat(file.get(), &info) != 0)
    throw Error(std::string("cannot read the checkpoint journal: ") + std::strerror(errno), path);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  const auto take_line = [&](std::string_view text, std::uint64_t start) {
    try {
      const Json line = model::parse_json(text);
      const Json observation = judged_observation(line);
      if (model::content_hash(observation) != str(observation["contentHash"])) return false;
      if (line["configuration"] == configuration) judged[str(line["source"])] = JournalSpan{start, text.size()};
      return true;
    } catch (const std::exception&) {
      return false;
    }
  };
  std::string line;  // the bytes of the line being read, from valid_bytes on
  bool invalid = false;
  store::read_file_pieces(file.get(), path, [&](std::string_view piece) {
    for (std::size_t newline; (newline = piece.find('\n')) != std::string_view::npos; piece.remove_prefix(newline + 1)) {
      line.append(piece.substr(0, newline));
      if (line.size() > kMaxCheckpointLine || !take_line(line, valid_bytes)) {
        invalid = true;
        return false;  // this line and all after it are dropped
      }
      valid_bytes += line.size() + 1;
      line.clear();
    }
    line.append(piece);
    invalid = line.size() > kMaxCheckpointLine;
    return !invalid;
  });
  if (invalid)
    dropped = "an invalid line at byte " + std::to_string(valid_bytes) + " and " + std::to_string(size - valid_bytes) +
              " bytes after it";
  else if (valid_bytes < size)
    dropped = "an incomplete last line (" + std::to_string(size - valid_bytes) + " bytes)";
  return judged;
}

class AdjudicationRun {
 public:
  AdjudicationRun(const store::LedgerSource& ledger, const Json& suite, const Json& config,
                  const AdjudicationSettings& settings)
      : ledger_(ledger), suite_(suite), adjudicator_(config["adjudicator"]), config_hash_(str(config["contentHash"])),
        settings_(settings), checkpoint_(settings.output_path + ".adjudication-journal"),
        jobs_(io_, settings.jobs, settings.kill_grace), budget_(io_, settings.limits) {}

  // Endpoint connections belong to io_: they go before it does, however the run ended.
  ~AdjudicationRun() {
    if (settings_.endpoints != nullptr) settings_.endpoints->close();
  }

  AdjudicationOutcome run() {
    prepare();
    store::LedgerLock lock(settings_.output_path);
    if (std::optional<AdjudicationOutcome> done = already_written()) return std::move(*done);
    std::string dropped;
    place_checkpointed(read_checkpoint(checkpoint_, config_hash_, journal_end_, dropped));
    if (!dropped.empty())
      std::fprintf(stderr, "strata: %s: dropped %s (a write cut short by an earlier interruption)\n", checkpoint_.c_str(),
                   dropped.c_str());
    sweep_trajectories();
    journal_ = std::make_unique<store::JournalWriter>(io_.get_executor(), fsync_pool_, checkpoint_, journal_end_);
    jobs_.on_stop([this] { budget_.close(); });  // judgements waiting for budget give up
    std::exception_ptr failure;
    asio::co_spawn(io_, schedule(), [&failure](std::exception_ptr e) { failure = e; });
    io_.run();
    if (settings_.endpoints != nullptr) settings_.endpoints->close();  // the fold needs no sockets, maybe their descriptors
    if (failure) std::rethrow_exception(failure);
    if (jobs_.failure()) throw Error(*jobs_.failure());
    AdjudicationOutcome outcome;
    outcome.output_path = std::filesystem::absolute(settings_.output_path).lexically_normal().string();
    outcome.selected = static_cast<double>(selected_.size());
    outcome.judged = judged_;
    outcome.reused = reused_;
    outcome.interrupted = jobs_.interrupted();
    outcome.budget_reached = budget_.reached();
    outcome.spent = budget_.budget().spent();
    if (!outcome.interrupted && !outcome.budget_reached) {
      // The end of a batch, in an order where a kill at any step loses nothing and judges
      // nothing again: the output (its judgements still in the checkpoint), then the receipt
      // that lets a re-run find them in the output, then the checkpoint emptied.
      store::test_stop_point("adjudication-judged");
      outcome.content_hash = write_output();
      store::test_stop_point("adjudication-output-written");
      write_receipt(settings_.output_path, AdjudicationReceipt{ledger_.content_hash(), config_hash_, selection_, outcome.content_hash});
      store::test_stop_point("adjudication-receipt-written");
      outcome.observations = settings_.shard ? selected_.size() : ledger_.size();
      outcome.output_file = open_output();
      journal_->truncate();
      store::test_stop_point("adjudication-checkpoint-emptied");
    }
    return outcome;
  }

 private:
  std::shared_ptr<const store::FileDescriptor> open_output() const {
    auto file = std::make_shared<const store::FileDescriptor>(::open(settings_.output_path.c_str(), O_RDONLY | O_CLOEXEC));
    if (file->get() < 0) throw Error(std::string("cannot read the output ledger back: ") + std::strerror(errno), settings_.output_path);
    return file;
  }

  // The output as a completed run of this very batch left it: its receipt names this input,
  // configuration and selection, and its seal is the one the receipt recorded. Then every
  // judgement is in it, and nothing is judged again (a paid judge would bill twice). A receipt
  // of another batch refuses (unless --force), except when the input is that batch's own
  // output: batches chained on one file. A receipt whose output has changed since says nothing.
  std::optional<AdjudicationOutcome> already_written() {
    const std::optional<AdjudicationReceipt> receipt = read_receipt(settings_.output_path);
    if (!receipt) return std::nullopt;
    const std::optional<VerifiedOutput> output = verified_output(settings_.output_path);
    if (!output || output->content_hash != receipt->output) return std::nullopt;
    const std::string differences = receipt_differences(*receipt, ledger_.content_hash(), config_hash_, selection_);
    if (!differences.empty()) {
      if (settings_.force || receipt->output == ledger_.content_hash()) return std::nullopt;
      throw Error("The output already holds the judgements of another batch (" + differences +
                      "): judging this one would replace them. Choose another --output, or --force to replace them.",
                  settings_.output_path);
    }
    // Judgements of a kill after the receipt are in the output too: the checkpoint is done with.
    if (::truncate(checkpoint_.c_str(), 0) != 0 && errno != ENOENT)
      throw Error(std::string("cannot empty the checkpoint journal: ") + std::strerror(errno), checkpoint_);
    std::fprintf(stderr, "strata: %s already holds the %zu judgement(s) of this batch: nothing judged again\n",
                 settings_.output_path.c_str(), selected_.size());
    AdjudicationOutcome outcome;
    outcome.output_path = std::filesystem::absolute(settings_.output_path).lexically_normal().string();
    outcome.selected = static_cast<double>(selected_.size());
    outcome.reused = outcome.selected;
    outcome.content_hash = output->content_hash;
    outcome.observations = output->observations;
    outcome.output_file = open_output();
    return outcome;
  }

  // Everything that can fail before a judge starts (§4.2, §4.4). Each request is built to
  // check its size, then dropped: judge() reads its observation and builds it again, so a
  // large batch holds neither its observations nor its requests.
  void prepare() {
    selected_ = model::select_for_adjudication(ledger_.run_ids(), settings_.selection);
    selection_ = selection_json(settings_.selection, settings_.shard);
    if (settings_.shard) {  // this shard's part of the batch, round-robin over it (issue 17)
      std::vector<std::size_t> part;
      for (std::size_t k = 0; k < selected_.size(); ++k)
        if (settings_.shard->holds(k)) part.push_back(selected_[k]);
      selected_ = std::move(part);
    }
    done_.assign(selected_.size(), false);
    journal_spans_.resize(selected_.size());
    const char* path = std::getenv("PATH");
    if (adjudicator_.contains("command"))  // an endpoint adjudicator has none (Strata extension)
      command_ = exec::resolve_command(str(adjudicator_["command"]), std::filesystem::current_path().string(), path ? path : "");
    else if (settings_.endpoints == nullptr)
      throw Error("This build of strata cannot call endpoint adjudicators.");
    for (std::size_t index : selected_) {
      const Json o = ledger_.observation(index);
      source_hashes_.push_back(str(o["contentHash"]));
      const Json* task = model::find_task(suite_, str(o["task"]["taskId"]));
      if (task == nullptr) throw Error("No task definition exists for " + str(o["task"]["taskId"]) + ".");
      tasks_.push_back(task);
      if (static_cast<double>(request_for(o, tasks_.size() - 1).size()) > adjudicator_["maxInputBytes"].get<double>())
        throw Error("Adjudicator input limit " + model::compact_json(adjudicator_["maxInputBytes"]) +
                    " bytes exceeded for " + str(o["task"]["taskId"]) + ".");
    }
  }

  std::string request_for(const Json& observation, std::size_t k) const {
    return model::compact_json(model::adjudicator_request(observation, *tasks_[k]));
  }

  // Judgements a previous invocation made durable count as done, their lines read back for
  // the output (contentHashes are unique in a ledger).
  void place_checkpointed(const std::map<std::string, JournalSpan>& judged) {
    for (std::size_t k = 0; k < selected_.size() && !judged.empty(); ++k) {
      const auto found = judged.find(source_hashes_[k]);
      if (found == judged.end()) continue;
      journal_spans_[k] = found->second;
      done_[k] = true;
    }
  }

  // --keep-trajectories: what a killed invocation left (channels; trajectories of judgements that
  // never reached the checkpoint) goes before any judge starts.
  void sweep_trajectories() {
    if (settings_.trajectories == nullptr) return;
    std::vector<std::string> unjudged;
    for (std::size_t k = 0; k < selected_.size(); ++k)
      if (!done_[k]) unjudged.push_back(model::execution_key(ledger_.observation(selected_[k])["task"]));
    settings_.trajectories->sweep(unjudged);
  }

  asio::awaitable<void> schedule() {
    if (settings_.progress)
      jobs_.show_progress([this] {
        return "[" + std::to_string(static_cast<long long>(judged_ + reused_)) + "/" + std::to_string(selected_.size()) +
               "] judging " + std::to_string(jobs_.running());
      });
    const auto wanted = [this](std::size_t k) {
      if (!done_[k]) return true;
      ++reused_;
      return false;
    };
    co_await jobs_.run(selected_.size(), wanted, [this](std::size_t k) { return judge(k); });
  }

  // `channel`: the judge's trajectory channel, or "".
  exec::ProcessSpec judge_spec(const Json& source, std::size_t k, const std::string& channel) const {
    exec::ProcessSpec spec;
    spec.program = command_;
    for (const auto& arg : adjudicator_["args"]) spec.args.push_back(str(arg));
    spec.env = exec::allowlisted_environment(adjudicator_["envAllowlist"].get<std::vector<std::string>>());
    if (!channel.empty()) spec.env.push_back(std::string(kTrajectoryVariable) + "=" + TrajectoryKeeper::file_in(channel));
    spec.working_directory = std::filesystem::current_path().string();
    spec.stdin_data = request_for(source, k);
    spec.timeout = std::chrono::milliseconds(static_cast<long long>(suite_["maxRuntimeMsPerTask"].get<double>()));
    spec.stdout_limit = static_cast<std::size_t>(adjudicator_["maxOutputBytes"].get<double>());
    spec.kill_grace = settings_.kill_grace;
    return spec;
  }

  asio::awaitable<void> judge(std::size_t k) {
    // The run-wide budget: one judgement at the task's token budget, at the judge's highest rate.
    const engine::Spend worst = engine::worst_attempt(
        (*tasks_[k])["budget"]["maxTokens"].get<double>(), adjudicator_.contains("pricing") ? &adjudicator_["pricing"] : nullptr);
    if (!co_await budget_.admit(worst)) {
      jobs_.stop_launching();
      co_return;  // not judged, not recorded: a re-run with a higher limit judges it
    }
    Json source = ledger_.observation(selected_[k]);
    model::JudgeRecord record;
    std::string channel;  // --keep-trajectories: the judge's channel
    if (adjudicator_.contains("endpoint")) {
      const std::string request = request_for(source, k);
      EndpointAttempt call{&adjudicator_, request, model::EndpointRole::adjudicator,
                           static_cast<std::size_t>(adjudicator_["maxOutputBytes"].get<double>()),
                           &str(source["runId"]), &source["task"]};
      const model::AttemptRecord attempt = co_await settings_.endpoints->attempt(std::move(call));
      record = engine::judge_record(attempt);
    } else {
      channel = open_channel(k);
      exec::ProcessSpec spec = judge_spec(source, k, channel);
      const exec::ProcessResult result = co_await exec::run_bounded_process(std::move(spec));
      record = engine::judge_record(result);
    }
    if (jobs_.stopping()) {  // interrupted: judged again on the re-run
      budget_.settle(worst, worst);
      if (!channel.empty()) settings_.trajectories->close_channel(channel_name(k));
      co_return;
    }
    // Its trajectory durable before its judgement: a kill between the two leaves one the next
    // invocation's sweep removes, never a judgement without its trajectory.
    if (!channel.empty()) co_await keep_trajectory(k, model::execution_key(source["task"]));
    Json judged = model::adjudicated_observation(std::move(source), adjudicator_, config_hash_, record);
    // Durability does not hold the slot: the next judgement starts now.
    jobs_.finish_outside_slot(record_judgement(k, std::move(judged), worst));
  }

  static std::string channel_name(std::size_t k) { return "judge-" + std::to_string(k); }

  // --keep-trajectories: the judge's channel; "" without it, or when it cannot be made (said on
  // stderr: the judge runs without one).
  std::string open_channel(std::size_t k) const {
    if (settings_.trajectories == nullptr) return "";
    try {
      return settings_.trajectories->open_channel(channel_name(k));
    } catch (const Error& error) {
      std::fprintf(stderr, "strata: no trajectory channel for a judge: %s\n", error.describe().c_str());
      return "";
    }
  }

  asio::awaitable<void> keep_trajectory(std::size_t k, const std::string& key) {
    std::string failure;
    const std::function<void()> keep = [&] {
      try {
        settings_.trajectories->keep(channel_name(k), key);
      } catch (const Error& error) {
        failure = error.describe();
      }
    };
    co_await engine::off_loop(keep_pool_, keep);
    if (!failure.empty()) std::fprintf(stderr, "strata: judgement of %s: its trajectory was not kept: %s\n", key.c_str(), failure.c_str());
  }

  // The judgement is kept on disk only, in the checkpoint journal: lines go there in the
  // order of append() calls, so where this one lies is known now. Once it is durable, its
  // reservation is replaced by what it reported (its worst case when it reported nothing).
  asio::awaitable<void> record_judgement(std::size_t k, Json judged, engine::Spend reserved) {
    const engine::Spend actual = engine::reported_judge_spend(judged).value_or(reserved);
    Json line = {{"source", source_hashes_[k]}, {"configuration", config_hash_}, {"observation", Json()}};
    line["observation"] = std::move(judged);
    std::string text = model::compact_json(line);
    line = Json();
    journal_spans_[k] = JournalSpan{journal_end_, text.size()};
    journal_end_ += text.size() + 1;
    co_await journal_->append(std::move(text));
    done_[k] = true;
    ++judged_;
    budget_.settle(reserved, actual);
  }

  // The last step: the output ledger, written an observation at a time from the input (not
  // selected) and the checkpoint journal (judged). Returns its contentHash.
  std::string write_output() {
    const store::FileDescriptor journal(::open(checkpoint_.c_str(), O_RDONLY | O_CLOEXEC));
    if (journal.get() < 0) throw Error(std::string("cannot read the checkpoint journal: ") + std::strerror(errno), checkpoint_);
    const auto observation = [&](std::size_t i) {
      const auto k = std::lower_bound(selected_.begin(), selected_.end(), i);
      if (k == selected_.end() || *k != i) return ledger_.observation(i);
      const JournalSpan& span = journal_spans_[static_cast<std::size_t>(k - selected_.begin())];
      return judged_observation(model::parse_json(store::read_file_range(journal.get(), span.offset, span.length, checkpoint_)));
    };
    // A shard's output holds only what it judged: `strata ledger merge --base` puts the shards
    // back into the input ledger (docs/SCALE-OUT.md).
    if (settings_.shard)
      return store::write_ledger_streamed(settings_.output_path, ledger_.ledger_version(), selected_.size(),
                                          [&](std::size_t k) { return observation(selected_[k]); });
    return store::write_ledger_streamed(settings_.output_path, ledger_.ledger_version(), ledger_.size(), observation);
  }

  const store::LedgerSource& ledger_;
  const Json& suite_;
  const Json& adjudicator_;
  const std::string config_hash_;
  const AdjudicationSettings& settings_;
  // Not <output>.journal: that name belongs to strata run when --output is a run ledger.
  const std::string checkpoint_;
  asio::io_context io_{1};
  asio::thread_pool fsync_pool_{1};
  asio::thread_pool keep_pool_{1};  // trajectories are moved into their directory here
  engine::JobPool jobs_;
  engine::BudgetGate budget_;
  std::unique_ptr<store::JournalWriter> journal_;
  std::uint64_t journal_end_ = 0;           // where the checkpoint journal's next line goes
  std::vector<std::size_t> selected_;       // ledger indices of the batch, ascending (judging order)
  Json selection_;                          // what selected them, as the receipt records it
  std::vector<std::string> source_hashes_;  // of each selected observation before its judgement
  std::vector<const Json*> tasks_;          // the suite's task of each selected observation
  std::vector<bool> done_;                  // judged (now or by an earlier invocation)
  std::vector<JournalSpan> journal_spans_;  // of each done judgement
  std::string command_;
  double judged_ = 0, reused_ = 0;
};

}  // namespace

AdjudicationOutcome run_adjudication(const store::LedgerSource& ledger, const Json& suite, const Json& provider_config,
                                     const AdjudicationSettings& settings) {
  exec::init_process_runtime();
  AdjudicationRun run(ledger, suite, provider_config, settings);
  return run.run();
}

}  // namespace strata::app
