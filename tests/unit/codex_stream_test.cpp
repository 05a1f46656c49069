// model/agents/codex_stream: the `codex exec --json` event stream (docs/AGENT_STREAMS.md §1) read a line
// at a time: usage, tool calls, byte and time telemetry, the final message, and each way a
// stream fails. The lines follow the public format (openai/codex exec_events.rs), including the
// duplicate "id" of web_search items.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fixture.hpp"
#include "strata/model/agents/codex_stream.hpp"

using strata::model::CodexStreamReader;

namespace {

const std::vector<std::string>& normal_stream() {
  static const std::vector<std::string> lines{
      R"({"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"})",
      R"({"type":"turn.started"})",
      R"({"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Looking for the entry point**"}})",
      R"({"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}})",
      R"({"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc ls","aggregated_output":"README.md\nsrc\n","exit_code":0,"status":"completed"}})",
      R"({"type":"item.started","item":{"id":"item_2","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"entry"},"result":null,"error":null,"status":"in_progress"}})",
      R"({"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"entry"},"result":{"content":[]},"error":null,"status":"completed"}})",
      R"({"type":"item.completed","item":{"id":"item_3","type":"web_search","id":"ws_1","query":"asio pidfd"}})",
      R"({"type":"item.completed","item":{"id":"item_4","type":"agent_message","text":"{\"taskOutcome\":\"success\"}"}})",
      R"({"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122,"reasoning_output_tokens":64}})"};
  return lines;
}

constexpr auto read_codex = &strata::test::read_stream<CodexStreamReader>;

std::vector<std::string> without_last(std::vector<std::string> lines, std::size_t n = 1) {
  lines.resize(lines.size() - n);
  return lines;
}

}  // namespace

TEST_CASE("a normal stream: usage, tool calls, telemetry and the final message", "[codex]") {
  const CodexStreamReader reader = read_codex(normal_stream());
  CHECK_FALSE(reader.failure());
  const auto& turn = reader.turn();
  CHECK(*turn.final_message == R"({"taskOutcome":"success"})");
  CHECK(*turn.input_tokens == 24763);
  CHECK(*turn.cached_input_tokens == 24448);
  CHECK(*turn.output_tokens == 122);
  CHECK(*turn.reasoning_output_tokens == 64);
  CHECK(turn.tool_calls == 3);   // command, MCP call, web search (the reasoning item is not a tool)
  CHECK(turn.tool_events == 5);  // two started, three completed
  CHECK(*turn.first_tool_event_ms == 40);
  CHECK(turn.tool_input_bytes == std::string("/bin/bash -lc ls").size() + std::string(R"({"q":"entry"})").size() +
                                      std::string("asio pidfd").size());
  CHECK(turn.tool_output_bytes == std::string("README.md\nsrc\n").size() + std::string(R"({"content":[]})").size());
  CHECK(turn.agent_message_bytes == turn.final_message->size());
  CHECK(turn.lines == 10);
}

TEST_CASE("usage without reasoning tokens (older codex) leaves them unknown", "[codex]") {
  auto lines = without_last(normal_stream());
  lines.push_back(R"({"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":5}})");
  const CodexStreamReader reader = read_codex(lines);
  CHECK_FALSE(reader.failure());
  CHECK_FALSE(reader.turn().reasoning_output_tokens);
  CHECK(*reader.turn().cached_input_tokens == 0);
}

