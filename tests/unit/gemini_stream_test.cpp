// model/agents/gemini_stream: the `gemini -p "" --output-format stream-json` stream of Gemini CLI 0.61.0
// read a line at a time. The lines are the real CLI's, recorded against the scripted model
// server (tests/support/model_server.py; the session ids and timestamps shortened): the
// answer is the assistant's text after the last tool event, its deltas joined; the usage from
// result.stats with the thoughts (total - input - output) as reasoning; refused tools counted.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fixture.hpp"
#include "strata/model/agents/gemini_stream.hpp"

using strata::model::GeminiStreamReader;

namespace {

std::vector<std::string> gemini_stream() {
  return {
      R"({"type":"init","timestamp":"2026-12-04T14:55:51.394Z","session_id":"e5ba","model":"gemini-2.5-pro"})",
      R"({"type":"message","timestamp":"2026-12-04T14:55:51.397Z","role":"user","content":"SECRET prompt"})",
      R"({"type":"message","timestamp":"2026-12-04T14:55:51.398Z","role":"assistant","content":"Let me look.","delta":true})",
      R"({"type":"tool_use","timestamp":"2026-12-04T14:55:51.493Z","tool_name":"read_file","tool_id":"read_file__call_1","parameters":{"file_path":"a.txt"}})",
      R"({"type":"tool_result","timestamp":"2026-12-04T14:55:51.559Z","tool_id":"read_file__call_1","status":"success","output":""})",
      R"({"type":"tool_use","timestamp":"2026-12-04T15:12:08.302Z","tool_name":"write_file","tool_id":"write_file__c_write","parameters":{"file_path":"new.txt","content":"new file\n"}})",
      R"({"type":"tool_result","timestamp":"2026-12-04T15:12:08.353Z","tool_id":"write_file__c_write","status":"error","output":"Tool \"write_file\" not found.","error":{"type":"tool_not_registered","message":"Tool \"write_file\" not found."}})",
      R"({"type":"message","timestamp":"2026-12-04T14:55:51.580Z","role":"assistant","content":"{\"outcome\":\"found\",\"ev","delta":true})",
      R"({"type":"message","timestamp":"2026-12-04T14:55:51.581Z","role":"assistant","content":"idence\":\"hello world\"}","delta":true})",
      R"({"type":"result","timestamp":"2026-12-04T14:55:51.583Z","status":"success","stats":{"total_tokens":2160,"input_tokens":2100,"output_tokens":50,"cached":1100,"input":1000,"duration_ms":189,"tool_calls":2,"models":{"gemini-2.5-pro":{"total_tokens":2160,"input_tokens":2100,"output_tokens":50,"cached":1100,"input":1000}}}})"};
}

constexpr auto read_gemini = &strata::test::read_stream<GeminiStreamReader>;

}  // namespace

TEST_CASE("a Gemini stream: the answer after the last tool, usage with thoughts, refusals", "[gemini]") {
  const GeminiStreamReader reader = read_gemini(gemini_stream());
  CHECK_FALSE(reader.failure());
  const auto& turn = reader.turn();
  CHECK(*turn.final_message == R"({"outcome":"found","evidence":"hello world"})");  // not the narration before the tools
  CHECK(*turn.input_tokens == 2100);  // the cached tokens are part of it
  CHECK(*turn.cached_input_tokens == 1100);
  CHECK(*turn.output_tokens == 60);  // output 50 + thoughts 10
  CHECK(*turn.reasoning_output_tokens == 10);
  CHECK(turn.tool_calls == 2);
  CHECK(turn.tool_events == 4);
  CHECK(*turn.denied_tool_uses == 1);
  CHECK(*turn.first_tool_event_ms == 40);
  CHECK(turn.tool_input_bytes == std::string(R"({"file_path":"a.txt"})").size() + std::string(R"({"file_path":"new.txt","content":"new file\n"})").size());
  CHECK(turn.tool_output_bytes == std::string(R"(Tool "write_file" not found.)").size());
  CHECK(turn.agent_message_bytes == std::string("Let me look.").size() + std::string(R"({"outcome":"found","evidence":"hello world"})").size());
  CHECK_FALSE(turn.cost_usd);
}

TEST_CASE("each way a Gemini stream fails is named, without quoting it", "[gemini]") {
  auto lines = gemini_stream();
  lines.pop_back();
  SECTION("an error result (the CLI gave up on the API after its retries; it may still exit 0)") {
    lines.push_back(R"({"type":"error","severity":"error","message":"SECRET Model stream ended without a finish reason."})");
    lines.push_back(R"({"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: terminated]"},"stats":{"total_tokens":0}})");
    CHECK(*read_gemini(lines).failure() == "the agent's run ended in an error (result error)");
  }
  SECTION("an error and no result") {
    lines.push_back(R"({"type":"error","severity":"error","message":"x"})");
    CHECK(*read_gemini(lines).failure() == "the agent reported an error and the run did not complete");
  }
  SECTION("no result") { CHECK(*read_gemini(lines).failure() == "the event stream ended before the result event"); }
  SECTION("a result without text after the last tool") {
    lines.erase(lines.end() - 2, lines.end());
    lines.push_back(R"({"type":"result","status":"success","stats":{}})");
    CHECK(*read_gemini(lines).failure() == "the run completed without a final message");
  }
  SECTION("a line that is not JSON") {
    lines.insert(lines.begin() + 2, "Loaded cached credentials.");
    CHECK(*read_gemini(lines).failure() == "line 3 of the event stream is not JSON");
  }
}

// Issue 36: the real stream of Gemini CLI 0.61.0 with a sub-agent (against
// tests/support/model_server.py, paths shortened): the main loop (1000 in, 10 out) invokes
// codebase_investigator, whose two calls (3000/30, 4000/40) run before the main loop answers (7/7).
// The result's stats count all four: the sub-agent's calls are in the counts.
TEST_CASE("a Gemini sub-agent's calls are in the result's counts", "[gemini]") {
  const GeminiStreamReader reader = read_gemini(strata::test::captured_stream("gemini-0.61.0-subagent.jsonl"));
  REQUIRE_FALSE(reader.failure());
  CHECK(*reader.turn().input_tokens == 8007);
  CHECK(*reader.turn().output_tokens == 87);
  CHECK(reader.turn().subagent_runs == 1);
  CHECK_FALSE(reader.turn().subagent_usage_unreported);
}
