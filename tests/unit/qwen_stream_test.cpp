// model/agents/qwen_stream: Qwen Code 0.24.4's `-o stream-json` read by ClaudeStreamReader with
// the Qwen dialect, from streams the real CLI wrote against the scripted model server
// (tests/unit/streams/qwen-*): the answer, the usage (input with its cache
// reads, every call's, a sub-agent's included), the tools offered (structured_output is the
// answer's channel), the refused uses, the sub-agent started; and the same lines under Claude
// Code's dialect would be read differently (so the dialect is what makes them right).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fixture.hpp"
#include "strata/model/agents/qwen_stream.hpp"

using strata::model::ClaudeStreamReader;

namespace {

ClaudeStreamReader read_qwen(const std::vector<std::string>& lines, const strata::model::ClaudeStreamDialect& dialect) {
  ClaudeStreamReader reader(dialect);
  double at = 0;
  for (const auto& line : lines) reader.add_line(line, at += 10);
  return reader;
}

}  // namespace

TEST_CASE("a read, a refused write and the answer: usage, tools, denials", "[qwen]") {
  const auto lines = strata::test::captured_stream("qwen-0.24.4-read-and-refused-write.jsonl");
  const ClaudeStreamReader reader = read_qwen(lines, strata::model::qwen_code_dialect());
  REQUIRE_FALSE(reader.failure());
  const auto& turn = reader.turn();
  CHECK(*turn.final_message == R"({"a":1})");
  // The server sent 1000 (200 cached) + 1200 (900 cached) in, 30+7 and 20+3 out (reasoning included).
  CHECK(*turn.input_tokens == 2200);
  CHECK(*turn.cached_input_tokens == 1100);
  CHECK(*turn.output_tokens == 60);
  CHECK_FALSE(turn.cost_usd);
  CHECK_FALSE(turn.cache_creation_input_tokens);  // the stream names none: none reported (not a 0)
  CHECK_FALSE(turn.main_loop);  // the result's usage is every call: no main loop apart
  CHECK(*turn.available_tools == 4);  // read_file, list_directory, grep_search, glob; not structured_output
  CHECK(turn.tool_calls == 2);        // the read, and the write that completed as a refusal
  CHECK(*turn.denied_tool_uses == 1);
  CHECK(turn.subagent_runs == 0);

  // Read as Claude Code's, the same lines count the cache twice and the answer's tool as a tool.
  const ClaudeStreamReader as_claude = read_qwen(lines, strata::model::claude_code_dialect());
  CHECK(*as_claude.turn().input_tokens == 2200 + 1100);
  CHECK(*as_claude.turn().available_tools == 5);
  CHECK(as_claude.turn().tool_calls == 3);
}

TEST_CASE("a sub-agent in the background: started once, its calls in the usage", "[qwen]") {
  const ClaudeStreamReader reader = read_qwen(strata::test::captured_stream("qwen-0.24.4-subagent.jsonl"), strata::model::qwen_code_dialect());
  REQUIRE_FALSE(reader.failure());
  const auto& turn = reader.turn();
  CHECK(turn.subagent_runs == 1);
  CHECK_FALSE(turn.subagent_usage_unreported);
  CHECK(*turn.input_tokens == 400);  // four calls of 100: the main loop's three and the sub-agent's one
  CHECK(*turn.output_tokens == 4);
  CHECK(turn.tool_calls == 2);  // the agent tool and the read; the answer's call is not one
  CHECK(*turn.final_message == R"({"a":1})");
}

TEST_CASE("a run that ends in an error is a failure, whatever the answer", "[qwen]") {
  auto lines = strata::test::captured_stream("qwen-0.24.4-read-and-refused-write.jsonl");
  std::string& result = lines.back();
  const auto at = result.find(R"("subtype":"success","uuid")");
  REQUIRE(at != std::string::npos);
  result.replace(at, std::string(R"("subtype":"success")").size(), R"("subtype":"error_during_execution")");
  const ClaudeStreamReader reader = read_qwen(lines, strata::model::qwen_code_dialect());
  REQUIRE(reader.failure());
  CHECK(reader.failure()->find("error_during_execution") != std::string::npos);
}
