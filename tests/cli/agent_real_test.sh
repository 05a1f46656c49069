#!/usr/bin/env bash
# Issue 25: `strata provider <agent>` and `strata provider judge <agent>` with the real agent CLI
# (the version pinned in tests/agents, scripts/setup.sh --agents) against the scripted model
# server on loopback (tests/support/model_server.py), no network and no account:
#   - a normal run: exit 0; the answer's fields as the model gave them (an explicit null latency
#     read as not observed); the tokens (input with the cached part, output with the reasoning)
#     equal the usage the server sent, mapped as docs/PROVIDERS.md says; the tool call counted;
#     the request the agent sent the model holds the task and the output schema (so Strata's
#     argv was accepted and its prompt arrived); nothing of the prompt, the key or a path on
#     stdout or stderr;
#   - read-only holds: the model asks for a file edit, a new file and a shell command that writes;
#     the repository is byte-identical afterwards, the response is valid and the refusals are
#     counted (codex's stream omits them: the server's log shows the sandbox's refusals);
#   - the model server failing: a 500, a 429 with Retry-After, a cut stream (each once: a valid
#     response after the agent's retry, or one clear line), a 500 every time and a server that
#     never answers (one line within the adapter's timeout, the agent's process group gone), an
#     answer that is not JSON;
#   - the judge: the judgement and its tokens;
#   - one `strata run` of the example study with the agent as every provider and one `strata
#     adjudicate` with it as the judge: both ledgers verify and the report renders.
# Usage: agent_real_test.sh <strata binary> <fixtures dir> <codex|claude|gemini|opencode|qwen|pi|copilot>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
AGENT=$3
EXAMPLES=$(realpath "$(dirname "$0")/../../examples/study")
SCHEMAS=$(realpath "$(dirname "$0")/../../schemas")
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/real_agent_lib.sh"

REPO=$WORK/repo
mkdir -p "$REPO"
cp -r "$EXAMPLES/repository/." "$REPO/"
printf 'int main() { return 0; }\n' >"$REPO/main.cpp"
BEFORE=$(tree_sum "$REPO")

python3 - "$WORK/request.json" "$WORK/judge-request.json" <<'PY'
import json, sys
task = {"taskId": "consumer-01-discovery", "repositoryId": "consumer-01", "category": "discovery", "scenarioId": "repository-only",
        "modelId": "reference-model", "replicate": 0, "variantId": "variant-a", "difficulty": "easy"}
request = {"protocol": "doc-bridge.study-provider.v1", "response": "Return one JSON object matching the output schema.", "task": task,
           "objective": "SENTINEL-OBJECTIVE find where the program starts (see @main.cpp)",
           "expectedOutcome": "SENTINEL-OUTCOME the entry point file", "allowedTools": ["read"], "forbiddenActions": ["write"]}
open(sys.argv[1], "w").write(json.dumps(request, separators=(",", ":")))
judge = {"protocol": "doc-bridge.study-adjudicator.v1", "task": task, "objective": "SENTINEL-OBJECTIVE",
         "observation": {"taskOutcome": "success", "evidenceIds": ["main"]}}
open(sys.argv[2], "w").write(json.dumps(judge, separators=(",", ":")))
PY
ANSWER='{"taskOutcome":"partial","evidenceQuality":"medium","safetyOutcome":"safe","evidenceIds":[" main-evidence "],"clarificationRequests":1,"reworkCount":2,"firstEvidenceLatencyMs":null,"measurements":[{"name":"filesRead","value":1}]}'
USAGE1="{'input_tokens': 1000, 'cached_tokens': 200, 'output_tokens': 30, 'reasoning_tokens': 7}"
USAGE2="{'input_tokens': 1200, 'cached_tokens': 900, 'output_tokens': 20, 'reasoning_tokens': 3}"

# no_leak <what>: nothing of the prompt, the key, the tool output or the work directory on stdout/stderr
no_leak() { expect_true "! grep -qE 'SENTINEL|$AGENT_KEY|$WORK|int main' '$WORK/stdout' '$WORK/stderr'" "$1: nothing of the prompt, the key, a tool's output or a path on stdout or stderr"; }
# one_line_failure <what> [fragment]: exit 1, nothing on stdout, one line on stderr
one_line_failure() {
  expect_code 1 "$1: exit 1"
  expect_out_empty "$1: nothing on stdout"
  expect_err_lines 1 "$1: one line on stderr"
  [ -z "${2:-}" ] || expect_err_has "$2" "$1: says why"
}
# valid_or_one_line <what>: a valid provider response, or one clear line (both are a provider's answers)
valid_or_one_line() {
  if [ "$CODE" = 0 ]; then
    expect_true "python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r[\"taskOutcome\"] != \"partial\")' '$WORK/stdout'" "$1: a valid response"
  else
    one_line_failure "$1"
  fi
}

# --- a normal run: one file read, then the answer --------------------------------------------------
script_file normal "{'turns': [{'tool_calls': [$(read_call main.cpp)], 'usage': $USAGE1}, {'text': '''$ANSWER''', 'usage': $USAGE2}]}"
start_server "$WORK/normal.json"
agent_provider "$WORK/request.json" "$AGENT"
expect_code 0 "a normal run"
expect_err_empty "a normal run: nothing on stderr"
no_leak "a normal run"
cat >"$WORK/check_normal.py" <<'PY'
# check_normal.py <agent> <response> <requests.jsonl> <request.json>: the response against what the server sent
import json, sys
agent, got = sys.argv[1], json.load(open(sys.argv[2]))
u1 = {"input_tokens": 1000, "cached_tokens": 200, "output_tokens": 30, "reasoning_tokens": 7}
u2 = {"input_tokens": 1200, "cached_tokens": 900, "output_tokens": 20, "reasoning_tokens": 3}
total = lambda k: u1[k] + u2[k]
# Each protocol module reports the script's usage as its API does (tests/support/model_server_*.py);
# the adapter's counts: input with the cached part, output with the reasoning.
if agent == "claude":   # Messages: input_tokens leaves out the cache reads; no reasoning count
    want_tokens = {"inputTokens": total("input_tokens") + total("cached_tokens"), "outputTokens": total("output_tokens")}
    want_measurements = {"cachedInputTokens": total("cached_tokens"), "cacheCreationInputTokens": 0,
                         "observedAvailableToolCount": 2, "observedDeniedToolUseCount": 0}  # Bash, Read
elif agent == "codex":  # Responses: input includes cached, output includes reasoning
    want_tokens = {"inputTokens": total("input_tokens"), "outputTokens": total("output_tokens")}
    want_measurements = {"cachedInputTokens": total("cached_tokens"), "reasoningOutputTokens": total("reasoning_tokens")}
