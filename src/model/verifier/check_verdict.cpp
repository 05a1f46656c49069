#include "strata/model/verifier/check_verdict.hpp"

#include "strata/model/json/json.hpp"

namespace strata::model {
namespace {

constexpr int kShellNotFound = 127;
constexpr int kShellNotExecutable = 126;

// The last line of `text` holding something other than white space.
std::string_view last_non_empty_line(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t start = text.rfind('\n', end - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    const std::string_view line = text.substr(start, end - start);
    if (line.find_first_not_of(" \t\r\n") != std::string_view::npos) return line;
    if (start == 0) break;
    end = start - 1;
  }
  return {};
}

bool json_member_true(std::string_view stdout_text, const std::string& member) {
  const Json line = Json::parse(last_non_empty_line(stdout_text), nullptr, false);
  if (!line.is_object()) return false;
  const auto found = line.find(member);
  return found != line.end() && found->is_boolean() && found->get<bool>();
}

}  // namespace

const char* check_result_name(CheckResult result) {
  switch (result) {
    case CheckResult::passed: return "passed";
    case CheckResult::failed: return "failed";
    case CheckResult::not_executed: return "not-executed";
    case CheckResult::timed_out: return "timed-out";
    case CheckResult::output_limit: return "output-limit";
  }
  return "failed";
}

CheckResult judge_check(const CheckEnd& end, std::string_view stdout_text, const CheckRule& rule) {
  switch (end.kind) {
    case CheckEnd::not_started: return CheckResult::not_executed;
    case CheckEnd::timed_out: return CheckResult::timed_out;
    case CheckEnd::output_limit: return CheckResult::output_limit;
    case CheckEnd::signaled: return CheckResult::failed;
    case CheckEnd::exited: break;
  }
  if (end.exit_code == kShellNotFound || end.exit_code == kShellNotExecutable) return CheckResult::not_executed;
  if (end.exit_code != 0) return CheckResult::failed;
  if (rule.stdout_contains && stdout_text.find(*rule.stdout_contains) == std::string_view::npos) return CheckResult::failed;
  if (rule.json_result && !json_member_true(stdout_text, *rule.json_result)) return CheckResult::failed;
  return CheckResult::passed;
}

}  // namespace strata::model
