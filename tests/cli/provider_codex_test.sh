#!/usr/bin/env bash
# strata provider codex (issue 16, docs/PROVIDERS.md) against the fake codex of
# tests/support/fake_agent.py, which replays the public `codex exec --json` stream:
#   - a normal run: the answer's fields, the usage, the tool calls and the byte telemetry equal
#     what is computed here from the same stream; the agent got the request as its prompt (task,
#     expected outcome, evidence requirements, acceptance checks, allowed tools, forbidden
#     actions, no repository path), the reference's output schema, a read-only ephemeral run in
#     the provider's working directory; the schema file is removed afterwards;
#   - every failure (failed turn, error event, malformed line, cut stream, no final message, an
#     answer outside the schema, a non-zero exit, no output, a missing agent, a request that is
#     not JSON, the time limit, the stream limit, an agent that ignores SIGTERM and leaves a
#     grandchild): exit 1, nothing on stdout, one line on stderr;
#   - 100 MB of events: read as they arrive, the right answer;
#   - nothing of the prompt, the tool output, the reasoning or a path reaches stdout or stderr.
# Usage: provider_codex_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
FLAVOUR=codex
. "$(dirname "$0")/agent_adapter_lib.sh"

# --- a normal run, checked against the stream itself ------------------------------------------------
provider normal
expect_code 0 "a normal run"
fake_stream normal "$WORK/stream.jsonl" exec --json --model test-model -
cat >"$WORK/expected.py" <<'PY'
# expected.py <stream.jsonl> <response.json> <request.json>: the response against the stream.
import json, math, sys
events = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
got = json.load(open(sys.argv[2]))
prompt_bytes = len(open(sys.argv[3], "rb").read())
TOOLS = {"command_execution", "mcp_tool_call", "web_search", "file_search", "computer"}
size = lambda v: 0 if v is None else len(v.encode()) if isinstance(v, str) else len(json.dumps(v, separators=(",", ":")).encode())
completed = [e["item"] for e in events if e["type"] == "item.completed" and e["item"]["type"] in TOOLS]
usage = [e for e in events if e["type"] == "turn.completed"][-1]["usage"]
answer_text = [e["item"]["text"] for e in events if e["type"] == "item.completed" and e["item"]["type"] == "agent_message"][-1]
answer = json.loads(answer_text)
messages = sum(len(e["item"]["text"].encode()) for e in events if e["type"] == "item.completed" and e["item"]["type"] == "agent_message")
tool_output = sum(size(i.get("aggregated_output")) + size(i.get("result")) for i in completed)
want = {"taskOutcome": answer["taskOutcome"], "evidenceQuality": answer["evidenceQuality"], "safetyOutcome": answer["safetyOutcome"],
        "clarificationRequests": answer["clarificationRequests"], "reworkCount": answer["reworkCount"],
        "inputTokens": usage["input_tokens"], "outputTokens": usage["output_tokens"], "tokenMethod": "provider",
        "toolCalls": len(completed)}
measurements = {m["name"]: m["value"] for m in answer["measurements"]}
measurements.update({"cachedInputTokens": usage["cached_input_tokens"],
                     "observedToolEventCount": sum(1 for e in events if e["type"].startswith("item.") and e["item"]["type"] in TOOLS),
                     "observedToolInputBytes": sum(size(i.get("command")) + size(i.get("arguments")) + size(i.get("query")) for i in completed),
                     "observedToolOutputBytes": tool_output, "observedProviderInputBytes": prompt_bytes,
                     "observedAgentMessageBytes": messages, "observedContextBytes": prompt_bytes + tool_output})
if "reasoning_output_tokens" in usage: measurements["reasoningOutputTokens"] = usage["reasoning_output_tokens"]
problems = [f"{k}: got {got.get(k)!r}, expected {v!r}" for k, v in want.items() if got.get(k) != v]
problems += [f"measurements.{k}: got {got['measurements'].get(k)!r}, expected {v!r}" for k, v in measurements.items()
             if got["measurements"].get(k) != v]
if got["evidenceIds"] != [e.strip() for e in answer["evidenceIds"] if e.strip()]: problems.append("evidenceIds")
for name in ("stderrBytes", "observedProviderDurationMs", "timeToFirstToolEventMs"):
    if not isinstance(got["measurements"].get(name), (int, float)): problems.append(f"measurements.{name} missing")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
expect_true "python3 '$WORK/expected.py' '$WORK/stream.jsonl' '$WORK/stdout' '$WORK/request.json'" \
  "fields, usage, tool calls and telemetry equal those computed from the stream"
expect_true "python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); sys.exit(not (a[\"flavor\"] == \"codex\" and a[\"argv\"][1:8] == [\"exec\", \"--json\", \"--ephemeral\", \"--ignore-user-config\", \"--skip-git-repo-check\", \"--sandbox\", \"read-only\"] and a[\"argv\"][-1] == \"-\" and a[\"options\"][\"--model\"] == [\"test-model\"] and a[\"output_schema_exists\"]))' '$WORK/record/argv.json'" \
  "codex exec --json, read-only, ephemeral, the user's config ignored, the model, the prompt on stdin"
