// The adjudicator's stdout as `strata adjudicate` records it: engine::judge_record (UTF-8
// decoding, the one-JSON-text rule) and model::adjudicated_observation (adjudicator
// response shape, judge measurements and cost, re-seal) for a sealed observation of the
// example study, with the example provider config's adjudicator.
//
// Invariants:
//  - adjudicated_observation never throws: a judge's stdout must become a recorded
//    judgement (adjudication_run.cpp does not catch here; a throw ends the whole batch);
//  - the result is a sealed observation whose checkpoint line reads back (conform to the
//    sealed shape, hash verifies, parse_artifact passes) unchanged;
//  - adjudication.status is "automated" exactly when the judge completed and its stdout
//    conforms to the adjudicator response shape, else "pending" with a reason; an automated
//    judgement carries the configuration hash and the response's outcome;
//  - nothing but measurements and adjudication differs from the judged observation.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "strata/engine/attempt_outcome.hpp"
#include "strata/error.hpp"
#include "strata/model/adjudication/adjudication.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/payload_shapes.hpp"
#include "strata/model/json/shape.hpp"
#include "strata/model/json/utf.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_adjudicator_response {

using namespace strata;
using model::Json;

int test_one_input(const std::uint8_t* data, std::size_t size) {
  const fuzz::ExampleStudy& study = fuzz::example_study();
  const Json& judged = fuzz::example_observation();
  const Json& adjudicator = study.providers["adjudicator"];
  const std::string configuration = study.providers["contentHash"].get<std::string>();

  exec::ProcessResult result;
  result.end = exec::ProcessEnd::exited;
  result.exit_code = 0;
  result.stdout_data.assign(reinterpret_cast<const char*>(data), size);
  result.duration = std::chrono::milliseconds(40);
  const model::JudgeRecord judge = engine::judge_record(result);
  FUZZ_CHECK(model::is_valid_utf8(judge.stdout_text), "judge_record kept ill-formed UTF-8");
  FUZZ_CHECK(judge.status == "completed" || judge.status == "invalid-output", "exited-0 judge is " + judge.status);

  Json observation;
  try {
    observation = model::adjudicated_observation(judged, adjudicator, configuration, judge);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("adjudicated_observation threw for a judge's stdout: ") + e.what() +
                          "\n  stdout: " + fuzz::excerpt(judge.stdout_text));
  }

  // The checkpoint line's observation, as read_checkpoint reads it back.
  const std::string line = model::compact_json(observation);
  Json reread;
  try {
    reread = model::conform(model::parse_json(line), *model::artifact_spec(model::ArtifactKind::observation).sealed);
    model::parse_artifact(model::ArtifactKind::observation, reread);
  } catch (const Error& e) {
    FUZZ_CHECK(false, "adjudicated observation does not read back: " + e.describe());
  }
  FUZZ_CHECK(model::content_hash(reread) == reread["contentHash"].get<std::string>(), "adjudicated observation's hash does not verify");
  FUZZ_CHECK(model::compact_json(reread) == line, "checkpoint round trip changed the adjudicated observation");

  const auto response = model::conformed_text(judge.stdout_text, model::adjudicator_response_shape());
  const Json& adjudication = observation["adjudication"];
  const bool automated = judge.status == "completed" && response.has_value();
  FUZZ_CHECK(adjudication["status"] == (automated ? "automated" : "pending"),
             "adjudication status " + adjudication["status"].dump() + " for judge status " + judge.status);
  FUZZ_CHECK(adjudication.contains("reason"), "adjudication without a reason");
  if (automated) {
    FUZZ_CHECK(adjudication["configurationHash"] == configuration, "automated adjudication without the configuration hash");
    FUZZ_CHECK(adjudication["outcome"] == (*response)["outcome"], "automated adjudication changed the judge's outcome");
    FUZZ_CHECK(adjudication["actor"] == adjudicator["id"], "automated adjudication names another actor");
  }

  for (const auto& [key, value] : judged.items()) {
    if (key == "measurements" || key == "adjudication" || key == "contentHash") continue;
    FUZZ_CHECK(observation.contains(key) && observation[key] == value, "adjudication changed the observation's " + key);
  }
  for (const auto& [key, value] : observation.items())
    FUZZ_CHECK(judged.contains(key) || key == "measurements", "adjudication added the member " + key);
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("adjudicator_response", &test_one_input);

}  // namespace fuzz_adjudicator_response
