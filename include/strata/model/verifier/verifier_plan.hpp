#pragma once
// What `strata run --verify` runs, read from the suite, the repository config and the optional
// sealed strata-verifier-config (docs/VERIFIER.md): each task's checks with their bounds and
// rules, each repository's set-up and hidden checks. Pure: paths are joined, never opened.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"
#include "strata/model/verifier/check_verdict.hpp"

namespace strata::model {

constexpr long long kDefaultCheckTimeoutMs = 60000;
constexpr std::size_t kDefaultCheckOutputBytes = 65536;
constexpr long long kDefaultSetupTimeoutMs = 600000;
// Processes alive at once, counting the launcher and the sandbox (about 4 of them).
constexpr long kDefaultCheckProcesses = 256;
constexpr long kDefaultSetupProcesses = 1024;

struct VerifierCheck {
  std::string id;
  std::string command;  // run as /bin/sh -c command
  long long timeout_ms = kDefaultCheckTimeoutMs;
  std::size_t max_output_bytes = kDefaultCheckOutputBytes;
  long max_processes = kDefaultCheckProcesses;
  bool network = false;
  CheckRule rule;
};

struct RepositoryPreparation {
  std::optional<std::string> setup;  // the set-up command, run once per tree into a prepared layer
  long long setup_timeout_ms = kDefaultSetupTimeoutMs;
  bool setup_network = false;
  std::optional<std::string> hidden_directory;  // absolute (resolved against the config's directory)
  std::string mount_at;                         // relative to the repository's root
};

struct VerifierPlan {
  std::map<std::string, std::vector<VerifierCheck>> checks_by_task;      // task id -> checks, suite order
  std::map<std::string, RepositoryPreparation> repositories;             // only those the config names
  std::optional<std::string> config_hash;                               // the sealed config's, or none: defaults
  const RepositoryPreparation* preparation(const std::string& repository_id) const;
};

// `config` is the sealed verifier config or nullptr (the defaults); `config_directory` the
// directory holding it (hidden check directories are relative to it). Throws strata::Error
// naming the entry when the config names a task, check or repository the study has not, or a
// mountAt that leaves the repository.
VerifierPlan verifier_plan(const Json* config, const std::string& config_directory, const Json& suite,
                           const Json& repository_config);

}  // namespace strata::model