expect_true "python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' '$WORK/record/output-schema.json' '$FIX/study-provider-output.schema.3224164.json'" \
  "the output schema is the reference's"
expect_true "cmp -s '$WORK/record/prompt.txt' '$WORK/request.json'" "the prompt is the request"
for part in SENTINEL-OBJECTIVE SENTINEL-OUTCOME entrypoint-evidence 'test -f src/main.cpp' '"allowedTools":["read","search"]' '"forbiddenActions":["network","write"]'; do
  expect_true "grep -qF -- '$part' '$WORK/record/prompt.txt'" "the prompt holds $part"
done
expect_true "! grep -qF '$WORK' '$WORK/record/prompt.txt'" "no repository path in the prompt"
expect_true "[ \"\$(cat '$WORK/record/cwd.txt')\" = '$WORK/repo' ]" "the agent runs in the provider's working directory"
expect_true "[ -z \"\$(ls '$WORK/tmp')\" ]" "the schema file is removed after the run"
expect_true "! grep -qE 'SENTINEL|$WORK|README|Looking for' '$WORK/stdout' '$WORK/stderr'" \
  "nothing of the prompt, the tool output, the reasoning or a path on stdout or stderr"

# --- failures ------------------------------------------------------------------------------------
refused turn-failed "the turn failed (turn.failed)"
refused error-event "the agent reported an error and the run did not complete"
refused malformed-line "of the event stream is not JSON"
refused cut "of the event stream is not JSON"
refused no-final-message "the run completed without a final message"
refused schema-violation "the agent's answer does not match the output schema"
refused nonzero-exit "the agent exited with status 3"
refused empty "the event stream ended before turn.completed"
refused normal "the agent command $WORK/none is not an executable file" --agent-command "$WORK/none"
expect_true "[ -z \"\$(ls '$WORK/tmp')\" ]" "no schema file left by the failures"
for scenario in turn-failed error-event malformed-line schema-violation; do
  provider "$scenario"
  expect_true "! grep -qE 'SENTINEL|$WORK' '$WORK/stdout' '$WORK/stderr'" "$scenario: no prompt or path in the message"
done
echo 'not json' >"$WORK/bad-request.json"
(cd "$WORK/repo" && "$STRATA" provider codex <"$WORK/bad-request.json" >"$WORK/stdout" 2>"$WORK/stderr")
CODE=$?
expect_code 1 "a request that is not JSON"
expect_true "grep -q 'the request on stdin is not JSON' '$WORK/stderr'" "the request is named"

check_bounds
# --- the deterministic arm: the doc-bridge query's handoff in the prompt -------------------------------
ln -s "$(realpath "$(dirname "$0")/../support/fake_ak_docs.sh")" "$WORK/bin/ak-docs"
mkdir -p "$WORK/query"
export FAKE_QUERY_RECORD=$WORK/query
provider normal --doc-bridge-query entrypoint consumer-01
expect_code 0 "the deterministic arm"
expect_true "[ \"\$(cat '$WORK/query/args' | tr '\n' ' ')\" = 'query entrypoint consumer-01 --agent ' ]" "ak-docs query TYPE ID --agent"
expect_true "[ \"\$(cat '$WORK/query/cwd')\" = '$WORK/repo' ]" "the query runs in the repository"
expect_true "python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2])); h=p[\"deterministicDocBridgeHandoff\"]; sys.exit(not (h == json.dumps({\"startHere\": [\"src/main.cpp\"], \"readBeforeEditing\": [\"docs/ARCHITECTURE.md\"]}, separators=(\",\", \":\")) and p[\"deterministicDocBridgeInstruction\"].startswith(\"Use deterministicDocBridgeHandoff as the first evidence source\") and r[\"measurements\"][\"observedDocBridgeHandoffBytes\"] == len(h.encode()) and r[\"measurements\"][\"observedProviderInputBytes\"] == len(open(sys.argv[1], \"rb\").read())))' '$WORK/record/prompt.txt' '$WORK/stdout'" \
  "the prompt carries the instruction and the compact handoff; its bytes are in the telemetry"
FAKE_QUERY=fail refused normal "the doc-bridge query exited with status 4" --doc-bridge-query entrypoint consumer-01
FAKE_QUERY=text refused normal "the doc-bridge query's output is not JSON" --doc-bridge-query entrypoint consumer-01
refused normal "the doc-bridge query command $WORK/none is not an executable file" --doc-bridge-query entrypoint consumer-01 --query-command "$WORK/none"

EXAMPLES=$(realpath "$(dirname "$0")/../../examples/agents")
run verify "$EXAMPLES/codex-provider-config.json"
expect_code 0 "the sealed example provider config verifies"
run seal provider-config "$EXAMPLES/codex-provider-config.payload.json"
expect_true "python3 -c 'import json,sys; sys.exit(json.loads(sys.argv[1]) != json.load(open(sys.argv[2])))' \"\$OUT\" '$EXAMPLES/codex-provider-config.json'" \
  "the sealed example is its payload sealed"
finish
