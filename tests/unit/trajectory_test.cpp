// ATIF trajectories from the agents' real streams (issue 45): the format's rules (steps numbered
// from 1, sources, each result on the step that made its call), what each normaliser keeps, the
// bounds and the redaction.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "strata/model/agents/claude_stream.hpp"
#include "strata/model/agents/codex_stream.hpp"
#include "strata/model/agents/copilot_stream.hpp"
#include "strata/model/agents/gemini_stream.hpp"
#include "strata/model/agents/opencode_stream.hpp"
#include "strata/model/agents/pi_stream.hpp"
#include "strata/model/agents/qwen_stream.hpp"
#include "strata/model/json/json_document.hpp"
#include "strata/model/trajectory/claude_trajectory.hpp"
#include "strata/model/trajectory/codex_trajectory.hpp"
#include "strata/model/trajectory/copilot_trajectory.hpp"
#include "strata/model/trajectory/gemini_trajectory.hpp"
#include "strata/model/trajectory/opencode_trajectory.hpp"
#include "strata/model/trajectory/pi_trajectory.hpp"
#include "strata/model/trajectory/trajectory_transcript.hpp"

using namespace strata::model;

namespace {

// What ATIF v1.7 requires of a trajectory that Harbor's validator checks: the problems found.
std::vector<std::string> atif_problems(const Json& t) {
  std::vector<std::string> problems;
  if (t.value("schema_version", "") != "ATIF-v1.7") problems.push_back("schema_version");
  if (!t.contains("agent") || !t["agent"].contains("name") || !t["agent"].contains("version")) problems.push_back("agent");
  if (!t.contains("steps") || !t["steps"].is_array() || t["steps"].empty()) return problems.push_back("steps"), problems;
  std::size_t expected = 1;
  for (const Json& step : t["steps"]) {
    if (step.value("step_id", std::size_t{0}) != expected++) problems.push_back("step_id " + std::to_string(expected - 1));
    const std::string source = step.value("source", "");
    if (source != "user" && source != "agent" && source != "system") problems.push_back("source " + source);
    if (!step.contains("message") || !step["message"].is_string()) problems.push_back("message");
    std::set<std::string> calls;
    for (const Json& call : step.value("tool_calls", Json::array())) {
      calls.insert(call.value("tool_call_id", ""));
      if (!call.contains("function_name") || !call["arguments"].is_object()) problems.push_back("tool call shape");
    }
    if (source != "agent" && (step.contains("tool_calls") || step.contains("metrics"))) problems.push_back("a non-agent step acts");
    if (step.contains("observation"))
      for (const Json& result : step["observation"]["results"])
        if (!calls.count(result.value("source_call_id", ""))) problems.push_back("a result of another step's call");
  }
  if (t["final_metrics"].value("total_steps", std::size_t{0}) != t["steps"].size()) problems.push_back("total_steps");
  return problems;
}

template <class Reader, class Normaliser>
Json trajectory_of(const std::vector<std::string>& lines, Normaliser normaliser) {
  Reader reader;
  double at = 0;
  for (const auto& line : lines) {
    reader.add_line(line, at += 10);
    normaliser.add_line(line, at);
  }
  return normaliser.finish(reader.turn());
}

}  // namespace

