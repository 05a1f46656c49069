#include "strata/app/study/ledger_merge.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>

#include "strata/error.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/model/study/sampling.hpp"
#include "strata/store/ledger_writer.hpp"

namespace strata::app {
namespace {

using model::Json;
using model::str;

struct Place {
  std::uint32_t input = 0;  // index into Merge::inputs_ (the base first, when given)
  std::uint32_t position = 0;
};

// What is kept of each distinct execution: where its chosen copy is, and the hash of its bytes.
struct Copy {
  Place place;
  std::string text_hash;
  std::size_t rank = 0;  // in the plan's selection (the plan's run, with --plan)
};

std::string described(const Json& task) {
  return str(task["taskId"]) + " " + str(task["modelId"]) + " " + str(task["scenarioId"]) + " replicate " +
         model::compact_json(task["replicate"]) + " " + str(task["variantId"]);
}

class Merge {
 public:
  explicit Merge(const MergeRequest& request) : request_(request) {
    if (request.base) inputs_.push_back(*request.base);
    inputs_.insert(inputs_.end(), request.shards.begin(), request.shards.end());
    if (request.plan) plan_ranks();
  }

  MergeOutcome run() {
    for (std::uint32_t i = 0; i < inputs_.size(); ++i) read_input(i);
    check_plan();
    std::vector<Place> order = request_.base ? base_order() : run_order();
    MergeOutcome outcome;
    outcome.observations = order.size();
    outcome.duplicates = duplicates_;
    outcome.replaced = replaced_;
    outcome.runs = runs_.size();
    outcome.content_hash = store::write_ledger_streamed(request_.output_path, ledger_version_, order.size(), [&](std::size_t k) {
      return inputs_[order[k].input].ledger->observation(order[k].position);
    });
    return outcome;
  }

 private:
  struct Run {
    std::string plan_hash, plan_source;
    std::vector<std::vector<std::uint32_t>> executions;  // per input, the ids of its executions in its order
  };

  bool is_base(std::uint32_t input) const { return request_.base && input == 0; }

  void plan_ranks() {
    const std::vector<Json> selection = model::select_executions(*request_.suite, (*request_.plan)["sampling"]);
    for (std::size_t k = 0; k < selection.size(); ++k) {
      std::string key = model::execution_key(selection[k]);
      ranks_.emplace(key, k);
      selection_.emplace_back(std::move(key), selection[k]);
    }
  }

  void read_input(std::uint32_t input) {
    const MergeInput& source = inputs_[input];
    if (input == 0) ledger_version_ = source.ledger->ledger_version();
    else if (source.ledger->ledger_version() != ledger_version_)
      throw Error("the inputs are ledgers of different versions (" + ledger_version_ + ", " + source.ledger->ledger_version() + ")",
                  source.name);
    for (std::uint32_t position = 0; position < source.ledger->size(); ++position) {
      const Json o = source.ledger->observation(position);
      const std::string& run_id = str(o["runId"]);
      Run& run = run_of(run_id);
      if (run.plan_source.empty()) {
        run.plan_hash = str(o["planHash"]);
        run.plan_source = source.name;
      } else if (run.plan_hash != str(o["planHash"])) {
        throw Error("run " + run_id + " has plan hash " + run.plan_hash + " in " + run.plan_source + " but " + str(o["planHash"]) +
                        " in " + source.name + ": these are not shards of one run",
                    source.name);
      }
      std::string execution = model::execution_key(o["task"]);
      std::size_t rank = 0;
      if (request_.plan && run_id == str((*request_.plan)["runId"])) {
        const auto found = ranks_.find(execution);
        if (found == ranks_.end())
          throw Error("execution " + described(o["task"]) + " of run " + run_id + " is not one the plan selects", source.name);
        rank = found->second;
      }
      add_copy(input, position, run_id + "\n" + execution, o, run, rank);
    }
  }

  Run& run_of(const std::string& run_id) {
    auto [it, added] = runs_.try_emplace(run_id);
    if (added) run_ids_.push_back(run_id);
    it->second.executions.resize(inputs_.size());
    return it->second;
  }

