// An agent CLI's stdout as `strata provider codex|claude|gemini|opencode` and `strata provider
// judge` read it: byte 0 picks the reader (modulo 4: model::CodexStreamReader,
// ClaudeStreamReader, GeminiStreamReader, OpenCodeStreamReader), the
// rest is the stream, cut into lines at '\n' as app/agents/agent_run's line feed does; a stream that
// ends without a failure hands its final message to model::provider_fields_from_answer and
// model::adjudicator_fields_from_answer. The whole input is also handed to both as an answer
// (the model writes the answer, so it is outside input of its own).
//
// Invariants:
//  - the readers never throw, whatever the stream;
//  - the summary adds up: every line fed is counted, stream_bytes is the bytes fed plus one
//    newline per line, tool_calls <= tool_events, the tool byte counts never exceed the stream;
//  - a failure is one of the known sentences, ASCII, never a quote of the stream (the only
//    stream-derived word is a Claude result subtype, and only when it is [a-z_]);
//  - no failure means a final message;
//  - the reader's ATIF normaliser (model/trajectory, issue 45) fed the same lines never throws,
//    and its trajectory keeps ATIF's rules (steps numbered from 1, a known source, each result on
//    the step that made its call, total_steps), its bounds (no message or reasoning longer than
//    the field bound, kept bytes within the total) and its redaction (a secret never in it), and
//    serialises (valid UTF-8: a cut never splits a sequence);
//  - the answer mappers throw only strata::Error, and what they return keeps the schema: the
//    three enums from their values, counts as non-negative integers, evidence ids non-empty,
//    at most 256 bytes, without NUL/CR/LF; measurements >= 0; a judgement with an outcome of the
//    enum, a confidence in [0, 1] and at most 16 reason codes.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "strata/error.hpp"
#include "strata/model/agents/adjudicator_answer.hpp"
#include "strata/model/agents/agent_answer.hpp"
#include "strata/model/agents/claude_stream.hpp"
#include "strata/model/agents/codex_stream.hpp"
#include "strata/model/agents/gemini_stream.hpp"
#include "strata/model/agents/opencode_stream.hpp"
#include "strata/model/trajectory/claude_trajectory.hpp"
#include "strata/model/trajectory/codex_trajectory.hpp"
#include "strata/model/trajectory/gemini_trajectory.hpp"
#include "strata/model/trajectory/opencode_trajectory.hpp"

// Every harness is compiled into one binary (fuzz_main.cpp): its own namespace, and its entry
// point registered under its name.
namespace fuzz_agent_stream {

using namespace strata;
using model::Json;

namespace {

bool is_count(const Json& value) {
  return value.is_number() && value.get<double>() >= 0 && std::floor(value.get<double>()) == value.get<double>();
}

void check_failure_text(const std::string& failure) {
  static const std::regex known(
      "line [0-9]+ of the event stream is (not JSON|not an event|not a message|longer than Strata reads)"
      "|the turn failed \\(turn\\.failed\\)"
      "|the agent's run ended in an error \\(result [a-z_]+(, is_error)?\\)"
      "|the agent reported an error and the run did not complete"
      "|the event stream ended before (turn\\.completed|the result event|a step that finished with reason stop)"
      "|the run completed without a final message");
  FUZZ_CHECK(std::regex_match(failure, known), "unknown failure text: " + fuzz::excerpt(failure));
}

void check_provider_answer(std::string_view answer) {
  Json fields;
  try {
    fields = model::provider_fields_from_answer(answer);
  } catch (const Error&) {
    return;
  }
  for (const char* member : {"taskOutcome", "evidenceQuality", "safetyOutcome"})
    FUZZ_CHECK(fields[member].is_string(), std::string(member) + " is not a string");
  for (const char* member : {"clarificationRequests", "reworkCount"}) FUZZ_CHECK(is_count(fields[member]), std::string(member) + " is not a count");
  for (const Json& id : fields["evidenceIds"]) {
    const std::string& text = id.get_ref<const std::string&>();
    FUZZ_CHECK(!text.empty() && text.size() <= 256 && text.find_first_of(std::string("\0\r\n", 3)) == std::string::npos,
               "evidence id not normalised: " + fuzz::excerpt(text));
  }
  for (const auto& [name, value] : fields["measurements"].items())
    FUZZ_CHECK(value.is_number() && value.get<double>() >= 0, "measurement " + fuzz::excerpt(name) + " below 0");
}

void check_judgement(std::string_view answer) {
  Json judgement;
  try {
    judgement = model::adjudicator_fields_from_answer(answer);
  } catch (const Error&) {
    return;
  }
  const Json& outcomes = model::adjudicator_answer_schema()["properties"]["outcome"]["enum"];
  FUZZ_CHECK(std::find(outcomes.begin(), outcomes.end(), judgement["outcome"]) != outcomes.end(), "outcome outside the enum");
  FUZZ_CHECK(judgement["confidence"].get<double>() >= 0 && judgement["confidence"].get<double>() <= 1, "confidence outside [0, 1]");
  FUZZ_CHECK(judgement["reasonCodes"].size() <= 16, "more than 16 reason codes");
}

// Small bounds, so the fuzzer reaches the cuts; a secret it can write (the dictionary has it).
const model::TrajectoryBounds kFuzzBounds{64, 1024};
const char* const kFuzzSecret = "FUZZ-SECRET-VALUE";

// One agent's normaliser behind one interface.
struct Normaliser {
  std::function<void(std::string_view, double)> add_line;
  std::function<Json(const model::AgentTurn&)> finish;
};

template <class T>
Normaliser normaliser_of(std::shared_ptr<T> n) {
  return {[n](std::string_view line, double at) { n->add_line(line, at); }, [n](const model::AgentTurn& turn) { return n->finish(turn); }};
}

void check_trajectory(const Json& t) {
  std::string text;
  try {
    text = t.dump();
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("the trajectory does not serialise: ") + e.what());
  }
  FUZZ_CHECK(text.find(kFuzzSecret) == std::string::npos, "the secret is in the trajectory");
  FUZZ_CHECK(t["schema_version"] == model::kAtifVersion, "schema_version");
  std::size_t id = 0;
  for (const Json& step : t["steps"]) {
    FUZZ_CHECK(step["step_id"] == ++id, "steps not numbered from 1");
    FUZZ_CHECK(step["source"] == "user" || step["source"] == "agent" || step["source"] == "system", "unknown source");
    FUZZ_CHECK(step["message"].get_ref<const std::string&>().size() <= kFuzzBounds.field_bytes, "a message past its bound");
    if (step.contains("reasoning_content"))
      FUZZ_CHECK(step["reasoning_content"].get_ref<const std::string&>().size() <= kFuzzBounds.field_bytes, "reasoning past its bound");
    std::set<std::string> calls;
    for (const Json& call : step.value("tool_calls", Json::array())) {
      calls.insert(call["tool_call_id"].get<std::string>());
      FUZZ_CHECK(call["arguments"].is_object(), "arguments not an object");
    }
    if (step.contains("observation"))
      for (const Json& result : step["observation"]["results"])
        FUZZ_CHECK(calls.count(result["source_call_id"].get<std::string>()) == 1, "a result on a step that did not make its call");
  }
  FUZZ_CHECK(t["final_metrics"]["total_steps"] == id, "total_steps");
  FUZZ_CHECK(t["extra"]["strata"]["kept_bytes"].get<std::size_t>() <= kFuzzBounds.total_bytes, "kept bytes past the total bound");
}

}  // namespace

