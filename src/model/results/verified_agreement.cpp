#include "strata/model/results/verified_agreement.hpp"

#include "strata/model/json/json_access.hpp"
#include "strata/model/results/statistics.hpp"
#include "strata/model/verifier/verified_record.hpp"

namespace strata::model {
namespace {

// successes / n, and its Wilson interval: null, null when n is 0.
void add_rate(Json& out, const char* rate, const char* interval, std::size_t successes, std::size_t n) {
  if (n == 0) {
    out[rate] = nullptr;
    out[interval] = nullptr;
    return;
  }
  out[rate] = static_cast<double>(successes) / static_cast<double>(n);
  const Interval wilson = wilson_interval(successes, n);
  out[interval] = Json::array({wilson.low, wilson.high});
}

// The claim that every check passed, judged against the task's checks as the verifier counted
// them; without a verified record, against the agent's own total.
std::optional<bool> claim_of(const Json& measurements, const std::optional<VerifiedCounts>& verified) {
  const double checks = verified ? verified->total : number_member(measurements, "acceptanceChecksTotal").value_or(-1);
  return claimed_all_passed(measurements, checks);
}

bool all_passed(const VerifiedCounts& verified) { return verified.total > 0 && verified.passed == verified.total; }

}  // namespace

const char* claim_agreement_name(ClaimAgreement agreement) {
  switch (agreement) {
    case ClaimAgreement::confirmed: return "confirmed";
    case ClaimAgreement::claimed_but_failed: return "claimed-but-failed";
    case ClaimAgreement::not_claimed_but_passed: return "not-claimed-but-passed";
    case ClaimAgreement::neither: return "neither";
    case ClaimAgreement::no_claim: return "no-claim";
  }
  return "no-claim";
}

std::optional<ClaimAgreement> claim_agreement(const Json& measurements) {
  const std::optional<VerifiedCounts> verified = verified_counts(measurements);
  if (!verified) return std::nullopt;
  const std::optional<bool> claim = claim_of(measurements, verified);
  const bool passed = all_passed(*verified);
  if (!claim) return ClaimAgreement::no_claim;
  if (*claim) return passed ? ClaimAgreement::confirmed : ClaimAgreement::claimed_but_failed;
  return passed ? ClaimAgreement::not_claimed_but_passed : ClaimAgreement::neither;
}

void VerifiedAgreement::add(const Json& observation) {
  ++observations_;
  const Json measurements = observation.value("measurements", Json::object());
  const std::optional<VerifiedCounts> verified = verified_counts(measurements);
  if (const std::optional<bool> claim = claim_of(measurements, verified)) {
    ++claimed_;
    claimed_passed_ += *claim ? 1 : 0;
  }
  if (!verified) return;
  ++verified_;
  verified_passed_ += all_passed(*verified) ? 1 : 0;
  switch (*claim_agreement(measurements)) {
    case ClaimAgreement::confirmed: ++confirmed_; break;
    case ClaimAgreement::claimed_but_failed: ++claimed_but_failed_; break;
    case ClaimAgreement::not_claimed_but_passed: ++not_claimed_but_passed_; break;
    case ClaimAgreement::neither: ++not_claimed_not_passed_; break;
    case ClaimAgreement::no_claim: ++verified_without_claim_; break;
  }
}

Json VerifiedAgreement::to_json() const {
  Json out = {{"verified", static_cast<double>(verified_)},
              {"notVerified", static_cast<double>(observations_ - verified_)},
              {"verifiedPassed", static_cast<double>(verified_passed_)}};
  add_rate(out, "verifiedRate", "verifiedInterval", verified_passed_, verified_);
  out["claimed"] = static_cast<double>(claimed_);
  out["claimedPassed"] = static_cast<double>(claimed_passed_);
  add_rate(out, "claimedRate", "claimedInterval", claimed_passed_, claimed_);
  out["agreement"] = {{"confirmed", static_cast<double>(confirmed_)},
                      {"claimedButFailed", static_cast<double>(claimed_but_failed_)},
                      {"notClaimedButPassed", static_cast<double>(not_claimed_but_passed_)},
                      {"notClaimedNotPassed", static_cast<double>(not_claimed_not_passed_)},
                      {"verifiedWithoutClaim", static_cast<double>(verified_without_claim_)}};
  const std::size_t claims = confirmed_ + claimed_but_failed_;  // verified claims of success
  out["claimsVerified"] = static_cast<double>(claims);
  add_rate(out, "claimsTrueRate", "claimsTrueInterval", confirmed_, claims);
  return out;
}

}  // namespace strata::model
