#!/usr/bin/env bash
# The canonical plan and suite of the fixtures (24 executions over the six model x scenario
# mappings) run by `strata run` with the agent adapters as every provider, against the fake
# agents (tests/support/fake_agent.py) and, for the deterministic arm, a fake ak-docs:
#   - `strata provider codex` for all six mappings: every execution completes, the ledger
#     verifies, and the observations carry the agent's usage, tool calls and telemetry (the
#     handoff's bytes in the deterministic arm only);
#   - `strata provider claude` the same, with the agent's reported cost as agentReportedCostUsd
#     (agentCostUsd is the configured pricing's: set where the provider entry is priced, and only there);
#   - `strata adjudicate` with `strata provider judge claude` (and `judge codex`) as the
#     independent adjudicator: every judgement automated, with the judge's tokens, its cached
#     input and the cost computed from the adjudicator's pricing (study-v1 §3.9, §4.3).
# Usage: provider_agents_study_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
SUPPORT=$(realpath "$(dirname "$0")/../support")
SCHEMAS=$(realpath "$(dirname "$0")/../../schemas")

mkdir -p "$WORK/bin"
ln -s "$SUPPORT/fake_agent.py" "$WORK/bin/codex"
ln -s "$SUPPORT/fake_agent.py" "$WORK/bin/claude"
ln -s "$SUPPORT/fake_ak_docs.sh" "$WORK/bin/ak-docs"
fixture_repositories
python3 - "$STRATA" "$WORK" <<'PY'
import sys
from study_payloads import MODELS, SCENARIOS, write_provider_config
strata, work = sys.argv[1:3]
judge_answer = '{"outcome":"success","confidence":0.9,"reasonCodes":["rubric-match"]}'
for agent in ("codex", "claude"):
    entries = []
    for m in MODELS:
        for s in SCENARIOS:
            args = ["provider", agent, "--model", f"{m}-{agent}", "--timeout-ms", "120000"]
            if s == "deterministic-doc-bridge":
                args += ["--doc-bridge-query", "entrypoint", "consumer-01"]
            entries.append({"modelId": m, "scenarioIds": [s], "command": strata, "args": args, "providerNetwork": False,
                            "maxInputBytes": 1000000, "maxOutputBytes": 10000})
    write_provider_config(entries, f"{work}/{agent}-providers.payload.json")
    # the judge of the other agent's ledger; the fake answers with FAKE_AGENT_ANSWER, let through by envAllowlist
    judge = "claude" if agent == "codex" else "codex"
    config = {"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1", "providers": entries[:1],
              "adjudicator": {"id": f"{judge}-judge", "modelId": "reference-model", "command": strata,
                              "args": ["provider", "judge", judge, "--model", "judge-model", "--timeout-ms", "120000"],
                              "envAllowlist": ["FAKE_AGENT_ANSWER"], "providerNetwork": False,
                              "maxInputBytes": 1000000, "maxOutputBytes": 10000,
                              "pricing": {"currency": "USD", "inputPerMillionUsd": 2, "cachedInputPerMillionUsd": 1, "outputPerMillionUsd": 4}}}
    import json
    json.dump(config, open(f"{work}/{judge}-judge.payload.json", "w"))
PY
cat >"$WORK/check.py" <<'PY'
# check.py <ledger> <agent>: every observation completed with the agent's usage, tool calls and telemetry
import collections, json, sys
observations, agent = json.load(open(sys.argv[1]))["observations"], sys.argv[2]
problems = []
arms = collections.Counter((o["task"]["modelId"], o["task"]["scenarioId"]) for o in observations)
if len(arms) != 6: problems.append(f"{len(arms)} mappings ran, expected 6")
for o in observations:
    e, m = o["execution"], o.get("measurements", {})
    where = f'{o["task"]["taskId"]}/{o["task"]["modelId"]}/{o["task"]["scenarioId"]}'
    if e["status"] != "completed": problems.append(f"{where}: {e['status']} {e.get('errorCode')}")
    if e.get("tokenMethod") != "provider" or e.get("inputTokens", 0) <= 0: problems.append(f"{where}: no provider usage")
    if e.get("toolCalls", 0) <= 0: problems.append(f"{where}: no tool calls")
    for name in ("cachedInputTokens", "observedToolEventCount", "observedProviderInputBytes", "observedContextBytes", "stderrBytes"):
        if name not in m: problems.append(f"{where}: no {name}")
    if ("agentReportedCostUsd" in m) != (agent == "claude"): problems.append(f"{where}: agentReportedCostUsd {'agentReportedCostUsd' in m}")
    if "agentCostUsd" in m: problems.append(f"{where}: agentCostUsd without pricing")
    handoff = "observedDocBridgeHandoffBytes" in m
    if handoff != (o["task"]["scenarioId"] == "deterministic-doc-bridge"): problems.append(f"{where}: handoff telemetry {handoff}")
