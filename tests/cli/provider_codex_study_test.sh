#!/usr/bin/env bash
# The canonical plan and suite of the fixtures (24 executions over the six model x scenario
# mappings) run by `strata run` with `strata provider codex` as every provider, against the fake
# codex (tests/support/fake_agent.py) and, for the deterministic arm, a fake ak-docs: every
# execution completes, the ledger verifies, and the observations carry the agent's usage, tool
# calls and telemetry (the handoff's bytes in the deterministic arm only).
# Usage: provider_codex_study_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
SUPPORT=$(realpath "$(dirname "$0")/../support")

mkdir -p "$WORK/bin"
ln -s "$SUPPORT/fake_agent.py" "$WORK/bin/codex"
ln -s "$SUPPORT/fake_ak_docs.sh" "$WORK/bin/ak-docs"
fixture_repositories
python3 - "$STRATA" "$WORK/providers.payload.json" <<'PY'
import sys
from study_payloads import MODELS, SCENARIOS, write_provider_config
strata, out = sys.argv[1:3]
entries = []
for m in MODELS:
    for s in SCENARIOS:
        args = ["provider", "codex", "--model", f"{m}-codex", "--timeout-ms", "120000"]
        if s == "deterministic-doc-bridge":
            args += ["--doc-bridge-query", "entrypoint", "consumer-01"]
        entries.append({"modelId": m, "scenarioIds": [s], "command": strata, "args": args, "providerNetwork": False,
                        "maxInputBytes": 1000000, "maxOutputBytes": 10000})
write_provider_config(entries, out)
PY
"$STRATA" seal provider-config "$WORK/providers.payload.json" -o "$WORK/providers.json" >/dev/null
PATH="$WORK/bin:$PATH" run run "$FIX/run-plan-v1.json" "$FIX/task-suite-v1.json" --providers "$WORK/providers.json" \
  --repositories "$WORK/repos.json" --ledger "$WORK/ledger.json" --jobs 4 --text
expect_code 0 "the canonical plan with strata provider codex"
expect_out_has "Executed: 24" "every selected execution ran"
run verify "$WORK/ledger.json"
expect_code 0 "the ledger verifies"
cat >"$WORK/check.py" <<'PY'
import collections, json, sys
observations = json.load(open(sys.argv[1]))["observations"]
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
    handoff = "observedDocBridgeHandoffBytes" in m
    if handoff != (o["task"]["scenarioId"] == "deterministic-doc-bridge"): problems.append(f"{where}: handoff telemetry {handoff}")
print("\n".join(problems[:10]))
sys.exit(1 if problems else 0)
PY
expect_true "python3 '$WORK/check.py' '$WORK/ledger.json'" "every observation completed with the agent's usage, tool calls and telemetry"

finish