TEST_CASE("Claude Code's stream with a sub-agent as ATIF: steps, calls, results, metrics", "[trajectory]") {
  const Json t = trajectory_of<ClaudeStreamReader>(strata::test::captured_stream("claude-2.1.328-foreground-subagent.jsonl"),
                                                   ClaudeTrajectory("PROMPT-TEXT", {}, {}));
  CHECK(atif_problems(t).empty());
  const Json& steps = t["steps"];
  CHECK(steps[0]["source"] == "user");
  CHECK(steps[0]["message"] == "PROMPT-TEXT");
  CHECK(t["agent"]["name"] == "claude-code");
  CHECK(t["agent"]["version"] == "2.1.328");
  // The main loop's Agent call, its sub-agent's prompt, Read and report, then the answer.
  std::vector<std::string> calls;
  std::size_t subagent_steps = 0, with_metrics = 0, results = 0;
  for (const Json& step : steps) {
    for (const Json& call : step.value("tool_calls", Json::array())) calls.push_back(call["function_name"]);
    subagent_steps += step["extra"].contains("parent_tool_call_id");
    with_metrics += step.contains("metrics");
    if (step.contains("observation")) results += step["observation"]["results"].size();
  }
  CHECK(calls == std::vector<std::string>{"Agent", "Read", "StructuredOutput"});
  CHECK(results == 3);  // each call's result on its own step
  CHECK(subagent_steps >= 2);
  CHECK(with_metrics == 3);  // the three assistant messages: the sub-agent's report reaches the stream only as the Agent's result
  bool read_seen = false;
  for (const Json& step : steps)
    if (step.contains("observation"))
      for (const Json& result : step["observation"]["results"]) read_seen |= result["content"].get<std::string>().find("int main()") != std::string::npos;
  CHECK(read_seen);  // the Read's output, as the sub-agent saw it
  CHECK(t["final_metrics"]["total_prompt_tokens"] == 10000);
  CHECK(t["final_metrics"]["total_completion_tokens"] == 100);
  CHECK(t["final_metrics"]["total_cost_usd"].get<double>() == Approx(0.0315));
  CHECK(t["extra"]["strata"]["cut"]["fields"] == 0);
}

TEST_CASE("a background task's turn is marked, and nothing after the run's result is kept", "[trajectory]") {
  auto lines = strata::test::captured_stream("claude-2.1.328-background-task.jsonl");
  lines.push_back(R"({"type":"assistant","message":{"id":"late","content":[{"type":"text","text":"LATE"}]}})");
  const Json t = trajectory_of<ClaudeStreamReader>(lines, ClaudeTrajectory("p", {}, {}));
  CHECK(atif_problems(t).empty());
  std::vector<std::pair<std::string, int>> answers;  // each StructuredOutput call and its turn
  for (const Json& step : t["steps"])
    for (const Json& call : step.value("tool_calls", Json::array()))
      if (call["function_name"] == "StructuredOutput") answers.emplace_back(call["arguments"]["answer"], step["extra"].value("turn", 1));
  CHECK(answers == std::vector<std::pair<std::string, int>>{{"x", 1}, {"z", 2}});
  CHECK(t.dump().find("LATE") == std::string::npos);
}

TEST_CASE("Qwen Code's stream as ATIF: the read, the refused write, per-step tokens with the cache inside", "[trajectory]") {
  const auto lines = strata::test::captured_stream("qwen-0.24.4-read-and-refused-write.jsonl");
  ClaudeStreamReader reader(qwen_code_dialect());
  ClaudeTrajectory normaliser("PROMPT-TEXT", {}, {}, qwen_code_dialect());
  double at = 0;
  for (const auto& line : lines) {
    reader.add_line(line, at += 10);
    normaliser.add_line(line, at);
  }
  const Json t = normaliser.finish(reader.turn());
  CHECK(atif_problems(t).empty());
  CHECK(t["agent"]["name"] == "qwen-code");
  CHECK(t["agent"]["version"] == "0.24.4");
  const Json& steps = t["steps"];
  REQUIRE(steps.size() == 3);  // the prompt, the read and the write, the answer
  CHECK(steps[1]["tool_calls"].size() == 2);
  CHECK(steps[1]["observation"]["results"][0]["content"] == "int main() { return 0; }\n");
  CHECK(steps[1]["observation"]["results"][1]["content"].get<std::string>().find("declined") != std::string::npos);
  CHECK(steps[1]["metrics"]["prompt_tokens"] == 1000);  // the cache reads are inside it, not added
  CHECK(steps[1]["metrics"]["cached_tokens"] == 200);
  CHECK(steps[2]["tool_calls"][0]["function_name"] == "structured_output");
  CHECK(t["final_metrics"]["total_prompt_tokens"] == 2200);
  CHECK(t["final_metrics"]["total_completion_tokens"] == 60);
}