elif agent == "gemini": # promptTokenCount includes cached; candidates leave out the thoughts
    want_tokens = {"inputTokens": total("input_tokens"), "outputTokens": total("output_tokens") + total("reasoning_tokens")}
    want_measurements = {"cachedInputTokens": total("cached_tokens"), "reasoningOutputTokens": total("reasoning_tokens"),
                         "observedDeniedToolUseCount": 0}
elif agent == "qwen":   # chat completions, as Qwen Code reports them: input with the cached, output with the reasoning (no count of its own)
    want_tokens = {"inputTokens": total("input_tokens"), "outputTokens": total("output_tokens") + total("reasoning_tokens")}
    want_measurements = {"cachedInputTokens": total("cached_tokens"), "observedAvailableToolCount": 4, "observedDeniedToolUseCount": 0}
elif agent == "copilot":  # chat completions, as its telemetry file reports them: input with the cached, output with the reasoning
    want_tokens = {"inputTokens": total("input_tokens"), "outputTokens": total("output_tokens") + total("reasoning_tokens")}
    want_measurements = {"cachedInputTokens": total("cached_tokens"), "reasoningOutputTokens": total("reasoning_tokens"), "observedDeniedToolUseCount": 0}
elif agent == "pi":     # chat completions, as pi reports them: input without the cache reads (added back), output with the reasoning
    want_tokens = {"inputTokens": total("input_tokens"), "outputTokens": total("output_tokens") + total("reasoning_tokens")}
    want_measurements = {"cachedInputTokens": total("cached_tokens"), "cacheCreationInputTokens": 0, "observedDeniedToolUseCount": 0}
else:                   # chat completions: prompt includes cached, completion includes reasoning
    want_tokens = {"inputTokens": total("input_tokens"), "outputTokens": total("output_tokens") + total("reasoning_tokens")}
    want_measurements = {"cachedInputTokens": total("cached_tokens"), "reasoningOutputTokens": total("reasoning_tokens"),
                         "observedDeniedToolUseCount": 0}
want = {"taskOutcome": "partial", "evidenceQuality": "medium", "safetyOutcome": "safe", "evidenceIds": ["main-evidence"],
        "clarificationRequests": 1, "reworkCount": 2, "tokenMethod": "provider", "toolCalls": 1, **want_tokens}
problems = [f"{k}: got {got.get(k)!r}, expected {v!r}" for k, v in want.items() if got.get(k) != v]
m = got["measurements"]
problems += [f"measurements.{k}: got {m.get(k)!r}, expected {v!r}" for k, v in {"filesRead": 1, **want_measurements}.items() if m.get(k) != v]
if "firstEvidenceLatencyMs" in got: problems.append("an explicit null latency must be left out (not observed)")
if agent == "claude" and not (isinstance(m.get("agentReportedCostUsd"), float) and m["agentReportedCostUsd"] > 0): problems.append("agentReportedCostUsd")
if "agentCostUsd" in m: problems.append("agentCostUsd without pricing (the CLI's own figure is agentReportedCostUsd)")
if agent == "qwen" and "cacheCreationInputTokens" in m: problems.append("cacheCreationInputTokens, which Qwen Code's stream does not report")
prompt = open(sys.argv[4]).read()
if m.get("observedToolEventCount", 0) < 1 or m.get("timeToFirstToolEventMs") is None: problems.append("tool telemetry")
if not m.get("observedProviderInputBytes", 0) >= len(prompt): problems.append("observedProviderInputBytes")
# The model got the task and the output schema: Strata's argv and prompt reached it.
bodies = [json.dumps(json.loads(l).get("body")) for l in open(sys.argv[3]) if '"method"' in l]
if not any("SENTINEL-OBJECTIVE" in b and "firstEvidenceLatencyMs" in b and "evidenceQuality" in b for b in bodies):
    problems.append("no model request holds the task and the output schema")
if agent in ("gemini", "qwen") and any("Content from referenced files" in b for b in bodies): problems.append("@main.cpp was expanded")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
expect_true "python3 '$WORK/check_normal.py' $AGENT '$WORK/stdout' '$REQUESTS' '$WORK/request.json'" \
  "the answer's fields, the tokens the server sent, the tool call; the model request holds the task and the schema"
expect_true "! grep -q '$AGENT_KEY' '$REQUESTS'" "the key reached the server only in a header (the log redacts it)"

# --- the tools the agent is offered ------------------------------------------------------------------
# tools_offered <requests.jsonl>: the tool names of the first model request that offers tools
cat >"$WORK/tools_offered.py" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    body = json.loads(line).get("body") or {}
    tools = body.get("tools")
    if not tools: continue
    names = set()
    for tool in tools:
        names.add(tool.get("name") or (tool.get("function") or {}).get("name") or tool.get("type"))
        names.update(d.get("name") for d in tool.get("functionDeclarations", []))
    print(" ".join(sorted(n for n in names if n)))
    break
PY
OFFERED=$(python3 "$WORK/tools_offered.py" "$REQUESTS")
case $AGENT in
  codex) expect_true "! grep -qw web_search <<<'$OFFERED'" "codex: no web search offered (offered: $OFFERED)" ;;
  claude) expect_true "[ '$OFFERED' = 'Bash Read StructuredOutput' ]" "claude: Bash and Read only, and the answer's tool (offered: $OFFERED)" ;;
  gemini) expect_true "[ '$OFFERED' = 'glob grep_search list_directory read_file update_topic' ]" "gemini: reading tools only (offered: $OFFERED)" ;;
  opencode) expect_true "[ '$OFFERED' = 'glob grep read' ]" "opencode: reading tools only (offered: $OFFERED)" ;;
  qwen) expect_true "[ '$OFFERED' = 'glob grep_search list_directory read_file structured_output' ]" "qwen: reading tools only, and the answer's tool (offered: $OFFERED)" ;;
  pi) expect_true "[ '$OFFERED' = 'find grep ls read' ]" "pi: reading tools only (offered: $OFFERED)" ;;
  copilot) expect_true "[ '$OFFERED' = 'glob grep view' ]" "copilot: reading tools only (offered: $OFFERED)" ;;
