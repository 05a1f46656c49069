// A provider process's stdout as `strata run` turns it into an observation: the bytes go
// through engine::attempt_record (UTF-8 decoding, the one-JSON-text rule, the output-limit
// cut) and model::build_judged_observation (provider response shape, token budget, cost,
// deterministic rubric, seal), for the first execution of the example study.
//
// Each input is run twice: as the stdout of a process that exited 0, and as the stdout of
// one stopped at the output limit (limit = half the input, at least 1 byte).
//
// Invariants:
//  - build_judged_observation never throws: a provider's stdout must become a recorded
//    observation, whatever it is (study_run.cpp does not catch here; a throw ends the run),
//    except for the one case the spec makes invalid: token counts without tokenMethod;
//  - the observation is a sealed observation that read_journal would accept: its compact
//    text conforms to the sealed observation shape and its hash verifies;
//  - the decoded stdout is well-formed UTF-8, decoding is idempotent and keeps valid input;
//    the output-limit cut keeps at most `limit` UTF-16 units;
//  - execution.responseBytes / stdoutHash describe exactly the kept stdout text;
//  - execution.status: "completed" only for one JSON text that conforms to the provider
//    response shape; an exited-0 process is completed, invalid-output or budget-exceeded.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "strata/engine/attempt_outcome.hpp"
#include "strata/error.hpp"
#include "strata/model/study/artifact.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/json/json_writer.hpp"
#include "strata/model/study/observation_builder.hpp"
#include "strata/model/study/payload_shapes.hpp"
#include "strata/model/json/shape.hpp"
#include "strata/model/json/utf.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_provider_response {

using namespace strata;
using model::Json;

namespace {

void check_observation(const exec::ProcessResult& result, std::size_t limit) {
  const fuzz::ExampleStudy& study = fuzz::example_study();
  const fuzz::ExampleExecution& e = fuzz::example_execution();
  const model::AttemptRecord record = engine::attempt_record(result, limit);

  FUZZ_CHECK(model::is_valid_utf8(record.stdout_text), "attempt_record kept ill-formed UTF-8");
  if (result.end == exec::ProcessEnd::output_limit) {
    FUZZ_CHECK(record.status == "budget-exceeded", "output-limit attempt is " + record.status);
    FUZZ_CHECK(model::utf16_length(record.stdout_text) <= limit, "output-limit cut kept more than the limit");
  } else {
    FUZZ_CHECK(record.stdout_text == model::sanitize_utf8(result.stdout_data), "exited attempt changed the decoded stdout");
    FUZZ_CHECK(record.status == "completed" || record.status == "invalid-output", "exited-0 attempt is " + record.status);
  }

  model::ObservationInputs in{&study.plan, e.provider, e.recorded, e.request, std::nullopt, "2026-01-02T03:04:05.678Z"};
  Json observation;
  try {
    observation = model::build_judged_observation(in, record, *e.task);
  } catch (const Error& ex) {
    // Spec §1 (observation shape, execution.inputTokens/outputTokens): a response with token
    // counts but no tokenMethod makes the observation invalid, and the upstream runner fails
    // the same way (tests/unit/observation_test.cpp pins the message). See fuzz/README.md.
    if (std::string_view(ex.what()) == "Token counts require a provider or estimate method.") return;
    FUZZ_CHECK(false, "build_judged_observation threw for a provider's stdout: " + ex.describe() +
                          "\n  stdout: " + fuzz::excerpt(record.stdout_text));
  } catch (const std::exception& ex) {
    FUZZ_CHECK(false, std::string("build_judged_observation threw for a provider's stdout: ") + ex.what() +
                          "\n  stdout: " + fuzz::excerpt(record.stdout_text));
  }

  // What read_journal does with the journal line of this observation.
  const std::string line = model::compact_json(observation);
  Json reread;
  try {
    reread = model::conform(model::parse_json(line), *model::artifact_spec(model::ArtifactKind::observation).sealed);
  } catch (const Error& ex) {
    FUZZ_CHECK(false, "recorded observation does not conform to the sealed observation shape: " + ex.describe());
  }
  FUZZ_CHECK(model::content_hash(reread) == reread["contentHash"].get<std::string>(),
             "recorded observation's hash does not verify after a journal round trip");
  FUZZ_CHECK(model::compact_json(reread) == line, "journal round trip changed the observation");
  try {
    model::parse_artifact(model::ArtifactKind::observation, reread);
  } catch (const Error& ex) {
    FUZZ_CHECK(false, "recorded observation fails parse_artifact: " + ex.describe());
  }

  const Json& execution = observation["execution"];
  FUZZ_CHECK(execution["responseBytes"] == static_cast<double>(record.stdout_text.size()), "responseBytes is not the kept size");
  FUZZ_CHECK(execution["stdoutHash"] == model::sha256_hex(record.stdout_text), "stdoutHash is not the kept text's hash");
  const std::string status = execution["status"].get<std::string>();
  if (status == "completed") {
    FUZZ_CHECK(record.status == "completed", "observation completed an attempt that was " + record.status);
    FUZZ_CHECK(model::conformed_text(record.stdout_text, model::provider_response_shape()).has_value(),
               "completed observation for stdout outside the provider response shape");
  }
  if (result.end == exec::ProcessEnd::exited)
    FUZZ_CHECK(status == "completed" || status == "invalid-output" || status == "budget-exceeded",
               "exited-0 observation has status " + status);
}

}  // namespace

int test_one_input(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(fuzz::as_text(data, size));
  const std::string decoded = model::sanitize_utf8(bytes);
  FUZZ_CHECK(model::is_valid_utf8(decoded), "sanitize_utf8 returned ill-formed UTF-8");
  FUZZ_CHECK(model::sanitize_utf8(decoded) == decoded, "sanitize_utf8 is not idempotent");
  if (model::is_valid_utf8(bytes)) FUZZ_CHECK(decoded == bytes, "sanitize_utf8 changed well-formed UTF-8");

  exec::ProcessResult exited;
  exited.end = exec::ProcessEnd::exited;
  exited.exit_code = 0;
  exited.stdout_data = bytes;
  exited.duration = std::chrono::milliseconds(25);
  check_observation(exited, 65536);

  exec::ProcessResult cut = exited;
  cut.end = exec::ProcessEnd::output_limit;
  cut.exit_code = -1;
  check_observation(cut, std::max<std::size_t>(1, size / 2));
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("provider_response", &test_one_input);

}  // namespace fuzz_provider_response
