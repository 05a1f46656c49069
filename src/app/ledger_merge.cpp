#include "strata/app/ledger_merge.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>

#include "strata/error.hpp"
#include "strata/model/content_hash.hpp"
#include "strata/model/json_access.hpp"
#include "strata/model/json_writer.hpp"
#include "strata/model/observation_builder.hpp"
#include "strata/model/sampling.hpp"
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
  bool from_base = false;
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
    plan_rank_.resize(inputs_.size());
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
    std::vector<std::vector<std::uint32_t>> positions;  // per input, in its order
  };

  bool is_base(std::uint32_t input) const { return request_.base && input == 0; }

  void plan_ranks() {
    const std::vector<Json> selection = model::select_executions(*request_.suite, (*request_.plan)["sampling"]);
    for (std::size_t k = 0; k < selection.size(); ++k) {
      ranks_.emplace(model::execution_key(selection[k]), k);
      selection_.push_back(selection[k]);
    }
  }

  void read_input(std::uint32_t input) {
    const MergeInput& source = inputs_[input];
    if (input == 0) ledger_version_ = source.ledger->ledger_version();
    else if (source.ledger->ledger_version() != ledger_version_)
      throw Error("the inputs are ledgers of different versions (" + ledger_version_ + ", " + source.ledger->ledger_version() + ")",
                  source.name);
    if (request_.plan) plan_rank_[input].resize(source.ledger->size());
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
      if (request_.plan && run_id == str((*request_.plan)["runId"])) {
        const auto rank = ranks_.find(execution);
        if (rank == ranks_.end())
          throw Error("execution " + described(o["task"]) + " of run " + run_id + " is not one the plan selects", source.name);
        plan_rank_[input][position] = rank->second;
      }
      add_copy(input, position, run_id + "\n" + execution, o, run);
    }
  }

  Run& run_of(const std::string& run_id) {
    auto [it, added] = runs_.try_emplace(run_id);
    if (added) run_ids_.push_back(run_id);
    it->second.positions.resize(inputs_.size());
    return it->second;
  }

  void add_copy(std::uint32_t input, std::uint32_t position, std::string key, const Json& o, Run& run) {
    Copy copy{Place{input, position}, model::sha256_hex(model::compact_json(o)), is_base(input)};
    const auto [it, added] = copies_.try_emplace(key, copy);
    if (!added) {
      Copy& kept = it->second;
      if (kept.from_base && !copy.from_base) {  // judged by this shard: its copy replaces the base's
        ++replaced_;
        kept = copy;
        return;
      }
      if (kept.text_hash == copy.text_hash) {
        ++duplicates_;
        return;
      }
      throw Error("execution " + described(o["task"]) + " of run " + str(o["runId"]) + " differs between " +
                      inputs_[kept.place.input].name + " and " + inputs_[input].name + ": a ledger may hold each execution once",
                  inputs_[input].name);
    }
    if (request_.base && !is_base(input))
      throw Error("execution " + described(o["task"]) + " of run " + str(o["runId"]) + " is not in the base ledger " +
                      request_.base->name + ": --base takes the ledger the adjudication was sharded from",
                  inputs_[input].name);
    if (is_base(input)) base_keys_.push_back(std::move(key));
    run.positions[input].push_back(position);
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
    for (const Json& cell : selection_)
      if (!copies_.count(run_id + "\n" + model::execution_key(cell))) missing.push_back(described(cell));
    if (missing.empty()) return;
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 20; ++i) list += "\n  " + missing[i];
    if (missing.size() > 20) list += "\n  ... and " + std::to_string(missing.size() - 20) + " more";
    throw Error("--require-complete: " + std::to_string(missing.size()) + " of the " + std::to_string(selection_.size()) +
                " executions the plan selects for run " + run_id + " are in none of the ledgers (a shard missing or unfinished?):" + list);
  }

  // The chosen copy of each of the base's executions, in the base's order.
  std::vector<Place> base_order() const {
    std::vector<Place> order;
    order.reserve(base_keys_.size());
    for (const std::string& key : base_keys_) order.push_back(copies_.at(key).place);
    return order;
  }

  std::vector<Place> run_order() const {
    std::vector<Place> order;
    for (const std::string& run_id : run_ids_) {
      const Run& run = runs_.at(run_id);
      const std::size_t first = order.size();
      // Round-robin over the inputs: shards given in shard order interleave back into selection order.
      std::vector<std::size_t> next(inputs_.size(), 0);
      for (bool taken = true; taken;) {
        taken = false;
        for (std::uint32_t input = 0; input < inputs_.size(); ++input) {
          if (next[input] >= run.positions[input].size()) continue;
          order.push_back(Place{input, run.positions[input][next[input]++]});
          taken = true;
        }
      }
      if (request_.plan && run_id == str((*request_.plan)["runId"])) sort_by_selection(order, first);
    }
    return order;
  }

  void sort_by_selection(std::vector<Place>& order, std::size_t first) const {
    std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(first), order.end(), [&](const Place& a, const Place& b) {
      return plan_rank_[a.input][a.position] < plan_rank_[b.input][b.position];
    });
  }

  const MergeRequest& request_;
  std::vector<MergeInput> inputs_;
  std::string ledger_version_;
  std::map<std::string, Run> runs_;
  std::vector<std::string> run_ids_;  // in order of first appearance
  std::unordered_map<std::string, Copy> copies_;  // run id + "\n" + execution key -> the copy kept
  std::vector<std::string> base_keys_;  // with a base: its executions' keys, in its order
  std::unordered_map<std::string, std::size_t> ranks_;  // execution key -> selection position (with a plan)
  std::vector<Json> selection_;
  std::vector<std::vector<std::size_t>> plan_rank_;  // per input and position: selection rank (the plan's run)
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
