// model/agents/claude_stream: the `claude -p --output-format stream-json --verbose` message stream
// (docs/AGENT_STREAMS.md §2) read a line at a time: usage (cache reads as cached input), the
// reported cost, tool calls (StructuredOutput is not one), byte and time telemetry, the answer
// from structured_output, and each way a stream fails. The lines follow the public format (the
// Agent SDK's message parser): one content block per assistant line, repeated per-message usage.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fixture.hpp"
#include "strata/model/agents/claude_stream.hpp"

using strata::model::ClaudeStreamReader;

namespace {

const std::string kAnswer = R"({"taskOutcome":"success","reworkCount":0})";

std::vector<std::string> claude_normal_stream() {
  return {
      R"({"type":"system","subtype":"init","session_id":"s1","tools":["Bash","Grep","StructuredOutput"],"model":"claude-test"})",
      R"({"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"secret plan","signature":"x"}],"usage":{"input_tokens":4,"output_tokens":70}},"parent_tool_use_id":null})",
      R"({"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Looking."}],"usage":{"input_tokens":4,"output_tokens":70}},"parent_tool_use_id":null})",
      R"({"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":null})",
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"README.md\nsrc","is_error":false}]}})",
      R"({"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"mcp__docs__search","input":{"query":"install"}}]}})",
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"docs/USAGE.md"}],"is_error":true}]}})",
      R"({"type":"assistant","message":{"id":"m3","content":[{"type":"tool_use","id":"t3","name":"StructuredOutput","input":{"taskOutcome":"success","reworkCount":0}}]}})",
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"Structured output provided successfully"}]}})",
      R"({"type":"result","subtype":"success","is_error":false,"duration_ms":5210,"num_turns":4,"session_id":"s1","result":"done","total_cost_usd":0.154274,)"
      R"("usage":{"input_tokens":26,"cache_creation_input_tokens":25422,"cache_read_input_tokens":74989,"output_tokens":562},)"
      R"("structured_output":{"taskOutcome":"success","reworkCount":0}})"};
}

constexpr auto read_claude = &strata::test::read_stream<ClaudeStreamReader>;

std::vector<std::string> claude_without_last(std::vector<std::string> lines) {
  lines.pop_back();
  return lines;
}

}  // namespace

TEST_CASE("a normal stream: usage with the cache, cost, tool calls, telemetry and the answer", "[claude]") {
  const ClaudeStreamReader reader = read_claude(claude_normal_stream());
  CHECK_FALSE(reader.failure());
  const auto& turn = reader.turn();
  CHECK(*turn.final_message == kAnswer);
  CHECK(*turn.input_tokens == 26 + 25422 + 74989);  // uncached + cache writes + cache reads
  CHECK(*turn.cached_input_tokens == 74989);
  CHECK(*turn.cache_creation_input_tokens == 25422);
  CHECK(*turn.output_tokens == 562);
  CHECK_FALSE(turn.reasoning_output_tokens);
  CHECK(*turn.cost_usd == 0.154274);
  CHECK(turn.tool_calls == 2);   // Bash and the MCP search (failed, but completed); not StructuredOutput
  CHECK(turn.tool_events == 4);  // two uses, two results
  CHECK(*turn.first_tool_event_ms == 40);
  CHECK(turn.tool_input_bytes == std::string(R"({"command":"ls"})").size() + std::string(R"({"query":"install"})").size());
  CHECK(turn.tool_output_bytes == std::string("README.md\nsrc").size() + std::string("docs/USAGE.md").size());
  CHECK(turn.agent_message_bytes == std::string("Looking.").size() + kAnswer.size());
  CHECK(turn.lines == 10);
}

