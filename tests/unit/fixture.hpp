#pragma once
// Test helpers: the doc-bridge fixtures from ../shared and small artifact edits.
#include <functional>
#include <string>
#include <vector>

#include "strata/model/json/json.hpp"

namespace strata::test {

std::string fixture_path(const std::string& name);
model::Json fixture(const std::string& name);

// The message of the strata::Error an operation throws (with its location when it has
// one), or "no error".
std::string error_of(const std::function<void()>& operation);
// The same without the location: just the message.
std::string message_of(const std::function<void()>& operation);

// An agent stream reader (model/agents/agent_stream) fed `lines`, each 10 ms after the one before.
template <class Reader>
Reader read_stream(const std::vector<std::string>& lines) {
  Reader reader;
  double at = 0;
  for (const auto& line : lines) reader.add_line(line, at += 10);
  return reader;
}

// The lines of a real agent stream captured in tests/unit/streams/ (`name` the file's name).
std::vector<std::string> captured_stream(const std::string& name);

// The fixture task suite, parsed once.
const model::Json& fixture_suite();

// A valid CM role packet (planner, cm-prd design_generation) whose stable and dynamic parts
// carry DO_NOT_LOG_* markers, for the tests that check nothing of it is logged.
extern const char* const kRolePacket;

// The payload of a sealed artifact (seal members removed), for re-sealing edited copies.
model::Json payload_of(model::Json sealed);

// A valid unsealed observation of the run plan fixture (run "run-01", the first task).
model::Json observation_payload();

}  // namespace strata::test
