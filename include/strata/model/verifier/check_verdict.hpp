#pragma once
// Whether one acceptance check, run by Strata's verifier (docs/VERIFIER.md), passed: the rule
// that reads how its process ended and what it printed. Pure: the verifier phase (app/verifier)
// runs the process, this decides.
#include <optional>
#include <string>
#include <string_view>

namespace strata::model {

enum class CheckResult { passed, failed, not_executed, timed_out, output_limit };

// "passed", "failed", "not-executed", "timed-out", "output-limit": the verifier output's words.
const char* check_result_name(CheckResult result);

// The configuration's richer rule for a check that exited 0 (both optional).
struct CheckRule {
  std::optional<std::string> stdout_contains;  // stdout holds this text
  std::optional<std::string> json_result;      // the last non-empty stdout line is a JSON object whose member of this name is true
};

// How the check's shell ended.
struct CheckEnd {
  enum Kind { exited, signaled, timed_out, output_limit, not_started } kind = not_started;
  int exit_code = -1;  // with exited
};

// Exit 0 within the bounds (and the rule, when given) passes; a timeout or too much output
// fails as its own word; the shell's 127 or 126 (program not found, not executable) and a shell
// that could not be started are "not executed"; anything else fails.
CheckResult judge_check(const CheckEnd& end, std::string_view stdout_text, const CheckRule& rule);

}  // namespace strata::model