TEST_CASE("pi's stream as ATIF: a step per assistant message, each result on its call, per-step tokens", "[trajectory]") {
  const Json t = trajectory_of<PiStreamReader>(strata::test::captured_stream("pi-0.73.1-read-and-refused-write.jsonl"),
                                               PiTrajectory("PROMPT-TEXT", {}, {}));
  CHECK(atif_problems(t).empty());
  CHECK(t["agent"]["name"] == "pi");
  const Json& steps = t["steps"];
  REQUIRE(steps.size() == 3);  // the prompt (once, not the stream's copy too), the calls, the answer
  CHECK(steps[0]["message"] == "PROMPT-TEXT");
  CHECK(steps[1]["tool_calls"].size() == 2);
  CHECK(steps[1]["observation"]["results"][0]["content"] == "int main() { return 0; }\n");
  CHECK(steps[1]["observation"]["results"][1]["content"] == "Tool write not found");
  CHECK(steps[1]["metrics"]["prompt_tokens"] == 1000);  // 800 uncached + 200 cache reads
  CHECK(steps[1]["metrics"]["completion_tokens"] == 37);
  CHECK(steps[2]["message"] == R"({"a":1})");
  CHECK(t["final_metrics"]["total_prompt_tokens"] == 2200);
}

TEST_CASE("pi's failed attempts are system steps that say what failed", "[trajectory]") {
  const Json t = trajectory_of<PiStreamReader>(strata::test::captured_stream("pi-0.73.1-500-every-time.jsonl"), PiTrajectory("p", {}, {}));
  CHECK(atif_problems(t).empty());
  const Json& steps = t["steps"];
  REQUIRE(steps.size() == 5);  // the prompt, then the four attempts (the first and three retries)
  for (std::size_t i = 1; i < steps.size(); ++i) {
    CHECK(steps[i]["source"] == "system");
    CHECK(steps[i]["message"] == "model call failed (stopReason error): 500 scripted failure (500)");
  }
}

TEST_CASE("Copilot CLI's stream as ATIF: the calls and their results, the refusal's error, the run's tokens", "[trajectory]") {
  CopilotStreamReader reader;
  CopilotTrajectory normaliser("PROMPT-TEXT", {}, {});
  double at = 0;
  for (const auto& line : strata::test::captured_stream("copilot-1.0.102-read-and-refused-write.jsonl")) {
    reader.add_line(line, at += 10);
    normaliser.add_line(line, at);
  }
  std::string otel;
  for (const auto& line : strata::test::captured_stream("copilot-1.0.102-read-and-refused-write.otel.jsonl")) otel += line + "\n";
  reader.add_side_output(otel);
  const Json t = normaliser.finish(reader.turn());
  CHECK(atif_problems(t).empty());
  CHECK(t["agent"]["name"] == "copilot-cli");
  const Json& steps = t["steps"];
  REQUIRE(steps.size() == 3);  // the prompt, the calls, the answer
  CHECK(steps[1]["tool_calls"].size() == 2);
  std::set<std::string> results;  // in the order the calls completed: the refusal first
  for (const Json& result : steps[1]["observation"]["results"]) results.insert(result["content"].get<std::string>());
  CHECK(results == std::set<std::string>{"int main() { return 0; }\n", "error: Tool 'edit' does not exist."});
  CHECK(steps[2]["message"] == R"({"a":1})");
  CHECK(t["final_metrics"]["total_prompt_tokens"] == 2200);
  CHECK(t["final_metrics"]["total_completion_tokens"] == 60);
}

TEST_CASE("Codex's stream as ATIF: the command, its output and exit code, the answer", "[trajectory]") {
  const Json t = trajectory_of<CodexStreamReader>(strata::test::captured_stream("codex-0.169.0-command.jsonl"),
                                                  CodexTrajectory("PROMPT", {}, {}));
  CHECK(atif_problems(t).empty());
  const Json& steps = t["steps"];
  REQUIRE(steps.size() == 3);
  CHECK(steps[1]["tool_calls"][0]["function_name"] == "command_execution");
  CHECK(steps[1]["tool_calls"][0]["arguments"]["command"] == "/bin/bash -lc 'cat main.cpp'");
  CHECK(steps[1]["observation"]["results"][0]["content"] == "int main() { return 0; }\n\n[exit code 0]");
  CHECK(steps[2]["message"].get<std::string>().find("\"taskOutcome\":\"success\"") != std::string::npos);
  CHECK(t["final_metrics"]["total_prompt_tokens"] == 200);
  CHECK(t["session_id"] == "01a24fac-3646-7773-b0d8-aa9269f3cb5c");
}

