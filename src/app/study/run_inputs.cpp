#include "strata/app/study/run_inputs.hpp"
#include "strata/model/json/json_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "strata/error.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_access.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/file_descriptor.hpp"

namespace strata::app {
namespace {

using model::Json;
using model::str;

// {"path", "size", "modifiedNs", "sha256"} of an executable, read a piece at a time.
Json program_fingerprint(const std::string& path) {
  const store::FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat info {};
  if (file.get() < 0 || ::fstat(file.get(), &info) != 0)
    throw Error(std::string("cannot read the provider program: ") + std::strerror(errno), path);
  model::Sha256 hash;
  store::read_file_pieces(file.get(), path, [&hash](std::string_view piece) {
    hash.update(piece);
    return true;
  });
  // Nanoseconds since the epoch pass 2^53: a decimal string keeps every digit.
  const std::string modified_ns = std::to_string(static_cast<long long>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec);
  return {{"path", path}, {"size", static_cast<double>(info.st_size)}, {"modifiedNs", modified_ns}, {"sha256", hash.hex()}};
}

const Json* program_named(const Json& programs, const Json& path) {
  for (const auto& program : programs)
    if (program["path"] == path) return &program;
  return nullptr;
}

}  // namespace

Json current_run_inputs(const StudyInputs& inputs, const RunPreflight& preflight) {
  std::set<std::string> paths;  // each program once, in path order
  for (const auto& e : preflight.executions)
    if (!e.assisted_unavailable && !e.command_path.empty()) paths.insert(e.command_path);
  Json programs = Json::array();
  for (const auto& path : paths) programs.push_back(program_fingerprint(path));
  Json record = {{"planHash", inputs.plan["contentHash"]},
                 {"taskSuiteHash", inputs.suite["contentHash"]},
                 {"providerConfigHash", inputs.providers["contentHash"]},
                 {"repositoryConfigHash", inputs.repositories["contentHash"]},
                 {"programs", std::move(programs)}};
  if (preflight.shard) record["shard"] = preflight.shard->text();  // absent: the whole selection
  return record;
}

std::vector<std::string> changed_inputs(const std::string& run_id, const Json& recorded, const Json& now) {
  std::vector<std::string> changes;
  for (const auto& [member, what] : {std::pair{"planHash", "plan"}, std::pair{"taskSuiteHash", "task suite"},
                                     std::pair{"providerConfigHash", "provider config"},
                                     std::pair{"repositoryConfigHash", "repository config"}}) {
    const std::string before = recorded.contains(member) ? str(recorded[member]) : "(not recorded)";
    if (before != str(now[member]))
      changes.push_back(std::string(what) + " changed since run " + run_id + " started: " + before + " -> " + str(now[member]));
  }
  // A ledger that holds one shard must not take another's executions by mistake.
  const std::string shard_before = recorded.contains("shard") ? str(recorded["shard"]) : "none";
  const std::string shard_now = now.contains("shard") ? str(now["shard"]) : "none";
  if (shard_before != shard_now)
    changes.push_back("shard changed since run " + run_id + " started: " + shard_before + " -> " + shard_now);
  // The workspace a run's providers get (issue 26): how, and the repository trees pinned.
  const Json none = Json::object();
  const Json& was = recorded.contains("workspace") ? recorded["workspace"] : none;
  const Json& is = now.contains("workspace") ? now["workspace"] : none;
  const auto setting = [](const Json& w) {
    return std::string(w.value("mode", "none")) + (w.value("confine", false) ? " --confine" : "") +
           (w.value("network", "default") == "none" ? " --confine-network none" : "");
  };
  if (setting(was) != setting(is))
    changes.push_back("workspace changed since run " + run_id + " started: " + setting(was) + " -> " + setting(is));
  if (was.contains("trees") && is.contains("trees")) {
    for (const auto& [id, tree] : is["trees"].items())
      if (was["trees"].contains(id) && was["trees"][id] != tree)
        changes.push_back("repository " + id + " changed since run " + run_id + " started: " + str(was["trees"][id]) +
                          " -> " + str(tree));
  }
  // The verifier (--verify, docs/VERIFIER.md): its configuration, prepared layers and hidden checks.
  const Json& verifier_was = recorded.contains("verifier") ? recorded["verifier"] : none;
  const Json& verifier_is = now.contains("verifier") ? now["verifier"] : none;
  if (verifier_was.empty() != verifier_is.empty()) {
    changes.push_back("verifier changed since run " + run_id + " started: " +
                      (verifier_was.empty() ? std::string("none -> --verify") : std::string("--verify -> none")));
  } else if (!verifier_is.empty()) {
    if (verifier_was.value("config", "") != verifier_is.value("config", ""))
      changes.push_back("verifier config changed since run " + run_id + " started: " + verifier_was.value("config", "") +
                        " -> " + verifier_is.value("config", ""));
    for (const char* member : {"preparedLayers", "hiddenChecks"}) {
      const Json before = verifier_was.value(member, Json::object()), after = verifier_is.value(member, Json::object());
      if (before != after)
        changes.push_back(std::string("verifier ") + (std::string(member) == "preparedLayers" ? "prepared layers" : "hidden checks") +
                          " changed since run " + run_id + " started: " + model::compact_json(before) + " -> " +
                          model::compact_json(after));
    }
  }
  const Json no_programs = Json::array();
  const Json& before = recorded.contains("programs") ? recorded["programs"] : no_programs;
  for (const auto& program : now["programs"]) {
    const Json* old = program_named(before, program["path"]);
    if (old == nullptr)
      changes.push_back("provider program added since run " + run_id + " started: " + str(program["path"]));
    else if ((*old)["sha256"] != program["sha256"])
      changes.push_back("provider program changed: " + str(program["path"]) + " (sha256 " + str((*old)["sha256"]) + " -> " +
                        str(program["sha256"]) + ")");
  }
  return changes;
}

}  // namespace strata::app