TEST_CASE("without structured_output the result text is the answer; unknown messages are ignored", "[claude]") {
  auto lines = claude_without_last(claude_normal_stream());
  lines.insert(lines.begin() + 1, R"({"type":"rate_limit_event","rate_limit_info":{}})");
  lines.insert(lines.begin() + 1, R"({"type":"system","subtype":"hook_started"})");
  lines.push_back(R"({"type":"result","subtype":"success","is_error":false,"result":"{\"a\":1}","usage":{"input_tokens":3,"output_tokens":4}})");
  const ClaudeStreamReader reader = read_claude(lines);
  CHECK_FALSE(reader.failure());
  CHECK(*reader.turn().final_message == R"({"a":1})");
  CHECK(*reader.turn().input_tokens == 3);  // no cache members: nothing cached
  CHECK(*reader.turn().cached_input_tokens == 0);
  CHECK_FALSE(reader.turn().cost_usd);
}

TEST_CASE("a tool use without its result did not complete; a result for an unknown use is not counted", "[claude]") {
  auto lines = claude_normal_stream();
  lines.erase(lines.begin() + 4);  // t1's result
  lines.insert(lines.begin() + 4, R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"x"}]}})");
  const ClaudeStreamReader reader = read_claude(lines);
  CHECK_FALSE(reader.failure());
  CHECK(reader.turn().tool_calls == 1);
  CHECK(reader.turn().tool_events == 3);
}

TEST_CASE("each way a Claude stream fails is named, without quoting the stream", "[claude]") {
  SECTION("an error result") {
    auto lines = claude_without_last(claude_normal_stream());
    lines.push_back(R"({"type":"result","subtype":"error_during_execution","is_error":true,"errors":["secret prompt text"]})");
    CHECK(*read_claude(lines).failure() == "the agent's run ended in an error (result error_during_execution, is_error)");
  }
  SECTION("is_error with subtype success (an API error)") {
    auto lines = claude_without_last(claude_normal_stream());
    lines.push_back(R"({"type":"assistant","message":{"id":"m9","content":[{"type":"text","text":"API Error"}]},"error":"rate_limit"})");
    lines.push_back(R"({"type":"result","subtype":"success","is_error":true,"result":"API Error: 429"})");
    CHECK(*read_claude(lines).failure() == "the agent's run ended in an error (result success, is_error)");
  }
  SECTION("a subtype that is not an identifier is not quoted") {
    auto lines = claude_without_last(claude_normal_stream());
    lines.push_back(R"({"type":"result","subtype":"SECRET text","is_error":false})");
    CHECK(*read_claude(lines).failure() == "the agent's run ended in an error (result unknown)");
  }
  SECTION("an assistant error and no result") {
    auto lines = claude_without_last(claude_normal_stream());
    lines.push_back(R"({"type":"assistant","message":{"id":"m9","content":[]},"error":"authentication_failed"})");
    CHECK(*read_claude(lines).failure() == "the agent reported an error and the run did not complete");
  }
  SECTION("no result event") {
    CHECK(*read_claude(claude_without_last(claude_normal_stream())).failure() == "the event stream ended before the result event");
  }
  SECTION("a result without an answer") {
    auto lines = claude_without_last(claude_normal_stream());
    lines.push_back(R"({"type":"result","subtype":"success","is_error":false})");
    CHECK(*read_claude(lines).failure() == "the run completed without a final message");
  }
  SECTION("a line that starts like JSON and is not") {
    auto lines = claude_normal_stream();
    lines.insert(lines.begin() + 3, R"({"type":"assistant","message":{"id":"m2","type":"mess)");
    CHECK(*read_claude(lines).failure() == "line 4 of the event stream is not JSON");
  }
  SECTION("JSON that is not a message") {
    auto lines = claude_normal_stream();
    lines.insert(lines.begin() + 1, R"({"message":{}})");
    CHECK(*read_claude(lines).failure() == "line 2 of the event stream is not a message");
  }
  SECTION("a line too long to keep") {
    ClaudeStreamReader reader;
    reader.add_overlong_line(std::size_t{17} << 20);
    for (const auto& line : claude_normal_stream()) reader.add_line(line, 1);
    CHECK(*reader.failure() == "line 1 of the event stream is longer than Strata reads");
  }
}

TEST_CASE("debug lines that do not start with { are skipped, as the SDK does", "[claude]") {
  auto lines = claude_normal_stream();
  lines.insert(lines.begin() + 4, "[SandboxDebug] secret path /home/user {");
  lines.insert(lines.begin() + 1, "");
  const ClaudeStreamReader reader = read_claude(lines);
  CHECK_FALSE(reader.failure());
  CHECK(reader.turn().tool_calls == 2);
  CHECK(reader.turn().lines == 12);
}

