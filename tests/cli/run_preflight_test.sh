#!/usr/bin/env bash
# `strata run` pre-flight and --dry-run (spec §3.2, §3.11; cases 48, 51, 66, 70, 71).
# Usage: run_preflight_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
PLAN=$FIX/run-plan-v1.json
SUITE=$FIX/task-suite-v1.json

# Six repository roots, provider configs for all six mappings and for two scenarios only.
python3 - "$WORK" <<'PY'
import json, os, sys
work = sys.argv[1]
ids = [f"consumer-0{i}" for i in range(1, 7)]
for i in ids:
    os.makedirs(f"{work}/repos/{i}", exist_ok=True)
def repos(entries):
    return {"type": "controlled-study-repository-config", "schemaVersion": 1, "configVersion": "v1",
            "repositories": entries}
json.dump(repos([{"id": i, "root": f"{work}/repos/{i}"} for i in ids]), open(f"{work}/repos.payload.json", "w"))
json.dump(repos([{"id": i, "root": f"{work}/repos/{i}"} for i in ids[:5]]), open(f"{work}/repos-missing.payload.json", "w"))
json.dump(repos([{"id": i, "root": f"{work}/repos/{i}" if i != "consumer-03" else f"{work}/nowhere"} for i in ids]),
          open(f"{work}/repos-nodir.payload.json", "w"))
def providers(scenarios, command="/bin/true", max_input=1000000):
    return {"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1",
            "providers": [{"modelId": m, "scenarioIds": [s], "command": command, "providerNetwork": False,
                           "maxInputBytes": max_input, "maxOutputBytes": 10000}
                          for m in ["low-cost-model", "reference-model"] for s in scenarios]}
all3 = ["repository-only", "deterministic-doc-bridge", "registry-assisted"]
json.dump(providers(all3), open(f"{work}/providers.payload.json", "w"))
json.dump(providers(all3[:2]), open(f"{work}/providers-two.payload.json", "w"))
json.dump(providers(all3, command="missing-study-provider-cli"), open(f"{work}/providers-missing.payload.json", "w"))
json.dump(providers(all3, max_input=100), open(f"{work}/providers-small.payload.json", "w"))
p = providers(all3)
p["providers"] = [e for e in p["providers"] if not (e["modelId"] == "reference-model" and e["scenarioIds"] == ["repository-only"])]
json.dump(p, open(f"{work}/providers-gap.payload.json", "w"))
PY
for name in repos repos-missing repos-nodir; do
  "$STRATA" seal repository-config "$WORK/$name.payload.json" -o "$WORK/$name.json"
done
for name in providers providers-two providers-missing providers-small providers-gap; do
  "$STRATA" seal provider-config "$WORK/$name.payload.json" -o "$WORK/$name.json"
done