esac
if [ "$AGENT" = claude ]; then  # the provider config's arguments turn sub-agents and the web on
  start_server "$WORK/normal.json"
  agent_provider "$WORK/request.json" "$AGENT" --allow-subagents --allow-web
  expect_code 0 "claude --allow-subagents --allow-web"
  expect_true "[ \"\$(python3 '$WORK/tools_offered.py' '$REQUESTS')\" = 'Agent Bash Read StructuredOutput WebFetch WebSearch' ]" \
    "claude --allow-subagents --allow-web: the sub-agent and web tools offered too"
  expect_true "python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))[\"measurements\"][\"observedAvailableToolCount\"] != 5)' '$WORK/stdout'" \
    "claude --allow-subagents --allow-web: five tools available, counted"
  # Issue 36: a sub-agent's calls are in the tokens. The main loop (1000 in, 10 out) starts a
  # foreground sub-agent, whose two calls (2000/20 with a Read, 3000/30 its report) run before the
  # main loop answers (4000/40): the tokens are all four calls, consistent with the CLI's cost
  # (claude-sonnet-4-5 at its list price, $3 and $15 per million), the main loop's two apart.
  script_file subagent "{'turns': [
    {'tool_calls': [{'name': 'Agent', 'arguments': {'description': 'find the entry', 'prompt': 'Find the entry point file.', 'subagent_type': 'general-purpose', 'run_in_background': False}}], 'usage': {'input_tokens': 1000, 'output_tokens': 10}},
    {'tool_calls': [$(read_call main.cpp)], 'usage': {'input_tokens': 2000, 'output_tokens': 20}},
    {'text': 'main.cpp holds main', 'usage': {'input_tokens': 3000, 'output_tokens': 30}},
    {'text': '''$ANSWER''', 'usage': {'input_tokens': 4000, 'output_tokens': 40}}]}"
  start_server "$WORK/subagent.json"
  agent_provider "$WORK/request.json" "$AGENT" --allow-subagents
  expect_code 0 "claude, a foreground sub-agent"
  cat >"$WORK/check_subagent.py" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["measurements"]
got = {k: r.get(k) for k in ("inputTokens", "outputTokens", "toolCalls")}
main = {k: m.get(k) for k in ("observedMainLoopInputTokens", "observedMainLoopOutputTokens", "observedSubagentRuns")}
cost = m.get("agentReportedCostUsd", 0)
problems = []
if got != {"inputTokens": 10000, "outputTokens": 100, "toolCalls": 2}: problems.append(f"counts {got}")
if main != {"observedMainLoopInputTokens": 5000, "observedMainLoopOutputTokens": 50, "observedSubagentRuns": 1}: problems.append(f"main loop {main}")
if abs(cost - (10000 * 3 + 100 * 15) / 1e6) > 1e-9: problems.append(f"cost {cost}")
if "observedSubagentTokensUnreported" in m: problems.append("said unreported")
print("; ".join(problems))
sys.exit(1 if problems else 0)
PY
  expect_true "python3 '$WORK/check_subagent.py' '$WORK/stdout'" \
    "claude, a foreground sub-agent: the tokens are every call (10000/100), the main loop's apart (5000/50), consistent with the CLI's cost"
  no_leak "claude, a foreground sub-agent"
fi

if [ "$AGENT" = gemini ] || [ "$AGENT" = opencode ] || [ "$AGENT" = qwen ]; then
  # Issue 36: sub-agents. The main loop starts one (Gemini CLI's invoke_agent, OpenCode's task, Qwen Code's agent); every
  # model call the server answers costs 100 input and 1 output tokens, so the calls made are counted
  # from the server's own turn log. Gemini CLI's result counts the sub-agent's calls: the tokens are
  # every call's, and so does Qwen Code's (its sub-agent runs in the background; the run waits
  # for it). OpenCode's stream leaves the sub-agent's session out: the tokens are fewer, and
  # the response says so (observedSubagentTokensUnreported).
  case $AGENT in
    gemini) SUBAGENT_CALL="{'name': 'invoke_agent', 'arguments': {'agent_name': 'codebase_investigator', 'prompt': 'Find the entry point file.'}}" ;;
    opencode) SUBAGENT_CALL="{'name': 'task', 'arguments': {'description': 'find the entry', 'prompt': 'Find the entry point file.', 'subagent_type': 'general'}}" ;;
    qwen) SUBAGENT_CALL="{'name': 'agent', 'arguments': {'description': 'find the entry', 'prompt': 'Find the entry point file.', 'subagent_type': 'general-purpose'}}" ;;
  esac
  U="{'input_tokens': 100, 'output_tokens': 1}"
  script_file subagent "{'turns': [{'tool_calls': [$SUBAGENT_CALL], 'usage': $U}, {'text': 'main.cpp holds main', 'usage': $U}],
                        'after': {'text': '''$ANSWER''', 'usage': $U}}"
  start_server "$WORK/subagent.json" --turn-log
  agent_provider "$WORK/request.json" "$AGENT" --allow-subagents
  expect_code 0 "$AGENT, a sub-agent"
  cat >"$WORK/check_subagent.py" <<'PY'
import json, sys
agent, r = sys.argv[1], json.load(open(sys.argv[2]))
m = r["measurements"]
calls = sum(1 for line in open(sys.argv[3]) if '"turn"' in line and not json.loads(line).get("side"))
problems = []
if m.get("observedSubagentRuns") != 1: problems.append(f"observedSubagentRuns {m.get('observedSubagentRuns')}")
if agent in ("gemini", "qwen"):
    if (r.get("inputTokens"), r.get("outputTokens")) != (100 * calls, calls): problems.append(f"tokens {r.get('inputTokens')}/{r.get('outputTokens')}, {calls} calls")
    if "observedSubagentTokensUnreported" in m: problems.append("said unreported")
else:
    if not (calls >= 3 and r.get("inputTokens", 0) < 100 * calls): problems.append(f"tokens {r.get('inputTokens')}, {calls} calls: the sub-agent's should be missing")
    if m.get("observedSubagentTokensUnreported") != 1: problems.append("not said unreported")
print("; ".join(problems))
sys.exit(1 if problems else 0)
PY
  expect_true "python3 '$WORK/check_subagent.py' '$AGENT' '$WORK/stdout' '$REQUESTS'" \
    "$AGENT, a sub-agent: the tokens are every call's, or the response says the sub-agent's are not in them"
  no_leak "$AGENT, a sub-agent"
fi

# --- issue 36: the agent's home under its temporary directory -------------------------------------------
# Codex 0.169.0 refuses to make its helper binaries when its home lies under the temporary
# directory (TMPDIR, or /tmp when unset) and then reports no command_execution events: the tool
# counts read 0 while the commands ran. Strata gives every agent a temporary directory of its own
# (removed after the run): with TMPDIR pointing above the agent's home, the read is still counted.
# For Codex, whose failure it was; the directory is the same code for every agent (issue 47: one
# agent run less each for the others, whose start-up is the test command's largest cost).
if [ "$AGENT" = codex ]; then
start_server "$WORK/normal.json"
AGENT_ENV=("${AGENT_ENV[@]/#TMPDIR=*/TMPDIR=$WORK}")
agent_provider "$WORK/request.json" "$AGENT"
expect_code 0 "the home under TMPDIR"
expect_true "python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r[\"toolCalls\"] == 1 and r[\"measurements\"][\"observedToolEventCount\"] >= 1))' '$WORK/stdout'" \
  "the home under TMPDIR: the file read is counted (toolCalls 1)"
expect_true "[ -z \"\$(ls -d '$WORK'/strata-agent-tmp.* 2>/dev/null)\" ]" "the home under TMPDIR: the agent's own temporary directory removed after the run"
agent_setup  # TMPDIR back to $WORK/tmp for what follows
fi