TEST_CASE("each way a stream fails is named, without quoting the stream", "[codex]") {
  SECTION("a failed turn") {
    auto lines = without_last(normal_stream());
    lines.push_back(R"({"type":"error","message":"stream disconnected: secret prompt text"})");
    lines.push_back(R"({"type":"turn.failed","error":{"message":"secret prompt text"}})");
    const auto failure = read_codex(lines).failure();
    REQUIRE(failure);
    CHECK(*failure == "the turn failed (turn.failed)");
  }
  SECTION("an error event the turn did not survive") {
    auto lines = without_last(normal_stream());
    lines.push_back(R"({"type":"error","message":"quota exceeded"})");
    CHECK(*read_codex(lines).failure() == "the agent reported an error and the run did not complete");
  }
  SECTION("an error event the turn survived (a retry) is not a failure") {
    auto lines = normal_stream();
    lines.insert(lines.begin() + 2, R"({"type":"error","message":"Reconnecting... 1/5"})");
    CHECK_FALSE(read_codex(lines).failure());
  }
  SECTION("a line that is not JSON") {
    auto lines = normal_stream();
    lines.insert(lines.begin() + 3, "Reading prompt from stdin... {not json");
    CHECK(*read_codex(lines).failure() == "line 4 of the event stream is not JSON");
  }
  SECTION("JSON that is not an event") {
    auto lines = normal_stream();
    lines.insert(lines.begin() + 1, "[1,2,3]");
    CHECK(*read_codex(lines).failure() == "line 2 of the event stream is not an event");
  }
  SECTION("a stream cut in the middle of a line") {
    auto lines = without_last(normal_stream(), 2);
    lines.push_back(R"({"type":"item.completed","item":{"id":"item_4","type":"agent_mes)");
    CHECK(*read_codex(lines).failure() == "line 9 of the event stream is not JSON");
  }
  SECTION("a stream that ends before the turn completes") {
    CHECK(*read_codex(without_last(normal_stream())).failure() == "the event stream ended before turn.completed");
  }
  SECTION("no final message") {
    auto lines = normal_stream();
    lines.erase(lines.begin() + 8);
    CHECK(*read_codex(lines).failure() == "the run completed without a final message");
  }
  SECTION("a line too long to keep") {
    CodexStreamReader reader;
    reader.add_line(normal_stream()[0], 1);
    reader.add_overlong_line(std::size_t{20} << 20);
    for (std::size_t i = 1; i < normal_stream().size(); ++i) reader.add_line(normal_stream()[i], 2);
    CHECK(*reader.failure() == "line 2 of the event stream is longer than Strata reads");
    CHECK(reader.turn().stream_bytes > (std::size_t{20} << 20));
  }
  SECTION("an empty stream") {
    CHECK(*read_codex({}).failure() == "the event stream ended before turn.completed");
  }
}

TEST_CASE("the last agent message is the answer; unknown events and items are ignored", "[codex]") {
  auto lines = normal_stream();
  lines.insert(lines.begin() + 2, R"({"type":"item.completed","item":{"id":"item_9","type":"agent_message","text":"thinking aloud"}})");
  lines.insert(lines.begin() + 2, R"({"type":"item.plan.delta","item_id":"item_8","delta":"step"})");
  lines.insert(lines.begin() + 2, R"({"type":"item.completed","item":{"id":"item_7","type":"todo_list","items":[]}})");
  lines.insert(lines.begin() + 2, "");
  const CodexStreamReader reader = read_codex(lines);
  CHECK_FALSE(reader.failure());
  CHECK(*reader.turn().final_message == R"({"taskOutcome":"success"})");
  CHECK(reader.turn().agent_message_bytes == std::string("thinking aloud").size() + reader.turn().final_message->size());
  CHECK(reader.turn().tool_calls == 3);
}

// Found by fuzz_agent_stream (fuzz/regressions/agent_stream/usage-count-is-a-string): a usage
// count of another type threw nlohmann's type_error out of the reader.
TEST_CASE("usage counts that are not non-negative numbers are unknown, not a crash", "[codex]") {
  auto lines = without_last(normal_stream());
  lines.push_back(R"({"type":"turn.completed","usage":{"input_tokens":"many","cached_input_tokens":-1,"output_tokens":null,"reasoning_output_tokens":[1]}})");
  const CodexStreamReader reader = read_codex(lines);
  CHECK_FALSE(reader.failure());
  CHECK_FALSE(reader.turn().input_tokens);
  CHECK_FALSE(reader.turn().cached_input_tokens);
  CHECK_FALSE(reader.turn().output_tokens);
  CHECK_FALSE(reader.turn().reasoning_output_tokens);
}
