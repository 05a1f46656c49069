#include "strata/model/verifier/verified_record.hpp"

#include "strata/model/json/json_access.hpp"
#include "strata/model/json/utf.hpp"

namespace strata::model {

void add_verified_measurements(Json& measurements, const VerifiedRun& verification) {
  double executed = 0, passed = 0, timed_out = 0, output_limit = 0;
  for (const auto& check : verification.checks) {
    if (check.result == CheckResult::not_executed) continue;
    timed_out += check.result == CheckResult::timed_out ? 1 : 0;
    output_limit += check.result == CheckResult::output_limit ? 1 : 0;
    ++executed;
    const bool ok = check.result == CheckResult::passed;
    passed += ok ? 1 : 0;
    measurements["verifiedCheck." + check.id] = ok ? 1.0 : 0.0;
  }
  measurements["verifiedChecksTotal"] = static_cast<double>(verification.checks.size());
  measurements["verifiedChecksExecuted"] = executed;
  measurements["verifiedChecksPassed"] = passed;
  measurements["verifiedChecksTimedOut"] = timed_out;
  measurements["verifiedChecksOutputLimit"] = output_limit;
  measurements["verifierDurationMs"] = verification.duration_ms;
  const double total = static_cast<double>(verification.checks.size());
  if (const auto claimed = claimed_all_passed(measurements, total))
    measurements["verifiedClaimAgrees"] = *claimed == (passed == total) ? 1.0 : 0.0;
}

std::optional<bool> claimed_all_passed(const Json& measurements, double checks) {
  const auto passed = number_member(measurements, "acceptanceChecksPassed");
  const auto total = number_member(measurements, "acceptanceChecksTotal");
  if (!passed || !total) return std::nullopt;
  return *passed == *total && *total == checks;
}

void drop_verified_measurements(Json& measurements) {
  for (auto it = measurements.begin(); it != measurements.end();) {
    const std::string& name = it.key();
    if (name.rfind("verifiedCheck", 0) == 0 || name == "verifierDurationMs" || name == "verifiedClaimAgrees")
      it = measurements.erase(it);
    else ++it;
  }
}

Json verifier_output(const std::string& execution_key, const VerifiedRun& verification) {
  Json checks = Json::array();
  for (const auto& check : verification.checks)
    checks.push_back({{"id", check.id},
                      {"result", check_result_name(check.result)},
                      {"exitCode", check.exit_code ? Json(*check.exit_code) : Json(nullptr)},
                      {"durationMs", check.duration_ms},
                      {"stdoutBytes", check.stdout_bytes},
                      {"stderrBytes", check.stderr_bytes},
                      {"maxOutputBytes", check.max_output_bytes},
                      {"stdout", sanitize_utf8(check.stdout_text)},
                      {"stderr", sanitize_utf8(check.stderr_text)}});
  return Json{{"executionKey", execution_key}, {"checks", std::move(checks)}};
}

std::optional<VerifiedCounts> verified_counts(const Json& measurements) {
  const auto total = number_member(measurements, "verifiedChecksTotal");
  const auto executed = number_member(measurements, "verifiedChecksExecuted");
  const auto passed = number_member(measurements, "verifiedChecksPassed");
  if (!total || !executed || !passed) return std::nullopt;
  return VerifiedCounts{*total, *executed, *passed};
}

}  // namespace strata::model