print("\n".join(problems[:10]))
sys.exit(1 if problems else 0)
PY
cat >"$WORK/judged.py" <<'PY'
# judged.py <ledger> <judge> <limit> <input ledger>: the first <limit> observations judged by the agent, automated, with
# its tokens and cost; the others as they were
import json, sys
import fake_agent
observations, judge, limit = json.load(open(sys.argv[1]))["observations"], sys.argv[2], int(sys.argv[3])
before = json.load(open(sys.argv[4]))["observations"]
if judge == "claude":
    u = fake_agent.CLAUDE_USAGE
    tokens, cached = (u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"], u["output_tokens"]), u["cache_read_input_tokens"]
else:
    u = fake_agent.CODEX_USAGE
    tokens, cached = (u["input_tokens"], u["output_tokens"]), u["cached_input_tokens"]
cost = round(((tokens[0] - cached) * 2 + cached * 1 + tokens[1] * 4) / 1e6, 8)
problems = []
for i, o in enumerate(observations):
    a, m = o["adjudication"], o["measurements"]
    if i >= limit:
        if o != before[i]: problems.append(f"{i}: changed beyond the limit")
        continue
    if (a["status"], a.get("actor"), a.get("outcome"), a.get("tokenMethod")) != ("automated", f"{judge}-judge", "success", "provider"):
        problems.append(f"{i}: {a}")
    got = (m.get("adjudicatorInputTokens"), m.get("adjudicatorOutputTokens"), m.get("cachedInputTokens"), m.get("adjudicatorCostUsd"))
    if got != (tokens[0], tokens[1], cached, cost): problems.append(f"{i}: {got} != {(tokens[0], tokens[1], cached, cost)}")
    if "observedToolEventCount" not in m or m.get("adjudicatorToolCalls") != 4: problems.append(f"{i}: the provider's telemetry or the judge's tool calls")
print("\n".join(problems[:10]))
sys.exit(1 if problems else 0)
PY
for agent in codex claude; do
  "$STRATA" seal provider-config "$WORK/$agent-providers.payload.json" -o "$WORK/$agent-providers.json" >/dev/null
  "$STRATA" seal provider-config "$WORK/$agent-judge.payload.json" -o "$WORK/$agent-judge.json" >/dev/null
  PATH="$WORK/bin:$PATH" run run "$FIX/run-plan-v1.json" "$FIX/task-suite-v1.json" --providers "$WORK/$agent-providers.json" \
    --repositories "$WORK/repos.json" --ledger "$WORK/$agent-ledger.json" --jobs 4 --text --keep-trajectories "$WORK/$agent-trajectories"
  expect_code 0 "the canonical plan with strata provider $agent"
  expect_out_has "Executed: 24" "$agent: every selected execution ran"
  run verify "$WORK/$agent-ledger.json"
  expect_code 0 "$agent: the ledger verifies"
  expect_true "python3 '$WORK/check.py' '$WORK/$agent-ledger.json' $agent" "$agent: every observation completed with the agent's usage, tool calls and telemetry"
  # Issue 45: the adapter found its channel in STRATA_TRAJECTORY_FILE; one valid trajectory per
  # observation, with its totals.
  expect_true "/usr/bin/python3 '$SUPPORT/check_trajectories.py' '$STRATA' '$WORK/$agent-ledger.json' '$WORK/$agent-trajectories' '$SCHEMAS/atif-trajectory.schema.json'" \
    "$agent: --keep-trajectories: one valid trajectory per observation, the observation's totals"
done
# each ledger judged by the other agent: all 24 by claude, the first 6 by codex
PATH="$WORK/bin:$PATH" FAKE_AGENT_ANSWER='{"outcome":"success","confidence":0.9,"reasonCodes":["rubric-match"]}' \
  run adjudicate "$WORK/codex-ledger.json" "$FIX/task-suite-v1.json" --adjudicator "$WORK/claude-judge.json" --output "$WORK/codex-judged.json" --jobs 4 \
  --keep-trajectories "$WORK/codex-trajectories"
expect_code 0 "strata adjudicate with strata provider judge claude"
expect_true "/usr/bin/python3 '$SUPPORT/check_trajectories.py' '$STRATA' '$WORK/codex-judged.json' '$WORK/codex-trajectories' '$SCHEMAS/atif-trajectory.schema.json' --judged" \
  "adjudicate --keep-trajectories: each judge's trajectory beside its execution's"
expect_true "python3 '$WORK/judged.py' '$WORK/codex-judged.json' claude 24 '$WORK/codex-ledger.json'" "every judgement automated with the judge's tokens, cached input and cost"
PATH="$WORK/bin:$PATH" FAKE_AGENT_ANSWER='{"outcome":"success","confidence":0.9,"reasonCodes":["rubric-match"]}' \
  run adjudicate "$WORK/claude-ledger.json" "$FIX/task-suite-v1.json" --adjudicator "$WORK/codex-judge.json" --output "$WORK/claude-judged.json" --limit 6
expect_code 0 "strata adjudicate with strata provider judge codex"
expect_true "python3 '$WORK/judged.py' '$WORK/claude-judged.json' codex 6 '$WORK/claude-ledger.json'" "six judgements automated with the codex judge's tokens and cost, the rest unchanged"
run verify "$WORK/codex-judged.json" "$WORK/claude-judged.json"
expect_code 0 "the judged ledgers verify"

finish