TEST_CASE("a Claude usage or cost of another type is unknown, not a crash", "[claude]") {
  auto lines = claude_without_last(claude_normal_stream());
  lines.push_back(R"({"type":"result","subtype":"success","is_error":false,"result":"{}","total_cost_usd":"0.1","usage":{"input_tokens":"26","cache_read_input_tokens":{},"output_tokens":5}})");
  const ClaudeStreamReader reader = read_claude(lines);
  CHECK_FALSE(reader.failure());
  CHECK_FALSE(reader.turn().input_tokens);
  CHECK(*reader.turn().output_tokens == 5);
  CHECK_FALSE(reader.turn().cost_usd);
}

// Found by fuzz_agent_stream (fuzz/regressions/agent_stream/text-block-without-text): a text
// block without its text in a tool result was read through a missing member (use after free).
TEST_CASE("a tool result's text block without text is counted by its size", "[claude]") {
  auto lines = claude_normal_stream();
  lines[4] = R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text"}]}]}})";
  const ClaudeStreamReader reader = read_claude(lines);
  CHECK_FALSE(reader.failure());
  CHECK(reader.turn().tool_output_bytes == std::string(R"({"type":"text"})").size() + std::string("docs/USAGE.md").size());
}

// Issue 25: the real Claude Code (2.1.328) wrote a second result after the run's own, from a
// background task's notification; the adapter took it as the answer ("done": not JSON).
TEST_CASE("the run's own result is the answer; a background task's later result is counted, not read", "[claude]") {
  auto lines = claude_normal_stream();
  lines.back().insert(lines.back().find(R"("total_cost_usd")"), R"("permission_denials":[{"tool_name":"Bash","tool_use_id":"t7","tool_input":{"command":"echo x > f"}},{"tool_name":"Bash","tool_use_id":"t8","tool_input":{}}],)");
  lines.push_back(R"({"type":"system","subtype":"task_notification","task_id":"b1","status":"completed"})");
  lines.push_back(R"({"type":"assistant","message":{"id":"m9","content":[{"type":"tool_use","id":"t9","name":"Bash","input":{"command":"ls"}}]}})");
  lines.push_back(R"({"type":"result","subtype":"success","is_error":false,"result":"done","result_index":1,"origin":{"kind":"task-notification"},)"
                  R"("total_cost_usd":9,"usage":{"input_tokens":1,"output_tokens":1}})");
  const ClaudeStreamReader reader = read_claude(lines);
  CHECK_FALSE(reader.failure());
  const auto& turn = reader.turn();
  CHECK(*turn.final_message == kAnswer);
  CHECK(*turn.cost_usd == 0.154274);  // the run's own figures, not the notification's
  CHECK(*turn.output_tokens == 562);
  CHECK(turn.tool_events == 4);  // nothing after the run's own result is read as the run's
  CHECK(turn.background_results == 1);
  CHECK(*turn.denied_tool_uses == 2);
  CHECK(*turn.available_tools == 2);  // Bash and Grep: StructuredOutput is the answer's channel

  SECTION("a background result before the run's own is not the answer either") {
    auto early = claude_normal_stream();
    early.insert(early.end() - 1, R"({"type":"result","subtype":"success","is_error":false,"result":"done","origin":{"kind":"task-notification"}})");
    const ClaudeStreamReader before = read_claude(early);
    CHECK_FALSE(before.failure());
    CHECK(*before.turn().final_message == kAnswer);
    CHECK(before.turn().background_results == 1);
    CHECK_FALSE(before.turn().denied_tool_uses);
  }
  SECTION("a stream with only a background result has no run result") {
    auto only = claude_without_last(claude_normal_stream());
    only.push_back(R"({"type":"result","subtype":"success","is_error":false,"result":"done","origin":{"kind":"task-notification"}})");
    CHECK(*read_claude(only).failure() == "the event stream ended before the result event");
  }
}

