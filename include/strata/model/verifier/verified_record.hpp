#pragma once
// What the verifier phase found for one execution (docs/VERIFIER.md), and the two places it goes:
// numbers into the observation's measurements (no command output ever enters the ledger), the
// bounded output of each check into the verifier output file outside the ledger.
#include <optional>
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"
#include "strata/model/verifier/check_verdict.hpp"

namespace strata::model {

struct CheckOutcome {
  std::string id;
  CheckResult result = CheckResult::not_executed;
  std::optional<int> exit_code;
  double duration_ms = 0;
  double stdout_bytes = 0, stderr_bytes = 0;  // every byte read / kept
  double max_output_bytes = 0;                // the bound each of stdout and stderr was kept to
  std::string stdout_text, stderr_text;       // kept, bounded, raw bytes
};

struct VerifiedRun {
  std::vector<CheckOutcome> checks;
  double duration_ms = 0;  // the phase, wall time
};

// verifiedChecksTotal, verifiedChecksExecuted, verifiedChecksPassed, verifiedChecksTimedOut,
// verifiedChecksOutputLimit, verifiedCheck.<id> (1 or 0, absent when not executed),
// verifierDurationMs, and verifiedClaimAgrees when `measurements`
// hold the agent's claim (acceptanceChecksPassed and acceptanceChecksTotal): 1 when it claimed
// every check passed exactly when every check did, else 0.
void add_verified_measurements(Json& measurements, const VerifiedRun& verification);

// The agent's claim that every check passed: its acceptanceChecksPassed equals its
// acceptanceChecksTotal, which equals the task's number of checks. None without both numbers.
std::optional<bool> claimed_all_passed(const Json& measurements, double checks);

// Removes every measurement of those names (a provider's response may not claim them), and
// verifiedClaimAgrees.
void drop_verified_measurements(Json& measurements);

// The verifier output file: {"executionKey", "checks": [{"id", "result", "exitCode", "durationMs",
// "stdoutBytes", "stderrBytes", "maxOutputBytes", "stdout", "stderr"}]}, outputs as well-formed UTF-8.
Json verifier_output(const std::string& execution_key, const VerifiedRun& verification);

// The verified counts of an observation's measurements, when it has them.
struct VerifiedCounts {
  double total = 0, executed = 0, passed = 0;
};
std::optional<VerifiedCounts> verified_counts(const Json& measurements);

}  // namespace strata::model
