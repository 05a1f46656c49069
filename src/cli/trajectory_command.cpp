// strata trajectory DIR KEY [--judge] [--text]   one kept trajectory (docs/TRAJECTORIES.md)
// strata trajectory DIR --list [--ledger L] [--text]   what DIR keeps
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "command.hpp"
#include "strata/error.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/model/trajectory/trajectory_transcript.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/ledger_source.hpp"

namespace strata::cli {
namespace {

namespace fs = std::filesystem;
using model::Json;

constexpr const char* kExecutionSuffix = ".trajectory.json";
constexpr const char* kJudgeSuffix = ".judge.trajectory.json";

struct TrajectoryOptions {
  std::string directory, key, ledger;
  bool list = false, judge = false;
  OutputFormat format;
};

struct KeptFile {
  std::string key, kind, path;  // kind: "execution" or "judge"
};

// A count for a person: its number, or "?" where the trajectory has none.
std::string count_text(const Json& value) { return value.is_number() ? number_text(value) : "?"; }

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Every trajectory DIR keeps, by key and kind (a judge's beside its execution's), in key order.
// Anything else in DIR (a temporary file of a write cut short) is not one.
std::vector<KeptFile> kept_files(const std::string& directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error)) throw Error("not a directory", directory);
  std::vector<KeptFile> files;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (!entry.is_regular_file(error)) continue;
    const std::string name = entry.path().filename().string();
    if (ends_with(name, kJudgeSuffix))
      files.push_back({name.substr(0, name.size() - std::string(kJudgeSuffix).size()), "judge", entry.path().string()});
    else if (ends_with(name, kExecutionSuffix))
      files.push_back({name.substr(0, name.size() - std::string(kExecutionSuffix).size()), "execution", entry.path().string()});
  }
  if (error) throw Error("cannot list the directory: " + error.message(), directory);
  std::sort(files.begin(), files.end(), [](const KeptFile& a, const KeptFile& b) { return a.key != b.key ? a.key < b.key : a.kind > b.kind; });
  return files;
}

// The trajectory of `key` (the execution key, or a prefix of it naming one execution).
KeptFile find_kept(const TrajectoryOptions& options) {
  if (options.key.size() < 6) throw Error("the execution key needs at least 6 characters, not '" + options.key + "'");
  const std::string kind = options.judge ? "judge" : "execution";
  std::vector<KeptFile> matches;
  for (auto& file : kept_files(options.directory))
    if (file.kind == kind && file.key.compare(0, options.key.size(), options.key) == 0) matches.push_back(std::move(file));
  if (matches.empty())
    throw Error("no " + std::string(options.judge ? "judge's " : "") + "trajectory of execution " + options.key +
                    " (strata trajectory " + options.directory + " --list shows what is kept)",
                options.directory);
  if (matches.size() > 1)
    throw Error("the key " + options.key + " names " + std::to_string(matches.size()) + " executions: give more of it", options.directory);
  return matches.front();
}

// The recorded execution of each observation of the ledger, by execution key.
std::map<std::string, Json> ledger_executions(const std::string& path) {
  const std::unique_ptr<store::LedgerSource> ledger = open_ledger(path);
  std::map<std::string, Json> executions;
  for (std::size_t i = 0; i < ledger->size(); ++i) {
    const Json observation = ledger->observation(i);
    executions[model::execution_key(observation["task"])] = {{"runId", observation["runId"]},
                                                              {"taskId", observation["task"]["taskId"]},
                                                              {"variantId", observation["task"]["variantId"]},
                                                              {"modelId", observation["task"]["modelId"]},
                                                              {"replicate", observation["task"]["replicate"]},
                                                              {"status", observation["execution"]["status"]},
                                                              {"inputTokens", observation["execution"].value("inputTokens", Json())},
                                                              {"outputTokens", observation["execution"].value("outputTokens", Json())}};
  }
  return executions;
}