// The real stream (Claude Code 2.1.328 against tests/support/model_server.py, sub-agents allowed;
// paths shortened): the main agent starts a background Agent, answers {"answer":"x"} (result 0),
// and the sub-agent's notification starts a second turn that ends in a second result
// ({"answer":"z"}, "origin":{"kind":"task-notification"}, "result_index":1).
TEST_CASE("the real two-result stream of a background task: the run's own answer", "[claude]") {
  const ClaudeStreamReader reader = read_claude(strata::test::captured_stream("claude-2.1.328-background-task.jsonl"));
  CHECK_FALSE(reader.failure());
  CHECK(*reader.turn().final_message == R"({"answer":"x"})");
  CHECK(reader.turn().background_results == 1);
}

// Issue 36: with sub-agents the counts are every model call (modelUsage), the main loop's apart.
// The real stream (Claude Code 2.1.328 against tests/support/model_server.py, paths shortened):
// the main loop (1000 in, 10 out) starts a foreground Agent (run_in_background false), whose two
// calls (2000/20: a Read; 3000/30: its report) run before the main loop's answer (4000/40).
TEST_CASE("the real stream of a foreground sub-agent: every call counted, the main loop apart", "[claude]") {
  const ClaudeStreamReader reader = read_claude(strata::test::captured_stream("claude-2.1.328-foreground-subagent.jsonl"));
  REQUIRE_FALSE(reader.failure());
  const auto& turn = reader.turn();
  CHECK(*turn.input_tokens == 10000);
  CHECK(*turn.output_tokens == 100);
  CHECK(*turn.cached_input_tokens == 0);
  REQUIRE(turn.main_loop);
  CHECK(*turn.main_loop->input_tokens == 5000);
  CHECK(*turn.main_loop->output_tokens == 50);
  CHECK(turn.subagent_runs == 1);
  CHECK_FALSE(turn.subagent_usage_unreported);
  CHECK(*turn.cost_usd == Approx(0.0315));  // consistent with the counts: 10000 x $3/M + 100 x $15/M
  CHECK(turn.tool_calls == 2);              // the Agent and the sub-agent's Read
  CHECK(turn.background_results == 0);
}

TEST_CASE("the background sub-agent's calls are in the counts too", "[claude]") {
  const ClaudeStreamReader reader = read_claude(strata::test::captured_stream("claude-2.1.328-background-task.jsonl"));
  const auto& turn = reader.turn();
  CHECK(*turn.input_tokens == 400);  // modelUsage
  CHECK(*turn.main_loop->input_tokens == 200);
  CHECK(turn.subagent_runs == 1);
}

TEST_CASE("sub-agents with no modelUsage: the counts are the main loop's, and the turn says so", "[claude]") {
  auto lines = claude_normal_stream();
  lines.insert(lines.begin() + 1,
               R"({"type":"assistant","message":{"id":"m0","content":[{"type":"tool_use","id":"a1","name":"Agent","input":{"prompt":"p"}}]},"parent_tool_use_id":null})");
  lines.insert(lines.begin() + 2,
               R"({"type":"assistant","message":{"id":"s1","content":[{"type":"tool_use","id":"a2","name":"Agent","input":{"prompt":"q"}}]},"parent_tool_use_id":"a1"})");
  const ClaudeStreamReader reader = read_claude(lines);
  const auto& turn = reader.turn();
  CHECK(turn.subagent_runs == 1);  // the sub-agent's own Agent use is not the main loop's
  CHECK(turn.subagent_usage_unreported);
  CHECK(*turn.input_tokens == 26 + 25422 + 74989);
  // Without sub-agents, no modelUsage is nothing to report.
  CHECK_FALSE(read_claude(claude_normal_stream()).turn().subagent_usage_unreported);
  // A modelUsage entry without its counts: not summed (a partial sum would under-count).
  auto partial = claude_normal_stream();
  partial.back().insert(partial.back().size() - 1, R"(,"modelUsage":{"m":{"inputTokens":5}})");
  CHECK(*read_claude(partial).turn().input_tokens == 26 + 25422 + 74989);
}
