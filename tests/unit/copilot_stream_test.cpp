// model/agents/copilot_stream: GitHub Copilot CLI 1.0.102's `--output-format json` stream and its
// OpenTelemetry file, as the real CLI wrote them against the scripted model server under the
// adapter's flags (tests/unit/streams/copilot-1.0.102-*): the answer (the last message that asked
// for no tool), the tool calls and the refused ones, the token counts from the telemetry's chat
// spans (the stream has none), and a run the CLI gave up on.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fixture.hpp"
#include "strata/model/agents/copilot_stream.hpp"

using strata::model::CopilotStreamReader;

namespace {

constexpr auto read_copilot = &strata::test::read_stream<CopilotStreamReader>;

std::string telemetry(const std::string& name) {
  std::string text;
  for (const auto& line : strata::test::captured_stream(name)) text += line + "\n";
  return text;
}

}  // namespace

TEST_CASE("a read, a refused write and the answer; the tokens from the telemetry file", "[copilot]") {
  CopilotStreamReader reader = read_copilot(strata::test::captured_stream("copilot-1.0.102-read-and-refused-write.jsonl"));
  REQUIRE_FALSE(reader.failure());
  CHECK_FALSE(reader.turn().input_tokens);  // the stream alone has none
  reader.add_side_output(telemetry("copilot-1.0.102-read-and-refused-write.otel.jsonl"));
  const auto& turn = reader.turn();
  CHECK(*turn.final_message == R"({"a":1})");
  // The server sent 1000 (200 cached) + 1200 (900 cached) in, 30+7 and 20+3 out.
  CHECK(*turn.input_tokens == 2200);
  CHECK(*turn.cached_input_tokens == 1100);
  CHECK(*turn.output_tokens == 60);
  CHECK(*turn.reasoning_output_tokens == 10);
  CHECK(turn.tool_calls == 2);  // the view, and the edit that "does not exist"
  CHECK(*turn.denied_tool_uses == 1);
  CHECK(turn.tool_output_bytes >= std::string("int main() { return 0; }\n").size());
}

TEST_CASE("telemetry lines that are not chat spans, or not JSON, count nothing", "[copilot]") {
  CopilotStreamReader reader = read_copilot(strata::test::captured_stream("copilot-1.0.102-read-and-refused-write.jsonl"));
  reader.add_side_output("not json\n{\"type\":\"metric\",\"attributes\":{\"gen_ai.operation.name\":\"chat\",\"gen_ai.usage.input_tokens\":5}}\n");
  CHECK_FALSE(reader.turn().input_tokens);
  reader.add_side_output(R"({"type":"span","attributes":{"gen_ai.operation.name":"invoke_agent","gen_ai.usage.input_tokens":7}})");
  CHECK_FALSE(reader.turn().input_tokens);  // the run's own span repeats the calls' sum: not added twice
}

TEST_CASE("a run the CLI gave up on is a failure", "[copilot]") {
  const CopilotStreamReader reader = read_copilot(strata::test::captured_stream("copilot-1.0.102-500-every-time.jsonl"));
  REQUIRE(reader.failure());
  CHECK(*reader.failure() == "the agent reported an error and the run did not complete");
}

TEST_CASE("a stream that ends before its result has no answer", "[copilot]") {
  auto lines = strata::test::captured_stream("copilot-1.0.102-read-and-refused-write.jsonl");
  lines.pop_back();
  const CopilotStreamReader reader = read_copilot(lines);
  REQUIRE(reader.failure());
  CHECK(*reader.failure() == "the event stream ended before the result event");
}
