#pragma once
// Per arm, what Strata's verifier found against what the agents claimed (issue 43,
// docs/METRICS.md "Verified outcomes"): the verified pass rate, the self-reported rate, the
// agreement table and the share of claims that were true, each rate with its 95% Wilson
// interval. An observation without a verified record (a run without --verify, an execution that
// never ran) is counted apart, never as a failure. Pure arithmetic over observations.
#include <cstddef>
#include <optional>

#include "strata/model/json/json.hpp"

namespace strata::model {

// One verified observation's claim against the verifier: it claimed every check passed and they
// did (confirmed), claimed and they did not, did not claim and they did, neither, or it made no
// claim at all (docs/VERIFIER.md "verifiedClaimAgrees").
enum class ClaimAgreement { confirmed, claimed_but_failed, not_claimed_but_passed, neither, no_claim };

// "confirmed", "claimed-but-failed", "not-claimed-but-passed", "neither", "no-claim".
const char* claim_agreement_name(ClaimAgreement agreement);

// The agreement of an observation's measurements; nullopt when it has no verified record.
std::optional<ClaimAgreement> claim_agreement(const Json& measurements);

class VerifiedAgreement {
 public:
  void add(const Json& observation);

  std::size_t verified() const { return verified_; }
  bool any_verified() const { return verified_ > 0; }

  // {"verified", "notVerified", "verifiedPassed", "verifiedRate", "verifiedInterval",
  //  "claimed", "claimedPassed", "claimedRate", "claimedInterval",
  //  "agreement": {"confirmed", "claimedButFailed", "notClaimedButPassed", "notClaimedNotPassed",
  //                "verifiedWithoutClaim"},
  //  "claimsTrue", "claimsTrueRate", "claimsTrueInterval"}; rates and intervals null when their
  // denominator is 0.
  Json to_json() const;

 private:
  std::size_t observations_ = 0, verified_ = 0, verified_passed_ = 0;
  std::size_t claimed_ = 0, claimed_passed_ = 0;  // executions with a claim (verified or not), of them claiming all
  std::size_t confirmed_ = 0, claimed_but_failed_ = 0, not_claimed_but_passed_ = 0, not_claimed_not_passed_ = 0;
  std::size_t verified_without_claim_ = 0;
};

}  // namespace strata::model
