// model/agents/opencode_stream: the `opencode run --format json` stream of OpenCode 1.18.33 read a line
// at a time. The lines are the real CLI's, recorded against the scripted model server (ids,
// paths and metadata shortened): usage summed over the steps (cache reads and writes added to
// the input, reasoning to the output), the answer from the step that finished with "stop",
// calls of the tools the permissions removed counted as refusals; no end-of-run event.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fixture.hpp"
#include "strata/model/agents/opencode_stream.hpp"

using strata::model::OpenCodeStreamReader;

namespace {

std::vector<std::string> opencode_stream() {
  return {
      R"({"type":"step_start","timestamp":1796396459694,"sessionID":"ses_1","part":{"id":"prt_1","messageID":"msg_1","sessionID":"ses_1","type":"step-start"}})",
      R"({"type":"text","timestamp":1796396459700,"sessionID":"ses_1","part":{"id":"prt_0","type":"text","text":"Reading."}})",
      R"({"type":"tool_use","timestamp":1796396459757,"sessionID":"ses_1","part":{"type":"tool","tool":"read","callID":"call_1","state":{"status":"completed","input":{"filePath":"/r/a.txt"},"output":"<content>hello</content>","metadata":{"truncated":false},"time":{"start":1,"end":2}}}})",
      R"({"type":"tool_use","timestamp":1796397118587,"sessionID":"ses_1","part":{"type":"tool","tool":"invalid","callID":"c_edit","state":{"status":"completed","input":{"tool":"edit","error":"unavailable"},"output":"invalid tool","metadata":{"truncated":false},"title":"Invalid Tool","time":{"start":1,"end":2}}}})",
      R"({"type":"step_finish","timestamp":1796396459757,"sessionID":"ses_1","part":{"id":"prt_2","reason":"tool-calls","type":"step-finish","tokens":{"total":1037,"input":800,"output":30,"reasoning":7,"cache":{"write":0,"read":200}},"cost":0}})",
      R"({"type":"step_start","timestamp":1796396459855,"sessionID":"ses_1","part":{"id":"prt_3","type":"step-start"}})",
      R"({"type":"text","timestamp":1796396459856,"sessionID":"ses_1","part":{"id":"prt_4","type":"text","text":"{\"outcome\":\"found\"}","time":{"start":1,"end":2}}})",
      R"({"type":"step_finish","timestamp":1796396459856,"sessionID":"ses_1","part":{"id":"prt_5","reason":"stop","type":"step-finish","tokens":{"total":1123,"input":200,"output":20,"reasoning":3,"cache":{"write":5,"read":900}},"cost":0.25}})"};
}

constexpr auto read_opencode = &strata::test::read_stream<OpenCodeStreamReader>;

}  // namespace

TEST_CASE("an OpenCode stream: usage summed over the steps, the last step's text, refusals", "[opencode]") {
  const OpenCodeStreamReader reader = read_opencode(opencode_stream());
  CHECK_FALSE(reader.failure());
  const auto& turn = reader.turn();
  CHECK(*turn.final_message == R"({"outcome":"found"})");
  CHECK(*turn.input_tokens == (800 + 200) + (200 + 900 + 5));
  CHECK(*turn.cached_input_tokens == 1100);
  CHECK(*turn.cache_creation_input_tokens == 5);
  CHECK(*turn.output_tokens == (30 + 7) + (20 + 3));
  CHECK(*turn.reasoning_output_tokens == 10);
  CHECK(*turn.cost_usd == 0.25);
  CHECK(turn.tool_calls == 2);
  CHECK(*turn.denied_tool_uses == 1);
  CHECK(*turn.first_tool_event_ms == 30);
  CHECK(turn.tool_input_bytes == std::string(R"({"filePath":"/r/a.txt"})").size() + std::string(R"({"tool":"edit","error":"unavailable"})").size());
  CHECK(turn.tool_output_bytes == std::string("<content>hello</content>").size() + std::string("invalid tool").size());
  CHECK(turn.agent_message_bytes == std::string("Reading.").size() + std::string(R"({"outcome":"found"})").size());
}

TEST_CASE("each way an OpenCode stream fails is named", "[opencode]") {
  auto lines = opencode_stream();
  SECTION("the CLI gave up on the API after its retries") {
    lines.erase(lines.begin() + 5, lines.end());
    lines.push_back(R"({"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"type":"step-start"}})");
    lines.push_back(R"({"type":"error","timestamp":1,"sessionID":"ses_1","error":{"name":"APIError","data":{"message":"SECRET","statusCode":500}}})");
    CHECK(*read_opencode(lines).failure() == "the agent reported an error and the run did not complete");
  }
  SECTION("an error after the stop step is not a finished run") {
    lines.push_back(R"({"type":"error","timestamp":1,"sessionID":"ses_1","error":{"name":"UnknownError","data":{"message":"x"}}})");
    CHECK(*read_opencode(lines).failure() == "the agent reported an error and the run did not complete");
  }
  SECTION("the stream ends after a tool step") {
    lines.erase(lines.begin() + 5, lines.end());
    CHECK(*read_opencode(lines).failure() == "the event stream ended before a step that finished with reason stop");
  }
  SECTION("a stop step without text") {
    lines.erase(lines.begin() + 6);
    CHECK(*read_opencode(lines).failure() == "the run completed without a final message");
  }
  SECTION("a line that is not an event") {
    lines.insert(lines.begin() + 1, R"({"part":{}})");
    CHECK(*read_opencode(lines).failure() == "line 2 of the event stream is not an event");
  }
}

// Issue 36: the real stream of OpenCode 1.18.33 with a sub-agent (against
// tests/support/model_server.py): the main loop (1000/10) starts a `task`, whose call (3000/30)
// runs in a session of its own, then answers (4000/40). The run's stream holds the main loop's
// steps only, so the counts are 5000/50 and the turn says the sub-agent's are not in them.
TEST_CASE("an OpenCode sub-agent's calls are not in its stream, and the turn says so", "[opencode]") {
  const OpenCodeStreamReader reader = read_opencode(strata::test::captured_stream("opencode-1.18.33-subagent.jsonl"));
  REQUIRE_FALSE(reader.failure());
  CHECK(*reader.turn().input_tokens == 5000);
  CHECK(*reader.turn().output_tokens == 50);
  CHECK(reader.turn().subagent_runs == 1);
  CHECK(reader.turn().subagent_usage_unreported);
  CHECK(reader.turn().tool_calls == 1);
}
