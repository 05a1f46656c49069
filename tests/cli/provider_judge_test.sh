#!/usr/bin/env bash
# strata provider judge codex|claude (issue 16, study-v1 §4.2-4.3, docs/PROVIDERS.md) against the
# fake agents of tests/support/fake_agent.py: the adjudicator request goes to the agent as its
# prompt unchanged, the answer is constrained to the judgement ({outcome, confidence,
# reasonCodes}, the reference's enum, bounds and pattern), and the output carries the judgement
# with the agent's token counts (tokenMethod provider) and cachedInputTokens; other telemetry is
# prefixed "adjudicator" so it never overwrites the judged observation's own. A judgement outside
# the schema, a provider request, or a failed agent: exit 1, nothing on stdout, one line.
# Usage: provider_judge_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"

python3 - "$WORK/judge-request.json" <<'PY'
import json, sys
request = {"protocol": "doc-bridge.study-adjudicator.v1",
           "instruction": "Evaluate only the bounded candidate record against the task rubric. Use evidenceCoverage and acceptanceExecution to distinguish missing evidence from unexecuted checks. Do not infer missing evidence. Return one JSON object and no prose.",
           "task": {"id": "consumer-01-discovery", "category": "discovery", "difficulty": "easy", "objective": "SENTINEL-OBJECTIVE",
                    "expectedOutcome": "the entry point", "evidenceRequirements": [], "acceptanceChecks": [], "rubric": {}},
           "candidate": {"taskOutcome": "success", "evidenceQuality": "high", "safetyOutcome": "safe", "evidenceIds": ["src/main.cpp"],
                         "evidenceCoverage": {"required": [], "referenceCount": 1},
                         "acceptanceExecution": {"status": "completed", "passed": None, "total": None, "measurementPresent": False},
                         "measurements": {}, "execution": {"status": "completed", "durationMs": 10, "responseBytes": 2}}}
open(sys.argv[1], "w").write(json.dumps(request, separators=(",", ":")))
PY
cat >"$WORK/judged.py" <<'PY'
# judged.py <flavour> <output.json> <argv.json> <schema source> <fixture schema>: the output against the fake's usage
import json, sys
import fake_agent
flavour, got = sys.argv[1], json.load(open(sys.argv[2]))
argv = json.load(open(sys.argv[3]))
if flavour == "codex":
    u = fake_agent.CODEX_USAGE
    want_tokens = (u["input_tokens"], u["output_tokens"])
    want_measurements = {"cachedInputTokens": u["cached_input_tokens"], "adjudicatorReasoningOutputTokens": u["reasoning_output_tokens"],
                         "adjudicatorToolCalls": 4}
    schema = json.load(open(sys.argv[4]))
else:
    u = fake_agent.CLAUDE_USAGE
    want_tokens = (u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"], u["output_tokens"])
    want_measurements = {"cachedInputTokens": u["cache_read_input_tokens"], "adjudicatorCacheCreationInputTokens": u["cache_creation_input_tokens"],
                         "adjudicatorReportedCostUsd": fake_agent.CLAUDE_COST_USD, "adjudicatorToolCalls": 4,
                         "adjudicatorAvailableToolCount": len(fake_agent.CLAUDE_TOOLS),  # the init event's, as a count
                         "adjudicatorDeniedToolUseCount": 0}  # the result's permission_denials: none
    schema = json.loads(argv["options"]["--json-schema"][0])
reference = json.load(open(sys.argv[5]))
want = {"outcome": "partial", "confidence": 0.8, "reasonCodes": ["rubric-match", "missing-evidence"],
        "inputTokens": want_tokens[0], "outputTokens": want_tokens[1], "tokenMethod": "provider", "measurements": want_measurements}
problems = [] if got == want else [f"output {got} != {want}"]
if list(got) != list(want): problems.append(f"member order {list(got)}")
if schema["required"] != ["outcome", "confidence", "reasonCodes"] or schema.get("additionalProperties") is not False: problems.append("schema members")
problems += [f"schema {m}" for m in ("outcome", "confidence", "reasonCodes") if schema["properties"][m] != reference["properties"][m]]
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
JUDGEMENT='{"outcome":"partial","confidence":0.8,"reasonCodes":["rubric-match","missing-evidence"]}'
for FLAVOUR in codex claude; do
  . "$(dirname "$0")/agent_adapter_lib.sh"
  ADAPTER="judge $FLAVOUR"
  REQUEST=$WORK/judge-request.json
  FAKE_AGENT_ANSWER=$JUDGEMENT provider normal
  expect_code 0 "$FLAVOUR: a judgement"
  schema_source=$WORK/record/output-schema.json
  expect_true "python3 '$WORK/judged.py' $FLAVOUR '$WORK/stdout' '$WORK/record/argv.json' '$schema_source' '$FIX/study-adjudicator-output.schema.json'" \
    "$FLAVOUR: the judgement with the agent's tokens and cachedInputTokens; the schema is the reference's judgement"
  expect_true "cmp -s '$WORK/record/prompt.txt' '$WORK/judge-request.json'" "$FLAVOUR: the prompt is the adjudicator request, unchanged"
  expect_true "! grep -qE 'SENTINEL|$WORK' '$WORK/stdout' '$WORK/stderr'" "$FLAVOUR: nothing of the request or a path on stdout or stderr"
  FAKE_AGENT_ANSWER='{"outcome":"excellent","confidence":0.8,"reasonCodes":[]}' \
    refused normal "the agent's answer does not match the output schema: outcome is not one of its values"
  FAKE_AGENT_ANSWER='{"outcome":"success","confidence":0.8,"reasonCodes":["Looks Good"]}' \
    refused normal "the agent's answer does not match the output schema: reasonCodes holds a value that is not a reason code"
  failed_run=$([ "$FLAVOUR" = codex ] && echo "the turn failed (turn.failed)" || echo "the agent's run ended in an error")
  FAKE_AGENT_ANSWER=$JUDGEMENT refused turn-failed "$failed_run"
  REQUEST=$WORK/request.json
  FAKE_AGENT_ANSWER=$JUDGEMENT refused normal "the request on stdin is not a doc-bridge.study-adjudicator.v1 request"
  rm -rf "$WORK/bin" "$WORK/record"
done
finish