int list_trajectories(const TrajectoryOptions& options) {
  const std::vector<KeptFile> files = kept_files(options.directory);
  std::optional<std::map<std::string, Json>> executions;
  if (!options.ledger.empty()) executions = ledger_executions(options.ledger);
  Json listed = Json::array();
  std::vector<std::string> lines;
  for (const auto& file : files) {
    Json entry = {{"executionKey", file.key}, {"kind", file.kind}};
    try {
      const Json summary = model::trajectory_summary(store::read_json_file(file.path));
      for (const auto& [name, value] : summary.items()) entry[name] = value;
    } catch (const Error& error) {
      entry["unreadable"] = error.describe();
    }
    if (executions) {
      const auto found = executions->find(file.key);
      entry["observation"] = found == executions->end() ? Json() : found->second;
    }
    if (options.format.text) {
      std::string line = file.key.substr(0, 16) + "  " + file.kind + "  ";
      if (entry.contains("unreadable")) line += "unreadable: " + model::str(entry["unreadable"]);
      else line += (entry["agent"].is_string() ? model::str(entry["agent"]) : "?") + ", " + count_text(entry["steps"]) + " steps, " +
                   count_text(entry["promptTokens"]) + " prompt / " + count_text(entry["completionTokens"]) + " completion tokens";
      if (executions) {
        const Json& o = entry["observation"];
        line += o.is_null() ? "  (not in the ledger)"
                            : "  " + model::str(o["taskId"]) + " " + model::str(o["variantId"]) + " " + model::str(o["modelId"]) +
                                  " #" + count_text(o["replicate"]) + " " + model::str(o["status"]);
      }
      lines.push_back(line);
    }
    listed.push_back(std::move(entry));
  }
  if (options.format.text) {
    lines.push_back(std::to_string(files.size()) + " trajectories in " + options.directory);
    print_lines(lines);
  } else {
    print_json(Json{{"ok", true}, {"directory", options.directory}, {"trajectories", std::move(listed)}});
  }
  return 0;
}

int show_trajectory(const TrajectoryOptions& options) {
  const KeptFile file = find_kept(options);
  if (options.format.text) {
    print_lines(model::trajectory_transcript(store::read_json_file(file.path)));
  } else {
    std::cout << store::read_artifact_text(file.path);  // the ATIF document itself, as kept
    std::cout.flush();
  }
  return 0;
}

int trajectory(const TrajectoryOptions& options) {
  if (options.list) {
    if (!options.key.empty()) throw Error("--list takes no execution key");
    if (options.judge) throw Error("--list lists judges' trajectories too: no --judge");
    return list_trajectories(options);
  }
  if (!options.ledger.empty()) throw Error("--ledger goes with --list");
  if (options.key.empty()) throw Error("give an execution key, or --list");
  return show_trajectory(options);
}

}  // namespace

void add_trajectory_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<TrajectoryOptions>();
  auto* sub = app.add_subcommand("trajectory", "Show a trajectory kept by strata run or adjudicate --keep-trajectories, or list them");
  sub->add_option("directory", options->directory, "The --keep-trajectories directory")->required();
  sub->add_option("key", options->key, "The execution key, or a prefix of at least 6 characters naming one execution");
  sub->add_flag("--list", options->list, "List what the directory keeps: key, kind, agent, steps, tokens");
  sub->add_option("--ledger", options->ledger, "With --list: the ledger, to name each trajectory's task, arm, model and replicate");
  sub->add_flag("--judge", options->judge, "The judge's trajectory of the execution (strata adjudicate --keep-trajectories)");
  add_format_flags(*sub, options->format);
  sub->footer(
      "Without --text, one trajectory is printed as kept: the ATIF v1.7 document itself, for any tool that reads ATIF;\n"
      "--text prints it as a transcript (each step's source, time and tokens, message, reasoning, tool calls and\n"
      "their results). --list prints {ok, directory, trajectories: [...]} (or a line each with --text).\n"
      "Read-only. Exit status: 0, or 2 with one line on stderr (no such directory, no trajectory of the key, a key\n"
      "naming several).");
  sub->callback([&action, options] { action = [options] { return trajectory(*options); }; });
}

}  // namespace strata::cli
