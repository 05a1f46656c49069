// strata plan <plan> [--text|--json]: verify and show a run plan;
// strata plan <plan> --suite S --power [--effect E] [--alpha A] [--target-power P] [--discordance D]:
// what the plan's paired comparisons can detect, before paying for the run (docs/METRICS.md "Power").
#include <memory>
#include <optional>

#include "command.hpp"
#include "strata/app/results/plan_power.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/results/mcnemar_power.hpp"

namespace strata::cli {
namespace {

using model::Json;
using model::str;

struct PlanOptions {
  std::string plan, suite;
  bool power = false;
  app::PowerRequest request;
  double effect = 0;  // meaningful when --effect was given
  OutputFormat format;
};

std::vector<std::string> plan_lines(const Json& plan) {
  const auto& budget = plan["budget"];
  const std::string tasks = std::to_string(plan["taskIds"].size());
  return {"Run plan: " + str(plan["planVersion"]),
          "Tasks: " + tasks,
          "Models: " + std::to_string(plan["models"].size()),
          "Scenarios: " + std::to_string(plan["scenarios"].size()),
          "Sample: " + number_text(plan["sampling"]["sampleSize"]) + "/" + tasks + " (" +
              str(plan["sampling"]["strategy"]) + ")",
          "Budget: " + number_text(budget["maxTokens"]) + " tokens, " + number_text(budget["maxRuntimeMs"]) + " ms, " +
              number_text(budget["maxOutputBytes"]) + " bytes, " + number_text(budget["maxAttempts"]) + " attempts",
          "Content hash: " + str(plan["contentHash"])};
}

std::vector<std::string> power_lines(const Json& power) {
  std::vector<std::string> lines{"Power of the exact McNemar test at alpha " + number_text(power["alpha"]) + ", assuming " +
                                 number_text(power["discordance"]) + " of pairs differ between arms (" +
                                 number_text(power["executions"]) + " executions):"};
  for (const auto& comparison : power["comparisons"]) lines.push_back(str(comparison["sentence"]));
  if (power.contains("note")) lines.push_back(str(power["note"]));
  return lines;
}

int plan(const PlanOptions& options, bool effect_given) {
  const Json plan = load_artifact(model::ArtifactKind::run_plan, options.plan);
  if (!options.power) {
    if (options.format.text)
      print_lines(plan_lines(plan));
    else
      print_json(Json{{"ok", true}, {"plan", plan}});
    return 0;
  }
  const Json suite = load_artifact(model::ArtifactKind::task_suite, options.suite);
  app::PowerRequest request = options.request;
  if (effect_given) request.effect = options.effect;
  const Json power = app::plan_power(plan, suite, request);
  if (options.format.text)
    print_lines(power_lines(power));
  else
    print_json(Json{{"ok", true}, {"power", power}});
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<PlanOptions>();
  auto* sub = app.add_subcommand("plan", "Verify and show a run plan, or what its paired comparisons can detect (--power)");
  sub->add_option("file", options->plan, "The sealed run plan (JSON)")->required();
  auto* suite = sub->add_option("--suite", options->suite, "The plan's task suite (its selection gives the pairs)");
  auto* power = sub->add_flag("--power", options->power,
                              "Per paired comparison the plan makes: the smallest difference in success rate it detects, "
                              "and with --effect the power for it and the pairs it needs");
  power->needs(suite);
  suite->needs(power);
  options->request.alpha = model::kDefaultAlpha;
  options->request.target_power = model::kDefaultTargetPower;
  options->request.discordance = model::kDefaultDiscordance;
  auto* effect = sub->add_option("--effect", options->effect, "A difference in success rate to size the sample for (e.g. 0.10)");
  auto* alpha = sub->add_option("--alpha", options->request.alpha, "The test's two-sided level (default 0.05)");
  auto* target = sub->add_option("--target-power", options->request.target_power, "The power to reach (default 0.8)");
  auto* discordance = sub->add_option("--discordance", options->request.discordance,
                                      "The assumed share of pairs whose arms differ, one succeeding and the other failing "
                                      "(default 0.3)");
  for (auto* option : {effect, alpha, target, discordance}) option->needs(power);
  add_format_flags(*sub, options->format);
  sub->footer(
      "With --power the plan's selection is drawn as `strata run` would draw it, and each model's scenario pairs are\n"
      "counted exactly. The power is the exact McNemar test's on the discordant pairs: a pair differs with probability\n"
      "--discordance and favours the current arm often enough to make the difference in success rate the effect.\n"
      "Sample sizes are in pairs (task x replicate). docs/METRICS.md \"Power\" has the method.");
  sub->callback([options, effect, &action] {
    const bool effect_given = effect->count() > 0;
    action = [options, effect_given] { return plan(*options, effect_given); };
  });
}

}  // namespace strata::cli
