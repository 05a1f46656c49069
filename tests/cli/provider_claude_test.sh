#!/usr/bin/env bash
# strata provider claude (issue 16, docs/PROVIDERS.md) against the fake claude of
# tests/support/fake_agent.py, which replays the public `claude -p --output-format stream-json`
# stream:
#   - a normal run: the answer's fields (from result.structured_output), the usage (cache reads
#     as cached input, cache writes and the uncached input added to the input), the reported cost
#     as agentReportedCostUsd, the tool calls (StructuredOutput not among them) and the byte telemetry
#     equal what is computed here from the same stream; the agent got the request as its prompt
#     on stdin (no path), print mode with stream-json, read-only permissions, no session kept,
#     the provider output schema inline, in the provider's working directory;
#   - debug lines that are not JSON are skipped (as the Agent SDK does); every failure (an error
#     result, an API error, a broken JSON line, a cut stream, no result, an answer outside the
#     schema, a non-zero exit, no output, a missing agent): exit 1, nothing on stdout, one line;
#   - the bounds (time, SIGTERM ignored with a grandchild, 100 MB of events, the stream limit);
#   - nothing of the prompt, the tool output, the thinking or a path reaches stdout or stderr.
# Usage: provider_claude_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
FLAVOUR=claude
. "$(dirname "$0")/agent_adapter_lib.sh"

# --- a normal run, checked against the stream itself ------------------------------------------------
provider normal
expect_code 0 "a normal run"
fake_stream normal "$WORK/stream.jsonl" -p --output-format stream-json --verbose --model test-model --json-schema '{}'
cat >"$WORK/expected.py" <<'PY'
# expected.py <stream.jsonl> <response.json> <request.json>: the response against the stream.
import json, sys
events = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
got = json.load(open(sys.argv[2]))
prompt_bytes = len(open(sys.argv[3], "rb").read())
compact = lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()
blocks = lambda kind: [b for e in events if e["type"] == kind for b in e["message"]["content"]]
uses = {b["id"]: b for b in blocks("assistant") if b["type"] == "tool_use" and b["name"] != "StructuredOutput"}
results = [b for b in blocks("user") if b["type"] == "tool_result" and b["tool_use_id"] in uses]
def result_bytes(content):
    if isinstance(content, str): return len(content.encode())
    return sum(len(b["text"].encode()) if b.get("type") == "text" else len(compact(b)) for b in content)
result = [e for e in events if e["type"] == "result"][-1]
usage, answer = result["usage"], result["structured_output"]
tool_output = sum(result_bytes(r["content"]) for r in results)
want = {"taskOutcome": answer["taskOutcome"], "evidenceQuality": answer["evidenceQuality"], "safetyOutcome": answer["safetyOutcome"],
        "clarificationRequests": answer["clarificationRequests"], "reworkCount": answer["reworkCount"],
        "inputTokens": usage["input_tokens"] + usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"],
        "outputTokens": usage["output_tokens"], "tokenMethod": "provider", "toolCalls": len(results)}
measurements = {m["name"]: m["value"] for m in answer["measurements"]}
measurements.update({"cachedInputTokens": usage["cache_read_input_tokens"],
                     "cacheCreationInputTokens": usage["cache_creation_input_tokens"],
                     "agentReportedCostUsd": result["total_cost_usd"],
                     "observedToolEventCount": len(uses) + len(results),
                     "observedToolInputBytes": sum(len(compact(uses[r["tool_use_id"]]["input"])) for r in results),
                     "observedToolOutputBytes": tool_output, "observedProviderInputBytes": prompt_bytes,
                     "observedAgentMessageBytes": sum(len(b["text"].encode()) for b in blocks("assistant") if b["type"] == "text")
                                                  + len(compact(answer)),
                     "observedContextBytes": prompt_bytes + tool_output})
problems = [f"{k}: got {got.get(k)!r}, expected {v!r}" for k, v in want.items() if got.get(k) != v]
problems += [f"measurements.{k}: got {got['measurements'].get(k)!r}, expected {v!r}" for k, v in measurements.items()
             if got["measurements"].get(k) != v]