  // Every copy of an execution is listed where it appears (so the round-robin finds each in its
  // shard's turn); the one kept is the first, or a shard's in place of the base's.
  void add_copy(std::uint32_t input, std::uint32_t position, const std::string& key, const Json& o, Run& run, std::size_t rank) {
    Copy copy{Place{input, position}, model::sha256_hex(model::compact_json(o)), rank};
    const auto [it, added] = ids_.try_emplace(key, static_cast<std::uint32_t>(copies_.size()));
    if (added) {
      if (request_.base && !is_base(input))
        throw Error("execution " + described(o["task"]) + " of run " + str(o["runId"]) + " is not in the base ledger " +
                        request_.base->name + ": --base takes the ledger the adjudication was sharded from",
                    inputs_[input].name);
      copies_.push_back(std::move(copy));
    } else if (Copy& kept = copies_[it->second]; is_base(kept.place.input) && !is_base(input)) {
      ++replaced_;  // judged by this shard: its copy replaces the base's
      kept = std::move(copy);
    } else if (kept.text_hash == copy.text_hash) {
      ++duplicates_;
    } else {
      throw Error("execution " + described(o["task"]) + " of run " + str(o["runId"]) + " differs between " +
                      inputs_[kept.place.input].name + " and " + inputs_[input].name + ": a ledger may hold each execution once",
                  inputs_[input].name);
    }
    run.executions[input].push_back(it->second);
    if (is_base(input)) base_ids_.push_back(it->second);
  }

  void check_plan() {
    if (!request_.plan) return;
    const std::string& run_id = str((*request_.plan)["runId"]);
    const auto run = runs_.find(run_id);
    if (run != runs_.end() && run->second.plan_hash != str((*request_.plan)["contentHash"]))
      throw Error("run " + run_id + " was recorded under plan hash " + run->second.plan_hash + ", not this plan's " +
                  str((*request_.plan)["contentHash"]));
    if (!request_.require_complete) return;
    std::vector<std::string> missing;
    for (const auto& [key, cell] : selection_)
      if (!ids_.count(run_id + "\n" + key)) missing.push_back(described(cell));
    if (missing.empty()) return;
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 20; ++i) list += "\n  " + missing[i];
    if (missing.size() > 20) list += "\n  ... and " + std::to_string(missing.size() - 20) + " more";
    throw Error("--require-complete: " + std::to_string(missing.size()) + " of the " + std::to_string(selection_.size()) +
                " executions the plan selects for run " + run_id + " are in none of the ledgers (a shard missing or unfinished?):" + list);
  }

  // Each execution once, where it first comes in `ids` (in order), as the copy kept.
  void append_once(std::vector<Place>& order, std::vector<bool>& emitted, const std::vector<std::uint32_t>& ids) const {
    for (std::uint32_t id : ids) {
      if (emitted[id]) continue;
      emitted[id] = true;
      order.push_back(copies_[id].place);
    }
  }

  // With a base: the base's order, each execution as the copy kept (a shard's judgement).
  std::vector<Place> base_order() const {
    std::vector<Place> order;
    std::vector<bool> emitted(copies_.size(), false);
    append_once(order, emitted, base_ids_);
    return order;
  }

  // Per run: the plan's run by selection rank; others round-robin over the inputs, so shards
  // given in shard order interleave back into selection order (a copy seen again is skipped).
  std::vector<Place> run_order() const {
    std::vector<Place> order;
    std::vector<bool> emitted(copies_.size(), false);
    for (const std::string& run_id : run_ids_) {
      const Run& run = runs_.at(run_id);
      std::vector<std::uint32_t> ids;
      std::vector<std::size_t> next(inputs_.size(), 0);
      for (bool taken = true; taken;) {
        taken = false;
        for (std::uint32_t input = 0; input < inputs_.size(); ++input) {
          if (next[input] >= run.executions[input].size()) continue;
          ids.push_back(run.executions[input][next[input]++]);
          taken = true;
        }
      }
      if (request_.plan && run_id == str((*request_.plan)["runId"]))
        std::stable_sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) { return copies_[a].rank < copies_[b].rank; });
      append_once(order, emitted, ids);
    }
    return order;
  }

  const MergeRequest& request_;
  std::vector<MergeInput> inputs_;
  std::string ledger_version_;
  std::map<std::string, Run> runs_;
  std::vector<std::string> run_ids_;  // in order of first appearance
  std::unordered_map<std::string, std::uint32_t> ids_;  // run id + "\n" + execution key -> index into copies_
  std::vector<Copy> copies_;                             // of each execution, the copy kept
  std::vector<std::uint32_t> base_ids_;                  // with a base: its executions, in its order
  std::unordered_map<std::string, std::size_t> ranks_;  // execution key -> selection position (with a plan)
  std::vector<std::pair<std::string, Json>> selection_;  // (execution key, cell), in selection order
  std::size_t duplicates_ = 0, replaced_ = 0;
};

}  // namespace

MergeOutcome merge_ledgers(const MergeRequest& request) {
  if (request.shards.empty()) throw Error("strata ledger merge needs at least one ledger");
  if ((request.plan == nullptr) != (request.suite == nullptr)) throw Error("--plan and --suite go together");
  if (request.require_complete && request.plan == nullptr) throw Error("--require-complete needs --plan and --suite");
  return Merge(request).run();
}

}  // namespace strata::app