TEST_CASE("Gemini CLI's stream as ATIF: the prompt it got, the sub-agent call, the streamed answer", "[trajectory]") {
  const Json t = trajectory_of<GeminiStreamReader>(strata::test::captured_stream("gemini-0.61.0-subagent.jsonl"),
                                                   GeminiTrajectory({}, {}));
  CHECK(atif_problems(t).empty());
  const Json& steps = t["steps"];
  REQUIRE(steps.size() == 3);
  CHECK(steps[0]["source"] == "user");
  CHECK(steps[0]["message"].get<std::string>().find("doc-bridge.study-provider.v1") != std::string::npos);
  CHECK(steps[1]["tool_calls"][0]["function_name"] == "invoke_agent");
  CHECK(steps[1]["tool_calls"][0]["arguments"]["agent_name"] == "codebase_investigator");
  CHECK(steps[1]["observation"]["results"].size() == 1);
  // The answer's pieces joined as they came: one JSON text.
  CHECK(parse_json(steps[2]["message"].get<std::string>())["taskOutcome"] == "success");
  CHECK(t["final_metrics"]["total_prompt_tokens"] == 8007);
  CHECK(t["agent"]["model_name"] == "gemini-2.5-pro");
}

TEST_CASE("OpenCode's stream as ATIF: a step per step, the task's report as its result, per-step tokens", "[trajectory]") {
  const Json t = trajectory_of<OpenCodeStreamReader>(strata::test::captured_stream("opencode-1.18.33-subagent.jsonl"),
                                                     OpenCodeTrajectory("PROMPT", {}, {}));
  CHECK(atif_problems(t).empty());
  const Json& steps = t["steps"];
  REQUIRE(steps.size() == 3);
  CHECK(steps[1]["tool_calls"][0]["function_name"] == "task");
  CHECK(steps[1]["observation"]["results"][0]["content"].get<std::string>().find("main.cpp holds main") != std::string::npos);
  CHECK(steps[1]["metrics"]["prompt_tokens"] == 1000);
  CHECK(steps[2]["metrics"]["completion_tokens"] == 40);
  CHECK(t["final_metrics"]["extra"]["subagent_tokens_unreported"] == true);
}

TEST_CASE("a trajectory is redacted and bounded, and says so", "[trajectory]") {
  const std::string secret = "sk-strata-SECRET-123456";
  AtifTrajectory t("test-agent", TrajectoryBounds{8, 20}, {secret, "ab"});
  const std::size_t step = t.add_step("agent", "key " + secret + " end", 0);
  t.add_tool_call(step, "c1", "shell", {{"cmd", "echo " + secret}});
  CHECK(t.add_observation("c1", "out"));
  CHECK_FALSE(t.add_observation("no-such-call", "x"));
  const Json j = t.finish(AgentTurn{});
  CHECK(j.dump().find("SECRET") == std::string::npos);
  CHECK(j["extra"]["strata"]["redactions"] == 2);  // "ab" is too short to be a secret
  CHECK(j["steps"][0]["message"] == "key [red");  // 8 bytes: the field's bound
  CHECK(j["extra"]["strata"]["cut"]["fields"].get<int>() >= 2);
  CHECK(j["extra"]["strata"]["kept_bytes"].get<int>() <= 20);  // the trajectory's bound
  CHECK(j["extra"]["strata"]["unmatched_tool_results"] == 1);
  // A cut never splits a UTF-8 sequence: "é" is two bytes.
  AtifTrajectory u("a", TrajectoryBounds{3, 100}, {});
  u.add_step("user", "aé", 0);
  u.add_step("user", "aaé", 0);
  const Json k = u.finish(AgentTurn{});
  CHECK(k["steps"][0]["message"] == "aé");
  CHECK(k["steps"][1]["message"] == "aa");
}