int test_one_input(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view stream = fuzz::as_text(data + 1, size - 1);
  std::unique_ptr<model::AgentStreamReader> reader;
  Normaliser trajectory;
  const std::vector<std::string> secrets{kFuzzSecret};
  switch (data[0] % 4) {
    case 0:
      reader = std::make_unique<model::CodexStreamReader>();
      trajectory = normaliser_of(std::make_shared<model::CodexTrajectory>("prompt", kFuzzBounds, secrets));
      break;
    case 1:
      reader = std::make_unique<model::ClaudeStreamReader>();
      trajectory = normaliser_of(std::make_shared<model::ClaudeTrajectory>("prompt", kFuzzBounds, secrets));
      break;
    case 2:
      reader = std::make_unique<model::GeminiStreamReader>();
      trajectory = normaliser_of(std::make_shared<model::GeminiTrajectory>(kFuzzBounds, secrets));
      break;
    default:
      reader = std::make_unique<model::OpenCodeStreamReader>();
      trajectory = normaliser_of(std::make_shared<model::OpenCodeTrajectory>("prompt", kFuzzBounds, secrets));
      break;
  }

  std::size_t lines = 0;
  try {
    std::size_t begin = 0;
    while (begin < stream.size()) {
      std::size_t end = stream.find('\n', begin);
      if (end == std::string_view::npos) end = stream.size();
      reader->add_line(stream.substr(begin, end - begin), static_cast<double>(lines));
      trajectory.add_line(stream.substr(begin, end - begin), static_cast<double>(lines));
      ++lines;
      begin = end + 1;
    }
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("a stream reader or its normaliser threw: ") + e.what());
  }
  const model::AgentTurn& turn = reader->turn();
  try {
    check_trajectory(trajectory.finish(turn));
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("the trajectory threw: ") + e.what());
  }
  FUZZ_CHECK(turn.lines == lines, "lines counted " + std::to_string(turn.lines) + " of " + std::to_string(lines));
  const std::size_t fed = stream.size() + (stream.empty() || stream.back() == '\n' ? 0 : 1);
  FUZZ_CHECK(turn.stream_bytes == fed, "stream_bytes " + std::to_string(turn.stream_bytes) + " for " + std::to_string(fed));
  FUZZ_CHECK(turn.tool_calls <= turn.tool_events, "more tool calls than tool events");
  FUZZ_CHECK(turn.tool_input_bytes + turn.tool_output_bytes <= stream.size(), "tool bytes exceed the stream");

  const std::optional<std::string> failure = reader->failure();
  if (failure) {
    check_failure_text(*failure);
  } else {
    FUZZ_CHECK(turn.final_message.has_value(), "no failure and no final message");
    check_provider_answer(*turn.final_message);
    check_judgement(*turn.final_message);
  }
  check_provider_answer(stream);
  check_judgement(stream);
  return 0;
}

const bool kRegistered = strata::fuzz::register_target("agent_stream", &test_one_input);

}  // namespace fuzz_agent_stream