if "reasoningOutputTokens" in got["measurements"]: problems.append("reasoningOutputTokens reported, claude has none")
if "agentCostUsd" in got["measurements"]: problems.append("agentCostUsd set by the adapter: it is the configured pricing's name")
if got["evidenceIds"] != [e.strip() for e in answer["evidenceIds"] if e.strip()]: problems.append("evidenceIds")
for name in ("stderrBytes", "observedProviderDurationMs", "timeToFirstToolEventMs"):
    if not isinstance(got["measurements"].get(name), (int, float)): problems.append(f"measurements.{name} missing")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
expect_true "python3 '$WORK/expected.py' '$WORK/stream.jsonl' '$WORK/stdout' '$WORK/request.json'" \
  "fields, usage with the cache, cost, tool calls and telemetry equal those computed from the stream"
cat >"$WORK/argv.py" <<'PY'
# argv.py <argv.json> <fixture schema>: print mode, stream-json, read-only, no session, the schema inline, prompt on stdin
import json, sys
a, reference = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
o = a["options"]
ok = (a["flavor"] == "claude" and a["argv"][1:5] == ["-p", "--output-format", "stream-json", "--verbose"]
      and "--no-session-persistence" in o and o["--permission-mode"] == ["dontAsk"]
      and o["--tools"] == ["Bash,Read"] and o["--disallowedTools"] == ["Edit,Write,NotebookEdit"] and o["--model"] == ["test-model"]
      and json.loads(o["--json-schema"][0]) == reference and a["positionals"] == [] and a["prompt_from_stdin"])
sys.exit(0 if ok else 1)
PY
expect_true "python3 '$WORK/argv.py' '$WORK/record/argv.json' '$FIX/study-provider-output.schema.3224164.json'" \
  "claude -p --output-format stream-json --verbose, read-only, no session kept, the reference's schema inline, the prompt on stdin"
expect_true "cmp -s '$WORK/record/prompt.txt' '$WORK/request.json'" "the prompt is the request"
expect_true "! grep -qF '$WORK' '$WORK/record/prompt.txt'" "no repository path in the prompt"
expect_true "[ \"\$(cat '$WORK/record/cwd.txt')\" = '$WORK/repo' ]" "the agent runs in the provider's working directory"
expect_true "[ -z \"\$(ls '$WORK/tmp')\" ]" "no file left in the temporary directory"
expect_true "! grep -qE 'SENTINEL|$WORK|README|entry point first|Sandbox' '$WORK/stdout' '$WORK/stderr'" \
  "nothing of the prompt, the tool output, the thinking or a path on stdout or stderr"
provider malformed-line
expect_code 0 "a debug line that is not JSON is skipped, as the Agent SDK does"
expect_true "python3 '$WORK/expected.py' '$WORK/stream.jsonl' '$WORK/stdout' '$WORK/request.json'" "the same response despite the debug line"

# --- failures ------------------------------------------------------------------------------------
refused turn-failed "the agent's run ended in an error (result error_during_execution, is_error)"
refused error-event "the agent's run ended in an error (result success, is_error)"
refused broken-json "of the event stream is not JSON"
refused cut "of the event stream is not JSON"
refused no-final-message "the event stream ended before the result event"
refused schema-violation "the agent's answer does not match the output schema"
refused nonzero-exit "the agent exited with status 3"
refused empty "the event stream ended before the result event"
refused normal "the agent command $WORK/none is not an executable file" --agent-command "$WORK/none"
for scenario in turn-failed error-event broken-json schema-violation; do
  provider "$scenario"
  expect_true "! grep -qE 'SENTINEL|$WORK|fake: tool loop|API Error' '$WORK/stdout' '$WORK/stderr'" "$scenario: no prompt, stream text or path in the message"
done
REQUEST=$WORK/judge-request.json
echo '{"protocol":"doc-bridge.study-adjudicator.v1"}' >"$REQUEST"
refused normal "the request on stdin is not a doc-bridge.study-provider.v1 request"
unset REQUEST

check_bounds

EXAMPLES=$(realpath "$(dirname "$0")/../../examples/agents")
run verify "$EXAMPLES/claude-provider-config.json"
expect_code 0 "the sealed example provider config verifies"
run seal provider-config "$EXAMPLES/claude-provider-config.payload.json"
expect_true "python3 -c 'import json,sys; sys.exit(json.loads(sys.argv[1]) != json.load(open(sys.argv[2])))' \"\$OUT\" '$EXAMPLES/claude-provider-config.json'" \
  "the sealed example is its payload sealed"

finish