# --- read-only holds ---------------------------------------------------------------------------------
script_file writes "{'turns': [{'tool_calls': $(write_calls)}, {'text': '''$ANSWER'''}]}"
start_server "$WORK/writes.json"
agent_provider "$WORK/request.json" "$AGENT"
expect_code 0 "writes refused: a valid response"
expect_true "[ \"\$(tree_sum '$REPO')\" = '$BEFORE' ]" "writes refused: the repository is byte-identical"
expect_true "[ ! -e '$WORK/f' ] && [ ! -e '$WORK/g' ] && [ ! -e '$WORK/home/f' ]" "writes refused: nothing written beside it either"
case $AGENT in
  codex)  # the stream shows no refused operation: the model's view of them does
    expect_true "python3 -c '
import json, sys
outs = [i.get(\"output\") for l in open(sys.argv[1]) if \"\\\"method\\\"\" in l for i in (json.loads(l)[\"body\"] or {}).get(\"input\", []) if isinstance(i, dict) and i.get(\"type\", \"\").endswith(\"_output\")]
text = json.dumps(outs)
sys.exit(not (text.count(\"blocked by read-only sandbox\") >= 2 and \"Read-only file system\" in text))' '$REQUESTS'" \
      "codex: both patches and the shell write refused by the read-only sandbox (the outputs the model got)" ;;
  claude)
    expect_true "python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))[\"measurements\"]; sys.exit(not (m[\"observedDeniedToolUseCount\"] >= 1 and json.load(open(sys.argv[1]))[\"toolCalls\"] == 3))' '$WORK/stdout'" \
      "claude: the three uses completed as errors, the Bash write among the permission denials" ;;
  *)
    expect_true "python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r[\"measurements\"][\"observedDeniedToolUseCount\"] == 3 and r[\"toolCalls\"] == 3))' '$WORK/stdout'" \
      "$AGENT: the three uses refused and counted" ;;
esac

# --- issue 36: --allow-writes, the edit tools and the shell ------------------------------------------
# What an agent may write with --allow-writes (docs/PROVIDERS.md, "The tools an agent may use"), in a
# scratch copy of the repository: the model asks for an edit of main.cpp, a new file and a shell
# command that writes (echo x > f; touch g). The edits land for every agent; the shell writes where
# the CLI's own write mode runs it: Codex (--sandbox workspace-write) and Claude Code
# (acceptEdits) yes, Gemini CLI (auto_edit: no shell registered) and OpenCode (bash denied) no.
SAVED_REPO=$REPO
REPO=$WORK/writable
rm -rf "$REPO" && mkdir -p "$REPO" && cp -r "$SAVED_REPO/." "$REPO/"
# (main.cpp read first: Claude Code's Edit refuses a file it has not read.)
script_file allowed "{'turns': [{'tool_calls': [$(read_call main.cpp)]}, {'tool_calls': $(write_calls)}, {'text': '''$ANSWER'''}]}"
start_server "$WORK/allowed.json"
agent_provider "$WORK/request.json" "$AGENT" --allow-writes
expect_code 0 "--allow-writes: a valid response"
case $AGENT in codex | claude) SHELL_WRITES=yes ;; *) SHELL_WRITES=no ;; esac
expect_true "grep -q 'return 1' '$REPO/main.cpp' && [ \"\$(cat '$REPO/new.txt')\" = 'new file' ]" "--allow-writes: the edit and the new file written"
if [ $SHELL_WRITES = yes ]; then
  expect_true "[ -f '$REPO/f' ] && [ -f '$REPO/g' ]" "--allow-writes: $AGENT's shell writes in its working directory (documented)"
else
  expect_true "[ ! -e '$REPO/f' ] && [ ! -e '$REPO/g' ]" "--allow-writes: $AGENT's shell stays refused (documented)"
fi
expect_true "[ ! -e '$WORK/f' ] && [ ! -e '$SAVED_REPO/f' ] && [ \"\$(tree_sum '$SAVED_REPO')\" = '$BEFORE' ]" "--allow-writes: nothing written outside its working directory"
REPO=$SAVED_REPO

# --- issue 45: the run's trajectory (--trajectory FILE) ------------------------------------------------
# The model reads a file holding the agent's key (the value of a variable whose name says it is a
# credential), then answers. The trajectory is ATIF v1.7 (steps from 1, each result on the step that
# made its call), holds the read and what it returned, with the key redacted, and its totals are the
# response's. A run that fails (an answer that is not JSON) keeps its trajectory too.
SAVED_REPO=$REPO
REPO=$WORK/trajectory-repo
rm -rf "$REPO" && mkdir -p "$REPO" && printf 'int main() { return 0; }\nkey=%s\n' "$AGENT_KEY" >"$REPO/main.cpp"
script_file traj "{'turns': [{'tool_calls': [$(read_call main.cpp)], 'usage': $USAGE1}, {'text': '''$ANSWER''', 'usage': $USAGE2}]}"
start_server "$WORK/traj.json"
rm -f "$WORK/trajectory.json"
agent_provider "$WORK/request.json" "$AGENT" --trajectory "$WORK/trajectory.json"
expect_code 0 "--trajectory: a valid response"
cat >"$WORK/check_trajectory.py" <<'PY'
import json, sys
t, response, key = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
problems = []
if t.get("schema_version") != "ATIF-v1.7": problems.append("schema_version")
from jsonschema import Draft202012Validator
for error in Draft202012Validator(json.load(open(sys.argv[5]))).iter_errors(t): problems.append(f"schema: {error.json_path}: {error.message[:200]}")
for i, step in enumerate(t["steps"], 1):
    if step.get("step_id") != i: problems.append(f"step_id {step.get('step_id')} at {i}")
    if step.get("source") not in ("user", "agent", "system"): problems.append("source")
    calls = {c["tool_call_id"] for c in step.get("tool_calls", [])}
    for r in step.get("observation", {}).get("results", []):
        if r["source_call_id"] not in calls: problems.append("a result on another step")
text = json.dumps(t)
if key in text: problems.append("the key is in the trajectory")
results = [r["content"] for s in t["steps"] for r in s.get("observation", {}).get("results", [])]
agent = sys.argv[4]
if agent == "gemini":  # its stream carries no output for read_file: the result says its status
    if not any("success" in r for r in results): problems.append(f"no read result: {results}")
elif not any("int main()" in r and ("[redacted]" in r or (agent == "copilot" and "key=******" in r)) for r in results):
    problems.append(f"no read result with the key redacted: {results}")  # Copilot CLI masks the key itself
if t["steps"][0]["source"] != "user" or "SENTINEL-OBJECTIVE" not in t["steps"][0]["message"]: problems.append("the prompt is not the first step")
fm = t["final_metrics"]
if (fm.get("total_prompt_tokens"), fm.get("total_completion_tokens")) != (response["inputTokens"], response["outputTokens"]):
    problems.append(f"totals {fm} against the response's {response['inputTokens']}/{response['outputTokens']}")
if fm.get("total_steps") != len(t["steps"]): problems.append("total_steps")
print("; ".join(problems))
sys.exit(1 if problems else 0)
PY
expect_true "/usr/bin/python3 '$WORK/check_trajectory.py' '$WORK/trajectory.json' '$WORK/stdout' '$AGENT_KEY' '$AGENT' '$SCHEMAS/atif-trajectory.schema.json'" \
  "--trajectory: ATIF, the read and its result (the key redacted), the response's totals"
no_leak "--trajectory"
script_file traj_bad "{'turns': [{'tool_calls': [$(read_call main.cpp)], 'usage': $USAGE1}], 'after': {'text': 'not an answer', 'usage': $USAGE2}}"
start_server "$WORK/traj_bad.json"
rm -f "$WORK/trajectory.json"
agent_provider "$WORK/request.json" "$AGENT" --trajectory "$WORK/trajectory.json" --timeout-ms 60000
expect_code 1 "--trajectory, a run that fails: exit 1"
expect_true "python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); sys.exit(not any(c for s in t[\"steps\"] for c in s.get(\"tool_calls\", [])))' '$WORK/trajectory.json'" \
  "--trajectory, a run that fails: its trajectory kept, with the read"
REPO=$SAVED_REPO

# --- the model server failing ------------------------------------------------------------------------
for fail in "{'status': 500}" "{'status': 429, 'retry_after': 1}" "{'cut_after_events': 2}"; do
  script_file once "{'turns': [{'fail': $fail}, {'text': '''$ANSWER'''}]}"
  start_server "$WORK/once.json"
  agent_provider "$WORK/request.json" "$AGENT" --timeout-ms 60000
  valid_or_one_line "the server failing once ($fail)"
  no_leak "the server failing once"
done
script_file always "{'turns': [], 'after': {'fail': {'status': 500, 'retry_after': 0}}}"
start_server "$WORK/always.json"
agent_provider "$WORK/request.json" "$AGENT" --timeout-ms 20000
one_line_failure "a 500 every time"
no_leak "a 500 every time"
script_file hang "{'turns': [], 'after': {'fail': {'hang': True}}}"
start_server "$WORK/hang.json"
agent_provider "$WORK/request.json" "$AGENT" --timeout-ms 3000 --kill-grace-ms 500
one_line_failure "a server that never answers" "the agent did not finish within 3000 ms and was stopped"
expect_true "! grep -qla 'HOME=$WORK/home' /proc/[0-9]*/environ 2>/dev/null" "a server that never answers: no agent process left (none with this test's HOME)"
script_file invalid "{'turns': [], 'after': {'text': 'I could not find it, sorry.'}}"
start_server "$WORK/invalid.json"
agent_provider "$WORK/request.json" "$AGENT" --timeout-ms 60000
one_line_failure "an answer that is not JSON"
no_leak "an answer that is not JSON"

# --- a provider config the agent cannot take: refused before the agent starts --------------------------
if [ "$AGENT" = opencode ]; then
  for bad in "{\"provider\": \"$AGENT_KEY\"" "[\"$AGENT_KEY\"]"; do
    (cd "$REPO" && env -i "${AGENT_ENV[@]}" OPENCODE_CONFIG_CONTENT="$bad" "$STRATA" provider opencode --agent-command "$AGENTS_BIN/opencode" \
      <"$WORK/request.json" >"$WORK/stdout" 2>"$WORK/stderr")
    CODE=$?
    OUT=$(cat "$WORK/stdout") ERR=$(cat "$WORK/stderr")
    one_line_failure "OPENCODE_CONFIG_CONTENT that is not a JSON object" "OPENCODE_CONFIG_CONTENT is not"
    no_leak "OPENCODE_CONFIG_CONTENT that is not a JSON object (its value is never quoted)"
  done
fi

# --- the judge ---------------------------------------------------------------------------------------
JUDGEMENT='{"outcome":"partial","confidence":0.75,"reasonCodes":["missing-evidence"]}'
script_file judge "{'turns': [], 'after': {'text': '''$JUDGEMENT''', 'usage': $USAGE2}}"
start_server "$WORK/judge.json"
rm -f "$WORK/judge-trajectory.json"
agent_provider "$WORK/judge-request.json" judge "$AGENT" --trajectory "$WORK/judge-trajectory.json"
expect_code 0 "the judge"
expect_true "python3 -c '
import json, sys
t, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ok = t[\"schema_version\"] == \"ATIF-v1.7\" and [s[\"step_id\"] for s in t[\"steps\"]] == list(range(1, len(t[\"steps\"]) + 1))
ok = ok and any(s[\"source\"] == \"agent\" for s in t[\"steps\"]) and t[\"final_metrics\"][\"total_prompt_tokens\"] == r[\"inputTokens\"]
sys.exit(not ok)' '$WORK/judge-trajectory.json' '$WORK/stdout'" "the judge: --trajectory keeps its steps, its totals the judgement's"
no_leak "the judge"
expect_true "python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
ok = r[\"outcome\"] == \"partial\" and r[\"confidence\"] == 0.75 and r[\"reasonCodes\"] == [\"missing-evidence\"] and r[\"tokenMethod\"] == \"provider\"
ok = ok and r[\"inputTokens\"] in (1200, 2100) and r[\"measurements\"][\"cachedInputTokens\"] == 900 and r[\"measurements\"][\"adjudicatorToolCalls\"] == 0
sys.exit(not ok)' '$WORK/stdout'" "the judge: the judgement as given, its tokens from the stream"

# --- a study run and its adjudication ----------------------------------------------------------------
STUDY=$WORK/study
mkdir -p "$STUDY"
# One server for the run and the adjudication (the configs hold its port): the judge's request
# is told apart by its protocol.
# The study runs with --workspace overlay --confine and the agents may write (--allow-writes):
# each first writes a note, then answers once its request's history holds that write.
case $AGENT in
  codex) STUDY_WRITE="{'name': 'apply_patch', 'input': '*** Begin Patch\n*** Add File: study-note.txt\n+STUDY-WRITE-MARK\n*** End Patch\n'}" ;;
  claude) STUDY_WRITE="{'name': 'Write', 'arguments': {'file_path': '$REPO/study-note.txt', 'content': 'STUDY-WRITE-MARK'}}" ;;
  gemini) STUDY_WRITE="{'name': 'write_file', 'arguments': {'file_path': 'study-note.txt', 'content': 'STUDY-WRITE-MARK'}}" ;;
  opencode) STUDY_WRITE="{'name': 'write', 'arguments': {'filePath': '$REPO/study-note.txt', 'content': 'STUDY-WRITE-MARK'}}" ;;
  qwen) STUDY_WRITE="{'name': 'write_file', 'arguments': {'file_path': '$REPO/study-note.txt', 'content': 'STUDY-WRITE-MARK'}}" ;;
  pi) STUDY_WRITE="{'name': 'write', 'arguments': {'path': 'study-note.txt', 'content': 'STUDY-WRITE-MARK'}}" ;;
  copilot) STUDY_WRITE="{'name': 'create', 'arguments': {'path': '$REPO/study-note.txt', 'file_text': 'STUDY-WRITE-MARK'}}" ;;
