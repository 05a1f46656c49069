// strata ledger merge <ledger>... -o OUT [--base LEDGER] [--plan P --suite S] [--require-complete]
#include <filesystem>
#include <memory>

#include "command.hpp"
#include "strata/app/study/ledger_merge.hpp"
#include "strata/error.hpp"

namespace strata::cli {
namespace {

namespace fs = std::filesystem;
using model::ArtifactKind;
using model::Json;

struct MergeOptions {
  std::vector<std::string> ledgers;
  std::string output, base, plan, suite;
  bool require_complete = false;
  OutputFormat format;
};

// Writing the merge over one of its inputs would destroy that input before it is read.
void refuse_output_among_inputs(const MergeOptions& options) {
  std::vector<std::string> inputs = options.ledgers;
  if (!options.base.empty()) inputs.push_back(options.base);
  std::error_code error;
  const fs::path output = fs::weakly_canonical(fs::absolute(options.output), error);
  for (const auto& input : inputs) {
    const bool same = fs::exists(options.output) ? fs::equivalent(options.output, input, error)
                                                 : fs::weakly_canonical(fs::absolute(input), error) == output;
    if (same) throw Error("the output is also an input; write the merge to a new file", options.output);
  }
}

int merge(const MergeOptions& options) {
  if (options.output.empty()) throw Error("strata ledger merge needs -o <output ledger>");
  refuse_output_among_inputs(options);
  Json plan, suite;
  if (!options.plan.empty() || !options.suite.empty()) {
    if (options.plan.empty() || options.suite.empty()) throw Error("--plan and --suite go together");
    plan = load_artifact(ArtifactKind::run_plan, options.plan);
    suite = load_artifact(ArtifactKind::task_suite, options.suite);
  }
  std::vector<std::unique_ptr<store::LedgerSource>> opened;
  app::MergeRequest request;
  for (const auto& path : options.ledgers) {
    opened.push_back(open_ledger(path));  // verified: shape, seal, every observation's hash
    request.shards.push_back(app::MergeInput{path, opened.back().get()});
  }
  if (!options.base.empty()) {
    opened.push_back(open_ledger(options.base));
    request.base = app::MergeInput{options.base, opened.back().get()};
  }
  if (!plan.is_null()) {
    request.plan = &plan;
    request.suite = &suite;
  }
  request.require_complete = options.require_complete;
  request.output_path = options.output;
  const app::MergeOutcome outcome = app::merge_ledgers(request);
  const std::string output = fs::absolute(options.output).string();
  if (options.format.text) {
    print_lines({"Merged ledgers: " + std::to_string(options.ledgers.size()) + (options.base.empty() ? "" : " onto the base"),
                 "Observations: " + std::to_string(outcome.observations),
                 "Duplicates kept once: " + std::to_string(outcome.duplicates),
                 "Replaced in the base: " + std::to_string(outcome.replaced), "Runs: " + std::to_string(outcome.runs),
                 "Ledger: " + output, "Content hash: " + outcome.content_hash});
  } else {
    print_json(Json{{"ok", true},
                    {"merge",
                     {{"inputs", static_cast<double>(options.ledgers.size())},
                      {"observations", static_cast<double>(outcome.observations)},
                      {"duplicates", static_cast<double>(outcome.duplicates)},
                      {"replaced", static_cast<double>(outcome.replaced)},
                      {"runs", static_cast<double>(outcome.runs)},
                      {"ledgerPath", output},
                      {"contentHash", outcome.content_hash}}}});
  }
  return 0;
}

}  // namespace

void add_ledger_merge_command(CLI::App& ledger, Action& action) {
  auto options = std::make_shared<MergeOptions>();
  auto* sub = ledger.add_subcommand("merge", "Merge the ledgers of a sharded run or adjudication into one");
  sub->add_option("ledgers", options->ledgers, "The shard ledgers, in shard order")->required();
  sub->add_option("-o,--output", options->output, "The merged ledger (a new file; written atomically)")->required();
  sub->add_option("--base", options->base, "For adjudicated shards: the ledger they were judged from (each shard's judgements replace its observations)");
  sub->add_option("--plan", options->plan, "The run plan: its run in selection order, and --require-complete");
  sub->add_option("--suite", options->suite, "The task suite of --plan");
  sub->add_flag("--require-complete", options->require_complete, "Refuse (exit 2, listing them) when an execution the plan selects is missing");
  add_format_flags(*sub, options->format);
  sub->footer(
      "Every input is verified. A run recorded under two plan hashes is refused; an execution present in two inputs\n"
      "is kept once when both copies are byte-identical and refused otherwise (both sources named). The output\n"
      "holds the observations in the order one machine would have written them: per run, in selection order\n"
      "(exact with --plan and --suite; without them, give the shards in shard order and they are interleaved back),\n"
      "sealed and written atomically, an observation at a time. Nothing is written when a check fails.\n"
      "Exit status: 0 merged, 2 a check failed or an input is invalid (docs/SCALE-OUT.md).");
  sub->callback([&action, options] { action = [options] { return merge(*options); }; });
}

}  // namespace strata::cli
