#pragma once
// Independent adjudication (spec §4.2-4.4): the anonymised request a judge sees, the
// adjudicated observation, and which observations a batch selects.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/model/json/json.hpp"

namespace strata::model {

// Appendix B, the V-assist text (the V-final request splits mechanical rubric items).
extern const std::string_view kAdjudicatorInstruction;

// The request for one observation: no run id, model, scenario, variant or repository.
Json adjudicator_request(const Json& observation, const Json& task);

// What the judge process produced.
struct JudgeRecord {
  std::string status;  // completed | timed-out | budget-exceeded | unavailable | invalid-output
  std::string stdout_text;
  double duration_ms = 0;
};

// The observation re-sealed with the judge's adjudication and measurements (§4.3).
Json adjudicated_observation(Json observation, const Json& adjudicator, const std::string& configuration_hash,
                             const JudgeRecord& judge);

struct BatchSelection {
  std::optional<std::string> run_id;
  std::optional<double> offset;
  std::optional<double> limit;
};

// Indices of the observations a batch adjudicates (§4.4 walk), given each observation's runId.
std::vector<std::size_t> select_for_adjudication(const std::vector<std::string>& run_ids, const BatchSelection& selection);

// JavaScript Number(text): NaN when it is not a number ("" is 0, "1e1" is 10, "0x10" is 16).
double javascript_number(std::string_view text);

}  // namespace strata::model