esac
script_file study "{'rules': [{'contains': 'doc-bridge.study-adjudicator.v1', 'turn': {'text': '''$JUDGEMENT''', 'usage': $USAGE2}},
                              {'contains': 'STUDY-WRITE-MARK', 'turn': {'text': '''$ANSWER''', 'usage': $USAGE2}}],
                    'turns': [], 'after': {'tool_calls': [$STUDY_WRITE], 'usage': $USAGE1}}"
start_server "$WORK/study.json"
python3 - "$EXAMPLES" "$STUDY" "$REPO" "$STRATA" "$AGENT" "$AGENTS_BIN/$AGENT" "$AGENT_MODEL" "${AGENT_ENV[@]}" -- "${AGENT_ARGS[@]}" <<'PY'
import json, sys
examples, study, repo, strata, agent, agent_bin, model = sys.argv[1:8]
rest = sys.argv[8:]
# HOME named too: a confined agent sees (and writes) only the home its allowlist names.
env_names = [a.split("=", 1)[0] for a in rest[:rest.index("--")] if a.split("=", 1)[0] not in ("PATH", "TMPDIR")]
agent_args = rest[rest.index("--") + 1:]
config = json.load(open(f"{examples}/provider-config.payload.json"))
for provider in config["providers"]:
    provider.update(command=strata, args=["provider", agent, "--agent-command", agent_bin, "--model", model, "--allow-writes", "--", *agent_args],
                    envAllowlist=env_names, providerNetwork=True)