TEST_CASE("lines a normaliser cannot use are skipped", "[trajectory]") {
  ClaudeTrajectory claude("p", {}, {});
  CodexTrajectory codex("p", {}, {});
  GeminiTrajectory gemini({}, {});
  OpenCodeTrajectory opencode("p", {}, {});
  for (const char* line : {"not json", "[1,2]", "{\"type\":5}", R"({"type":"assistant","message":{"content":"x"}})",
                           R"({"type":"assistant","message":{"id":7,"content":[{"type":"tool_use","id":3}]}})",
                           R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"none"}]}})",
                           R"({"type":"item.completed","item":{"type":"command_execution","id":{},"exit_code":"x"}})",
                           R"({"type":"tool_use","tool_id":5,"parameters":"x"})", R"({"type":"tool_result","error":"x"})",
                           R"({"type":"message","role":"assistant","content":7})",
                           R"({"type":"tool_use","part":{"state":{"status":"error","input":[1]},"callID":[]}})",
                           R"({"type":"step_finish","part":{"tokens":{"input":-1,"cache":"x"}}})", ""}) {
    claude.add_line(line, 1);
    codex.add_line(line, 1);
    gemini.add_line(line, 1);
    opencode.add_line(line, 1);
  }
  CHECK(atif_problems(claude.finish(AgentTurn{})).empty());
  CHECK(atif_problems(codex.finish(AgentTurn{})).empty());
  CHECK(atif_problems(opencode.finish(AgentTurn{})).empty());
  // Gemini's has no step when the stream showed none; every step it made is well formed.
  const Json g = gemini.finish(AgentTurn{});
  if (!g["steps"].empty()) CHECK(atif_problems(g).empty());
}

TEST_CASE("a trajectory read back as a transcript: steps, calls, results, totals", "[trajectory]") {
  const Json t = trajectory_of<CodexStreamReader>(strata::test::captured_stream("codex-0.169.0-command.jsonl"),
                                                  CodexTrajectory("PROMPT\nsecond line", {}, {}));
  const std::vector<std::string> lines = trajectory_transcript(t);
  const auto has = [&](const std::string& text) {
    for (const auto& line : lines)
      if (line == text) return true;
    return false;
  };
  REQUIRE(lines.size() > 4);
  CHECK(lines[0].rfind("Trajectory: codex ", 0) == 0);
  CHECK(lines[0].find(", 3 steps, ATIF-v1.7") != std::string::npos);
  CHECK(has("  PROMPT"));
  CHECK(has("  second line"));  // a multi-line text indented under its step
  CHECK(has("  → command_execution {\"command\":\"/bin/bash -lc 'cat main.cpp'\"}  [" +
            t["steps"][1]["tool_calls"][0]["tool_call_id"].get<std::string>() + "]"));
  CHECK(has("  ← " + t["steps"][1]["tool_calls"][0]["tool_call_id"].get<std::string>() + ": int main() { return 0; }"));
  CHECK(lines.back().rfind("Cut: 0 fields (0 bytes); redactions: 0", 0) == 0);
  CHECK(has("Totals: 200 prompt, " + std::to_string(t["final_metrics"]["total_completion_tokens"].get<long>()) + " completion, " +
            std::to_string(t["final_metrics"]["total_cached_tokens"].get<long>()) + " cached tokens"));
  const Json summary = trajectory_summary(t);
  CHECK(summary["agent"] == "codex");
  CHECK(summary["steps"] == 3);
  CHECK(summary["promptTokens"] == 200);
}

TEST_CASE("a transcript of any ATIF document: missing or odd fields are shown as absent, never a failure", "[trajectory]") {
  const Json odd = parse_json(R"({"schema_version":"ATIF-v1.2","steps":[{"step_id":1,"source":"agent","message":[{"type":"text","text":"hi"}],
    "tool_calls":[{"function_name":"f"}],"observation":{"results":[{"content":null}]},"metrics":{"prompt_tokens":"x"}}, 7]})");
  std::vector<std::string> lines;
  REQUIRE_NOTHROW(lines = trajectory_transcript(odd));
  CHECK(lines[0] == "Trajectory:  , 2 steps, ATIF-v1.2");
  CHECK(lines[1] == "Step 1 · agent");  // tokens that are not numbers are not shown
  CHECK(lines[2] == R"(  [{"type":"text","text":"hi"}])");  // content parts shown as their JSON
  CHECK_NOTHROW(trajectory_transcript(parse_json("[]")));
  CHECK(trajectory_summary(parse_json("{}"))["steps"].is_null());
}
