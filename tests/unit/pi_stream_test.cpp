// model/agents/pi_stream: pi 0.73.1's `--mode json -p` stream, from streams the real CLI wrote
// against the scripted model server under the adapter's flags (tests/unit/streams/pi-*): the
// answer (the text of the message that stopped with "stop"), the usage (input with the cache reads
// added back, output with the reasoning, pi's own cost), the tool calls and the refused ones, and
// a run pi gave up on (it exits 0: only the stream says the run failed).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fixture.hpp"
#include "strata/model/agents/pi_stream.hpp"

using strata::model::PiStreamReader;

namespace {

constexpr auto read_pi = &strata::test::read_stream<PiStreamReader>;

}  // namespace

TEST_CASE("a read, a refused write and the answer: usage, tool calls, the refusal", "[pi]") {
  const PiStreamReader reader = read_pi(strata::test::captured_stream("pi-0.73.1-read-and-refused-write.jsonl"));
  REQUIRE_FALSE(reader.failure());
  const auto& turn = reader.turn();
  CHECK(*turn.final_message == R"({"a":1})");
  // The server sent 1000 (200 cached) + 1200 (900 cached) in, 30+7 and 20+3 out; pi's input
  // leaves the cache reads out (800 and 300).
  CHECK(*turn.input_tokens == 2200);
  CHECK(*turn.cached_input_tokens == 1100);
  CHECK(*turn.cache_creation_input_tokens == 0);
  CHECK(*turn.output_tokens == 60);
  CHECK(*turn.cost_usd == 0);  // pi prices a model it does not know at 0
  CHECK_FALSE(turn.reasoning_output_tokens);
  CHECK(turn.tool_calls == 2);  // the read, and the write that came back "not found"
  CHECK(turn.tool_events == 4);
  CHECK(*turn.denied_tool_uses == 1);
  CHECK(turn.tool_output_bytes == std::string("int main() { return 0; }\n").size() + std::string("Tool write not found").size());
  CHECK_FALSE(turn.available_tools);  // the stream does not list them
}

TEST_CASE("a run pi gave up on after its retries is a failure, though pi exits 0", "[pi]") {
  const PiStreamReader reader = read_pi(strata::test::captured_stream("pi-0.73.1-500-every-time.jsonl"));
  REQUIRE(reader.failure());
  CHECK(*reader.failure() == "the agent reported an error and the run did not complete");
  CHECK_FALSE(reader.turn().final_message);
}

TEST_CASE("a failed attempt that pi retries with success completes the run", "[pi]") {
  // The failed attempts of the every-time stream, then the successful run of the other.
  auto lines = strata::test::captured_stream("pi-0.73.1-500-every-time.jsonl");
  lines.pop_back();  // auto_retry_end: success false
  for (const auto& line : strata::test::captured_stream("pi-0.73.1-read-and-refused-write.jsonl"))
    if (line.find(R"("type":"session")") == std::string::npos) lines.push_back(line);
  const PiStreamReader reader = read_pi(lines);
  REQUIRE_FALSE(reader.failure());
  CHECK(*reader.turn().final_message == R"({"a":1})");
}

TEST_CASE("a stream that ends after a tool call, or on a line that is not JSON, has no answer", "[pi]") {
  auto lines = strata::test::captured_stream("pi-0.73.1-read-and-refused-write.jsonl");
  std::vector<std::string> cut;
  for (const auto& line : lines) {
    if (line.find(R"("stopReason":"stop")") != std::string::npos) break;
    cut.push_back(line);
  }
  const PiStreamReader ended = read_pi(cut);
  REQUIRE(ended.failure());
  CHECK(*ended.failure() == "the event stream ended before an assistant message that stopped with reason stop");
  lines.insert(lines.begin() + 2, "not json");
  const PiStreamReader garbled = read_pi(lines);
  REQUIRE(garbled.failure());
  CHECK(*garbled.failure() == "line 3 of the event stream is not JSON");
}