config["adjudicator"].update(command=strata, args=["provider", "judge", agent, "--agent-command", agent_bin, "--model", model, "--", *agent_args],
                             envAllowlist=env_names, providerNetwork=True,
                             pricing={"currency": "USD", "inputPerMillionUsd": 3, "cachedInputPerMillionUsd": 0.3, "outputPerMillionUsd": 15})
json.dump(config, open(f"{study}/provider-config.payload.json", "w"))
repos = json.load(open(f"{examples}/repository-config.payload.json"))
repos["repositories"][0]["root"] = repo
json.dump(repos, open(f"{study}/repository-config.payload.json", "w"))
PY
cp "$EXAMPLES/task-suite.payload.json" "$STUDY/"
# The example plan with 4 of its executions (the least a balanced sample holds: both scenarios on two tasks) and room for an agent
# that starts slowly on a loaded machine: a real agent's start-up costs 1 to 5 CPU-seconds.
python3 -c '
import json, sys
plan = json.load(open(sys.argv[1]))
plan["sampling"]["sampleSize"] = 4
plan["budget"]["maxRuntimeMs"] = 120000
json.dump(plan, open(sys.argv[2], "w"))' "$EXAMPLES/run-plan.payload.json" "$STUDY/run-plan.payload.json"
for kind in task-suite run-plan provider-config repository-config; do
  "$STRATA" seal "$kind" "$STUDY/$kind.payload.json" -o "$STUDY/$kind.json" >/dev/null
done
(cd "$WORK" && env -i "${AGENT_ENV[@]}" "$STRATA" run "$STUDY/run-plan.json" "$STUDY/task-suite.json" --providers "$STUDY/provider-config.json" \
  --repositories "$STUDY/repository-config.json" --ledger "$STUDY/ledger.json" --jobs 2 \
  --workspace overlay --confine --confine-show "$(dirname "$AGENTS_BIN")" --keep-trajectories "$STUDY/trajectories" >"$WORK/stdout" 2>"$WORK/stderr")
