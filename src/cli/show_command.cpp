// The read-only commands: providers, repositories, tasks, select, ledger, protocol (plan has its
// own file: plan_command.cpp).
// Each parses (and so verifies) one artifact and prints it as JSON or as summary lines.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "strata/model/study/sampling.hpp"
#include "strata/store/ledger_journal.hpp"
#include "strata/store/ledger_source.hpp"
#include "strata/model/json/json_access.hpp"

namespace strata::cli {
namespace {

using model::ArtifactKind;
using model::Json;

using model::str;

std::vector<std::string> provider_lines(const Json& config) {
  int hosted = 0;
  for (const auto& provider : config["providers"]) hosted += provider["providerNetwork"].get<bool>() ? 1 : 0;
  return {"Provider CLI config: " + str(config["configVersion"]),
          "Mappings: " + std::to_string(config["providers"].size()), "Hosted providers: " + std::to_string(hosted),
          "Content hash: " + str(config["contentHash"])};
}

std::vector<std::string> repository_lines(const Json& config) {
  return {"Repository config: " + str(config["configVersion"]),
          "Repositories: " + std::to_string(config["repositories"].size()),
          "Content hash: " + str(config["contentHash"])};
}

std::vector<std::string> task_lines(const Json& suite) {
  const auto& tasks = suite["tasks"];
  std::size_t checkable = 0;
  for (const auto& task : tasks) checkable += task.contains("expectedEntities") || task.contains("expectedDocuments");
  const double planned = static_cast<double>(tasks.size()) * 2 * 3 * suite["replicatesPerTask"].get<double>();
  return {"Task suite: " + str(suite["suiteVersion"]),
          "Mechanically checkable tasks: " + std::to_string(checkable) + "/" + std::to_string(tasks.size()),
          "Tasks: " + std::to_string(tasks.size()) + " (" + std::to_string(suite["population"].size()) +
              " repositories \u00d7 4 categories)",
          "Executions planned: " + number_text(Json(planned)),
          "Ordering: " + str(suite["ordering"]["strategy"]) + " (" + str(suite["ordering"]["seed"]) + ")",
          "Budget: " + number_text(suite["maxTokensPerTask"]) + " tokens/task, " +
              number_text(suite["maxRuntimeMsPerTask"]) + " ms/task, " + number_text(suite["maxRuns"]) + " runs",
          "Content hash: " + str(suite["contentHash"])};
}

std::vector<std::string> ledger_lines(const Json& ledger) {
  return {"Ledger: " + str(ledger["ledgerVersion"]), "Observations: " + std::to_string(ledger["observations"].size()),
          "Content hash: " + str(ledger["contentHash"])};
}

std::string joined_ids(const Json& array, const char* key = nullptr) {
  std::string out;
  for (const auto& element : array) out += (out.empty() ? "" : ", ") + str(key ? element[key] : element);
  return out;
}

std::vector<std::string> protocol_lines(const Json& protocol) {
  return {"Study protocol: " + str(protocol["protocolVersion"]),
          "Title: " + str(protocol["title"]),
          "Evidence classes: " + joined_ids(protocol["evidenceClasses"]),
          "Repositories: " + std::to_string(protocol["repositories"].size()),
          "Task categories: " + joined_ids(protocol["taskCategories"]),
          "Models: " + joined_ids(protocol["models"], "id"),
          "Scenarios: " + joined_ids(protocol["scenarios"], "id"),
          "Metrics: " + std::to_string(protocol["metrics"].size()),
          "Outcomes: " + std::to_string(protocol["outcomes"].size()),
          "Content hash: " + str(protocol["contentHash"])};
}

// A ledger as a fold would write it: the stored ledger plus its unfolded journal.
Json load_ledger_with_journal(const std::string& path) {
  const Json ledger = load_artifact(ArtifactKind::ledger, path);
  store::LedgerState state{true, ledger, store::read_journal(store::journal_path_for(path)), nullptr};
  const std::string journal = store::journal_path_for(path);
  if (state.journal.dropped) std::fprintf(stderr, "strata: %s: dropped %s\n", journal.c_str(), state.journal.dropped->c_str());
  if (state.journal.observations.empty()) return ledger;
  std::fprintf(stderr, "strata: %s: %zu observation(s) not yet folded are included\n", journal.c_str(),
               state.journal.observations.size());
  Json payload = {{"type", ledger["type"]},
                  {"schemaVersion", ledger["schemaVersion"]},
                  {"ledgerVersion", ledger["ledgerVersion"]},
                  {"observations", store::take_merged_observations(state)}};
  return model::create_artifact(ArtifactKind::ledger, std::move(payload));
}

// `strata ledger --text` needs the version, the count and the seal, not the tree: a ledger
// without unfolded journal entries is read an observation at a time (open_ledger falls back to
// the whole read, and its errors, for anything unusual). With a journal, the merged ledger as above.
std::optional<std::vector<std::string>> streamed_ledger_lines(const std::string& path) {
  const store::JournalContents journal = store::read_journal(store::journal_path_for(path));
  if (!journal.observations.empty() || journal.dropped) return std::nullopt;
  const std::unique_ptr<store::LedgerSource> ledger = open_ledger(path);
  return std::vector<std::string>{"Ledger: " + ledger->ledger_version(), "Observations: " + std::to_string(ledger->size()),
                                  "Content hash: " + ledger->content_hash()};
}

struct ShowCommand {
  const char* name;
  ArtifactKind kind;
  const char* json_key;
  const char* description;
  std::vector<std::string> (*lines)(const Json&);
};

const ShowCommand kShowCommands[] = {
    {"providers", ArtifactKind::provider_config, "providers", "Verify and show a provider CLI config", provider_lines},
    {"repositories", ArtifactKind::repository_config, "repositories", "Verify and show a repository config",
     repository_lines},
    {"tasks", ArtifactKind::task_suite, "suite", "Verify and show a task suite", task_lines},
    {"ledger", ArtifactKind::ledger, "ledger", "Verify and show an observation ledger", ledger_lines},
    {"protocol", ArtifactKind::protocol, "protocol", "Verify and show a study protocol", protocol_lines},
};

struct ShowOptions {
  std::string file;
  OutputFormat format;
};

void add_show(CLI::App& app, Action& action, const ShowCommand& command) {
  auto options = std::make_shared<ShowOptions>();
  auto* sub = app.add_subcommand(command.name, command.description);
  auto* file = sub->add_option("file", options->file, "The sealed artifact (JSON)");
  add_format_flags(*sub, options->format);
  if (command.kind == ArtifactKind::ledger) {
    add_ledger_merge_command(*sub, action);  // strata ledger merge ...
    sub->require_subcommand(0, 1);
  } else {
    file->required();
  }
  sub->callback([&action, options, command, sub] {
    if (!sub->get_subcommands().empty()) return;  // strata ledger merge: its own action
    if (options->file.empty()) throw CLI::RequiredError("file");
    action = [options, command] {
      if (command.kind == ArtifactKind::ledger && options->format.text) {
        if (auto lines = streamed_ledger_lines(options->file)) {
          print_lines(*lines);
          return 0;
        }
      }
      const Json artifact = command.kind == ArtifactKind::ledger ? load_ledger_with_journal(options->file)
                                                                 : load_artifact(command.kind, options->file);
      if (options->format.text) {
        print_lines(command.lines(artifact));
      } else {
        print_json(Json{{"ok", true}, {command.json_key, artifact}});
      }
      return 0;
    };
  });
}

void add_select(CLI::App& app, Action& action) {
  auto options = std::make_shared<ShowOptions>();
  auto* sub = app.add_subcommand("select", "Print the full execution matrix of a task suite in its deterministic order");
  sub->add_option("suite", options->file, "The task suite (JSON)")->required();
  add_format_flags(*sub, options->format);
  sub->callback([&action, options] {
    action = [options] {
      const Json suite = load_artifact(ArtifactKind::task_suite, options->file);
      const std::vector<Json> executions = model::full_matrix(suite);
      if (options->format.text) {
        const std::string first = executions.empty() ? "none / none"
                                                     : str(executions[0]["taskId"]) + " / " + str(executions[0]["variantId"]);
        print_lines({"Selected executions: " + std::to_string(executions.size()), "First execution: " + first});
      } else {
        print_json(Json{{"ok", true}, {"executions", executions}});
      }
      return 0;
    };
  });
}

}  // namespace

void add_show_commands(CLI::App& app, Action& action) {
  for (const auto& command : kShowCommands) add_show(app, action, command);
  add_select(app, action);
}

}  // namespace strata::cli