# 48: dry run, 24 planned, no ledger written.
run run "$PLAN" "$SUITE" --providers "$WORK/providers.json" --repositories "$WORK/repos.json" --ledger "$WORK/ledger.json" --dry-run
expect_code 0 "48 dry run"
expect_err_empty "48 dry run"
expect_file_absent "$WORK/ledger.json" "48 dry run writes no ledger"
expect_true "python3 -c '
import json
d = json.load(open(\"$WORK/stdout\"))
s = d[\"summary\"]
assert d[\"ok\"] is True
assert (s[\"status\"], s[\"planned\"], s[\"executed\"], s[\"skipped\"]) == (\"dry-run\", 24, 0, 0), s
assert \"ledgerPath\" not in s
'" "48 dry-run summary"

# 70: assisted arm ready but undeclared.
run run "$PLAN" "$SUITE" --providers "$WORK/providers.json" --repositories "$WORK/repos.json" --ledger "$WORK/ledger.json" --dry-run --text
expect_true "[ \"\$(tail -n 2 '$WORK/stdout')\" = 'Assisted arm: ready (undeclared: promptVersion, agentBudget)
  The registry-assisted scenario declares no promptVersion or agentBudget; the arm runs, but it cannot be reproduced from this ledger alone.' ]" "70 assisted arm lines"
expect_out_has "Study run: phase-7-canonical-metrics-01" "70 text"

# 71: no registry-assisted providers: unavailable, and the dry run still passes.
run run "$PLAN" "$SUITE" --dry-run --text --providers "$WORK/providers-two.json" --repositories "$WORK/repos.json" --ledger "$WORK/ledger.json"
expect_code 0 "71 dry run"
expect_true "[ \"\$(tail -n 2 '$WORK/stdout')\" = 'Assisted arm: unavailable
  No provider CLI is configured for the registry-assisted scenario and model(s) low-cost-model, reference-model.' ]" "71 assisted arm lines"

# 66: missing --ledger (exit 2, not a usage error).
bad_input "66 missing --ledger" "Study run requires a task suite, --providers, --repositories, and --ledger." \
  run "$PLAN" "$SUITE" --providers "$WORK/providers.json" --repositories "$WORK/repos.json"
bad_input "missing task suite" "Study run requires a task suite, --providers, --repositories, and --ledger." \
  run "$PLAN" --providers "$WORK/providers.json" --repositories "$WORK/repos.json" --ledger "$WORK/ledger.json"

# 51: repository coverage and roots.
bad_input "51 missing population id" "Study repository config must contain exactly one root for every task-suite population id." \
  run "$PLAN" "$SUITE" --providers "$WORK/providers.json" --repositories "$WORK/repos-missing.json" --ledger "$WORK/ledger.json" --dry-run
bad_input "51 root not a directory" "Study repository consumer-03 is not available at the configured root." \
  run "$PLAN" "$SUITE" --providers "$WORK/providers.json" --repositories "$WORK/repos-nodir.json" --ledger "$WORK/ledger.json" --dry-run

# Per-execution checks of §3.2 step 7.
bad_input "provider mapping missing" "No provider CLI is configured for model reference-model and scenario repository-only." \
  run "$PLAN" "$SUITE" --providers "$WORK/providers-gap.json" --repositories "$WORK/repos.json" --ledger "$WORK/ledger.json" --dry-run
bad_input "command not on PATH" "Provider CLI command missing-study-provider-cli was not found on PATH." \
  run "$PLAN" "$SUITE" --providers "$WORK/providers-missing.json" --repositories "$WORK/repos.json" --ledger "$WORK/ledger.json" --dry-run
bad_input "input limit" "Provider CLI input limit 100 bytes exceeded for consumer-01-discovery." \
  run "$PLAN" "$SUITE" --providers "$WORK/providers-small.json" --repositories "$WORK/repos.json" --ledger "$WORK/ledger.json" --dry-run

# Plan and suite must belong together.
python3 -c "
import json
p = json.load(open('$PLAN'))
p['taskSuiteHash'] = 'b' * 64
for k in ('contentHash', 'contentHashAlgo'): p.pop(k)
json.dump(p, open('$WORK/other-plan.payload.json', 'w'))
"
"$STRATA" seal run-plan "$WORK/other-plan.payload.json" -o "$WORK/other-plan.json"
bad_input "suite hash" "Run plan taskSuiteHash does not match the supplied task suite." \
  run "$WORK/other-plan.json" "$SUITE" --providers "$WORK/providers.json" --repositories "$WORK/repos.json" --ledger "$WORK/ledger.json" --dry-run
bad_input "a wrong artifact kind names the file" "$WORK/repos.json: \$.type: expected \"controlled-study-run-plan\"" \
  run "$WORK/repos.json" "$SUITE" --providers "$WORK/providers.json" --repositories "$WORK/repos.json" --ledger "$WORK/ledger.json" --dry-run
expect_file_absent "$WORK/ledger.json" "no pre-flight failure writes a ledger"

finish