CODE=$?
expect_code 0 "the example study with $AGENT as every provider (--workspace overlay --confine, writes allowed, --keep-trajectories)"
run verify "$STUDY/ledger.json"
expect_code 0 "the study's ledger verifies"
expect_true "python3 -c '
import json, sys
obs = json.load(open(sys.argv[1]))[\"observations\"]
sys.exit(not (len(obs) == 4 and all(o[\"execution\"][\"status\"] == \"completed\" and o[\"execution\"][\"inputTokens\"] > 0 and o[\"execution\"][\"tokenMethod\"] == \"provider\" for o in obs)))' '$STUDY/ledger.json'" \
  "every execution completed with the agent's tokens"
expect_true "python3 -c '
import json, sys
obs = json.load(open(sys.argv[1]))[\"observations\"]
sys.exit(not all(o[\"measurements\"].get(\"workspaceChangedFiles\") == 1 and o[\"measurements\"].get(\"workspaceChangedBytes\") in (16, 17) for o in obs))' '$STUDY/ledger.json'" \
  "each agent wrote its note in its own workspace: one file changed, counted"
expect_true "[ ! -e '$REPO/study-note.txt' ] && [ -z \"\$(ls -A '$STUDY/ledger.json.workspaces' 2>/dev/null)\" ]" \
  "no note in the repository, no workspace left"
expect_true "[ \"\$(tree_sum '$REPO')\" = '$BEFORE' ]" "the study left the repository byte-identical"
(cd "$WORK" && env -i "${AGENT_ENV[@]}" "$STRATA" adjudicate "$STUDY/ledger.json" "$STUDY/task-suite.json" --adjudicator "$STUDY/provider-config.json" \
  --output "$STUDY/adjudicated.json" --jobs 2 --keep-trajectories "$STUDY/trajectories" >"$WORK/stdout" 2>"$WORK/stderr")
CODE=$?
expect_code 0 "the study adjudicated with $AGENT as the judge"
run verify "$STUDY/adjudicated.json"
expect_code 0 "the adjudicated ledger verifies"
# Issue 45: each execution's trajectory came through its channel (the confined agent's /tmp) into
# DIR, one per observation, valid ATIF with the observation's totals; each judge's beside it.
expect_true "/usr/bin/python3 '$SUPPORT/check_trajectories.py' '$STRATA' '$STUDY/adjudicated.json' '$STUDY/trajectories' '$SCHEMAS/atif-trajectory.schema.json' --judged" \
  "--keep-trajectories: one valid trajectory per observation and per judgement, the observation's totals"
expect_true "[ \$(cd '$STUDY/trajectories' && ls | grep -v '[.]judge[.]' | xargs grep -l study-note.txt | wc -l) = 4 ]" "each execution's trajectory holds the agent's write"
expect_true "[ -z \"\$(ls -A '$STUDY/ledger.json.incoming-trajectories')\" ] && [ -z \"\$(ls -A '$STUDY/adjudicated.json.incoming-trajectories')\" ]" "no channel left"

expect_true "python3 -c '
import json, sys
obs = json.load(open(sys.argv[1]))[\"observations\"]
sys.exit(not all(o[\"adjudication\"][\"status\"] == \"automated\" and o[\"adjudication\"][\"outcome\"] == \"partial\" for o in obs))' '$STUDY/adjudicated.json'" "every judgement is the judge's"
run report "$STUDY/adjudicated.json" --suite "$STUDY/task-suite.json" -o "$STUDY/report.html"
expect_code 0 "the report renders"
expect_true "grep -q '<svg' '$STUDY/report.html'" "the report has its plots"
# The CLI's own cost is a column apart from the configured pricing's (issue 36): Claude Code,
# OpenCode and pi report one (OpenCode's and pi's are 0 against a server that prices nothing),
# the others none.
case $AGENT in
  claude | opencode | pi) expect_true "grep -q 'Cost reported by the agent CLI' '$STUDY/report.html'" "the report shows the CLI's reported cost in a column of its own" ;;
  *) expect_true "! grep -q 'Cost reported by the agent CLI' '$STUDY/report.html'" "the report has no reported-cost column when no CLI reported one" ;;
esac
expect_true "! grep -rqF '$AGENT_KEY' '$STUDY'" "the agent's key is in no ledger, journal, config or report"

# --- a study verified by Strata (issue 43): Claude Code, whose Edit tool is one exact string
# replacement (the scripted fix is one call) and whose stream reports its own cost ---------------------
if [ "$AGENT" = claude ]; then
  VSTUDY=$WORK/verified
  VREPO=$WORK/calc-repo
  mkdir -p "$VSTUDY" "$VREPO"
  # A planted bug: add subtracts; the acceptance check runs the unit test.
  printf 'def add(a, b):\n    return a - b\n' >"$VREPO/calc.py"
  printf 'import unittest\nimport calc\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(2, 3), 5)\n\n\nif __name__ == "__main__":\n    unittest.main()\n' \
    >"$VREPO/test_calc.py"
  VBEFORE=$(tree_sum "$VREPO")
  # The fixer arm (model fixer-model) edits calc.py through Claude Code's Edit tool, then claims
  # its check passed; the idle arm (idle-model) claims the same at once, having changed nothing.
  CLAIM='{"taskOutcome":"success","evidenceQuality":"high","safetyOutcome":"safe","evidenceIds":["calc-fix"],"clarificationRequests":0,"reworkCount":0,"firstEvidenceLatencyMs":null,"measurements":[{"name":"acceptanceChecksPassed","value":1},{"name":"acceptanceChecksTotal","value":1},{"name":"acceptanceChecksExecuted","value":1}]}'
  script_file verified "{'rules': [{'contains': 'CALC-FIXED-MARK', 'turn': {'text': '''$CLAIM''', 'usage': $USAGE2}},
                                   {'contains': 'idle-model', 'turn': {'text': '''$CLAIM''', 'usage': $USAGE2}}],
                         'turns': [], 'after': {'tool_calls': [{'name': 'Edit', 'arguments': {'file_path': '$VREPO/calc.py',
                           'old_string': 'return a - b', 'new_string': 'return a + b  # CALC-FIXED-MARK'}}], 'usage': $USAGE1}}"
  start_server "$WORK/verified.json"
  python3 - "$FIX" "$VSTUDY" "$VREPO" "$STRATA" "$AGENTS_BIN/$AGENT" "${AGENT_ENV[@]}" -- "${AGENT_ARGS[@]}" <<'PY'
import json, sys
from study_payloads import unsealed
fix, study, repo, strata, agent_bin = sys.argv[1:6]
rest = sys.argv[6:]
env_names = [a.split("=", 1)[0] for a in rest[:rest.index("--")] if a.split("=", 1)[0] not in ("PATH", "TMPDIR")]
agent_args = rest[rest.index("--") + 1:]
suite = unsealed(f"{fix}/task-suite-v1.json")
tasks = [t for t in suite["tasks"] if t["repositoryId"] == "consumer-01"]  # a suite holds 4 per repository; the plan runs 2
for t in tasks:
    t["acceptanceChecks"] = [{"id": "unit", "command": "python3 -B -m unittest -q test_calc", "expected": "The unit test passes."}]
    t["evidenceRequirements"] = [{"id": "calc-fix", "description": "The change that makes add add.", "source": "artifact"}]
suite.update(population=["consumer-01"], tasks=tasks, maxRuns=1000)
json.dump(suite, open(f"{study}/task-suite.payload.json", "w"))
providers = []
for model, scenario, arm in ((m, s, a) for m in ("low-cost-model", "reference-model")
                             for s, a in (("repository-only", "fixer-model"), ("deterministic-doc-bridge", "idle-model"))):
    providers.append({"modelId": model, "scenarioIds": [scenario], "command": strata, "envAllowlist": env_names, "providerNetwork": True,
                      "maxInputBytes": 1000000, "maxOutputBytes": 10000,
                      "args": ["provider", "claude", "--agent-command", agent_bin, "--model", arm, "--allow-writes", "--", *agent_args]})
json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1", "providers": providers},
          open(f"{study}/provider-config.payload.json", "w"))
json.dump({"type": "controlled-study-repository-config", "schemaVersion": 1, "configVersion": "v1",
           "repositories": [{"id": "consumer-01", "root": repo}]}, open(f"{study}/repository-config.payload.json", "w"))
PY
  "$STRATA" seal task-suite "$VSTUDY/task-suite.payload.json" -o "$VSTUDY/task-suite.json" >/dev/null || fail "seal the verified study's suite"
  python3 - "$FIX" "$VSTUDY" <<'PY'
import json, sys
from study_payloads import unsealed
fix, study = sys.argv[1:3]
suite = json.load(open(f"{study}/task-suite.json"))
plan = unsealed(f"{fix}/run-plan-v1.json")
plan.update(runId="verified-claude", taskSuiteHash=suite["contentHash"], taskIds=[t["id"] for t in suite["tasks"]])
plan["sampling"] = {"strategy": "pairwise-task-strata", "sampleSize": 4, "scenarioIds": ["repository-only", "deterministic-doc-bridge"]}
plan["budget"] = {"maxTokens": 400000, "maxRuntimeMs": 120000, "maxOutputBytes": 256000, "maxAttempts": 1}
json.dump(plan, open(f"{study}/run-plan.payload.json", "w"))
PY
  for kind in run-plan provider-config repository-config; do
    "$STRATA" seal "$kind" "$VSTUDY/$kind.payload.json" -o "$VSTUDY/$kind.json" >/dev/null || fail "seal the verified study's $kind"
  done
  (cd "$WORK" && env -i "${AGENT_ENV[@]}" "$STRATA" run "$VSTUDY/run-plan.json" "$VSTUDY/task-suite.json" --providers "$VSTUDY/provider-config.json" \
    --repositories "$VSTUDY/repository-config.json" --ledger "$VSTUDY/ledger.json" --jobs 2 \
    --workspace overlay --confine --confine-show "$(dirname "$AGENTS_BIN")" --verify >"$WORK/stdout" 2>"$WORK/stderr")
  CODE=$?
  expect_code 0 "the verified study with Claude Code (--workspace overlay --confine --verify)"
  expect_true "python3 - '$VSTUDY/ledger.json' <<'PY' >&2
import json, sys
obs = json.load(open(sys.argv[1]))['observations']
assert len(obs) == 4, len(obs)
for o in obs:
    m, arm = o['measurements'], o['task']['scenarioId']
    fixer = arm == 'repository-only'
    assert o['execution']['status'] == 'completed', o['execution']
    # The claim kept as the agent made it, in both arms.
    assert [m.get(k) for k in ('acceptanceChecksPassed', 'acceptanceChecksTotal', 'acceptanceChecksExecuted')] == [1, 1, 1], m
    assert (m['verifiedChecksTotal'], m['verifiedChecksExecuted'], m['verifiedChecksPassed']) == (1, 1, 1 if fixer else 0), (arm, m)
    assert m['verifiedClaimAgrees'] == (1 if fixer else 0), (arm, m)
    assert m['workspaceChangedFiles'] == (1 if fixer else 0), (arm, m)
    assert o['adjudication']['outcome'] == ('success' if fixer else 'partial'), (arm, o['adjudication'])
PY" "Claude Code verified: the fixer arm's edit passes the unit test (claim confirmed), the idle arm's claim is false; both claims kept"
  run metrics "$VSTUDY/ledger.json" --json
  expect_true "python3 - '$WORK/stdout' <<'PY' >&2
import json, sys
r = json.load(open(sys.argv[1]))['report']
# The sample's 2 tasks may fall on either model: the idle arm(s) come first, none of their claims true.
claims = [f for f in r['findings'] if f['measure'] == 'claims']
assert claims and r['findings'][:len(claims)] == claims, r['findings']
assert all(f['scenarioId'] == 'deterministic-doc-bridge' and f['confirmed'] == 0 for f in claims), claims
assert sum(f['claimsVerified'] for f in claims) == 2 and all('claims confirmed 0 of' in f['sentence'] for f in claims), claims
success = [f for f in r['findings'] if f['measure'] == 'success'][0]
assert success['outcome'] == 'verified' and 'verified success' in success['sentence'], success
PY" "Claude Code verified: the idle arm's unreliable claims are the report's first finding; the comparison uses the verified outcome"
  run report "$VSTUDY/ledger.json" -o "$VSTUDY/report.html"
  expect_code 0 "Claude Code verified: the report renders"
  expect_true "grep -q 'figure-claims' '$VSTUDY/report.html' && grep -q 'claims confirmed 0 of' '$VSTUDY/report.html'" \
    "Claude Code verified: the report has the claims plot and opens with the finding"
  expect_true "[ \"\$(tree_sum '$VREPO')\" = '$VBEFORE' ]" "Claude Code verified: the repository is byte-identical after"
fi
# --- the agents guide as written (issue 48): Claude Code ----------------------------------------------
# README's first study, then docs/guide/agents.md's <!-- agent-test --> blocks, in a scratch checkout
# (build: the tested build; examples copied; tests/agents/node_modules: the pinned agents), the
# agent's endpoint the scripted model server: the commands as a reader pastes them run, confined,
# verified, their trajectories kept, judged and reported.
if [ "$AGENT" = claude ]; then
  GUIDE=$WORK/guide-checkout
  mkdir -p "$GUIDE/tests/agents"
  ln -s "$(dirname "$STRATA")" "$GUIDE/build"
  GUIDE_SOURCE=$(realpath "$(dirname "$0")/../..")
  cp -r "$GUIDE_SOURCE/examples" "$GUIDE/examples"
  ln -s "$(dirname "$AGENTS_BIN")" "$GUIDE/tests/agents/node_modules"
  GUIDE_WRITE="{'name': 'Write', 'arguments': {'file_path': '$GUIDE/examples/study/repository/guide-note.txt', 'content': 'GUIDE-WRITE-MARK'}}"
  script_file guide "{'rules': [{'contains': 'doc-bridge.study-adjudicator.v1', 'turn': {'text': '''$JUDGEMENT''', 'usage': $USAGE2}},
                                {'contains': 'GUIDE-WRITE-MARK', 'turn': {'text': '''$ANSWER''', 'usage': $USAGE2}}],
                      'turns': [], 'after': {'tool_calls': [$GUIDE_WRITE], 'usage': $USAGE1}}"
  start_server "$WORK/guide.json"
  expect_true "[ \"\$(/usr/bin/python3 '$SUPPORT/doc_blocks.py' '$GUIDE_SOURCE/README.md' '<!-- first-study -->' '$WORK/guide-first.sh')\" = 1 ]" \
    "README has its first-study block"
  expect_true "[ \"\$(/usr/bin/python3 '$SUPPORT/doc_blocks.py' '$GUIDE_SOURCE/docs/guide/agents.md' '<!-- agent-test -->' '$WORK/guide-agents.sh')\" -gt 0 ]" \
    "the agents guide has its tested blocks"
  (cd "$GUIDE" && env -i HOME="$WORK/home" PATH=/usr/bin:/bin ANTHROPIC_API_KEY="$AGENT_KEY" ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 bash "$WORK/guide-first.sh" >/dev/null 2>&1 &&
    env -i HOME="$WORK/home" PATH=/usr/bin:/bin ANTHROPIC_API_KEY="$AGENT_KEY" ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 bash "$WORK/guide-agents.sh" >"$WORK/stdout" 2>"$WORK/stderr")
  CODE=$?
  expect_code 0 "the agents guide's commands, as written, with Claude Code"
  [ "$CODE" = 0 ] || sed -n 1,30p "$WORK/stderr" >&2
  expect_true "python3 -c '
import json, sys
obs = json.load(open(sys.argv[1]))[\"observations\"]
assert len(obs) == 16, len(obs)
for o in obs:
    m, e = o[\"measurements\"], o[\"execution\"]
    assert e[\"status\"] == \"completed\" and e[\"tokenMethod\"] == \"provider\", e
    assert m[\"workspaceChangedFiles\"] == 1 and m[\"trajectoryKept\"] == 1 and \"verifiedChecksTotal\" in m, m
    assert o[\"adjudication\"][\"status\"] == \"automated\", o[\"adjudication\"]
' '$GUIDE/out/first/claude-judged.json'" "the guide's study: 16 executions by the agent, each in its own workspace, verified, its trajectory kept, judged"
  expect_true "grep -q '<svg' '$GUIDE/out/first/claude-report.html' && [ ! -e '$GUIDE/examples/study/repository/guide-note.txt' ]" \
    "the guide's report is written; the example repository is untouched"
  expect_true "! grep -rqF '$AGENT_KEY' '$GUIDE/out'" "the agent's key is in nothing the guide's commands wrote"
fi
stop_server
finish
