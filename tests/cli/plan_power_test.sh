#!/usr/bin/env bash
# strata plan <plan> --suite S --power (docs/METRICS.md "Power"): the pairs of each comparison
# counted from the plan's own selection (recounted here from `strata select` and the sampling
# rules), the detectable difference, power and pairs needed equal to model/results/mcnemar_power's (the
# probe; power_statistics_test.sh checks those against exact Python), the plain sentence, the
# plan that draws no pair, and every refusal (message, exit code, nothing on stdout).
# Usage: plan_power_test.sh <strata binary> <strata-stats-probe binary> <fixtures dir>
STRATA=$(realpath "$1")
PROBE=$(realpath "$2")
FIX=$(realpath "$3")
. "$(dirname "$0")/lib.sh"

# A full matrix (48 tasks in 12 repositories, one replicate: 288 executions, 48 pairs per
# comparison) and a pairwise plan over the first 8 tasks of the key order (2 scenarios).
python3 - "$WORK" "$FIX" <<'PY'
import json, sys
from study_payloads import grown_tasks, unsealed
work, fix = sys.argv[1:3]
suite, plan = unsealed(f"{fix}/task-suite-v1.json"), unsealed(f"{fix}/run-plan-v1.json")
ids, tasks = grown_tasks(suite, 12)
suite.update(population=ids, tasks=tasks, replicatesPerTask=1)
json.dump(suite, open(f"{work}/suite.payload.json", "w"))
plan["taskIds"] = [t["id"] for t in tasks]
plan["sampling"] = {"strategy": "balanced-task-strata", "sampleSize": 6 * len(tasks)}
json.dump(plan, open(f"{work}/full.payload.json", "w"))
plan["sampling"] = {"strategy": "pairwise-task-strata", "sampleSize": 32, "scenarioIds": ["repository-only", "registry-assisted"]}
json.dump(plan, open(f"{work}/pairwise.payload.json", "w"))
PY
"$STRATA" seal task-suite "$WORK/suite.payload.json" -o "$WORK/suite.json" >/dev/null
SUITE_HASH=$(python3 -c "import json; print(json.load(open('$WORK/suite.json'))['contentHash'])")
for plan in full pairwise; do
  sed -i "s/\"taskSuiteHash\": \"[0-9a-f]*\"/\"taskSuiteHash\": \"$SUITE_HASH\"/" "$WORK/$plan.payload.json"
  "$STRATA" seal run-plan "$WORK/$plan.payload.json" -o "$WORK/$plan.json" >/dev/null
done

run plan "$WORK/full.json" --suite "$WORK/suite.json" --power --effect 0.1
expect_code 0 "full matrix power"
cp "$WORK/stdout" "$WORK/full-power.json"
run plan "$WORK/pairwise.json" --suite "$WORK/suite.json" --power --effect 0.1 --discordance 0.4 --alpha 0.01 --target-power 0.9
expect_code 0 "pairwise power"
cp "$WORK/stdout" "$WORK/pairwise-power.json"

cat >"$WORK/check.py" <<'PY'
import json, subprocess, sys
strata, probe, work = sys.argv[1:4]
failures = []
select = json.loads(subprocess.run([strata, "select", f"{work}/suite.json"], capture_output=True, text=True, check=True).stdout)["executions"]

def pairs_of(cells):
    """(model, baseline, current) -> (pairs, repositories) from the cells a plan runs."""
    by_arm = {}
    for c in cells:
        by_arm.setdefault((c["modelId"], c["scenarioId"]), {})[(c["taskId"], c["repositoryId"], c["replicate"])] = c["repositoryId"]
    order = ["repository-only", "deterministic-doc-bridge", "registry-assisted"]
    out = {}
    for (model, a), cells_a in by_arm.items():
        for (model_b, b), cells_b in by_arm.items():
            if model_b == model and order.index(a) < order.index(b):
                keys = [k for k in cells_a if k in cells_b]
                out[(model, a, b)] = (len(keys), len({cells_a[k] for k in keys}))
    return out

def check(power, expected, alpha, target, discordance, effect, name):
    """The comparisons are `expected` ((model, baseline, current) -> (pairs, repositories or None))
    and their numbers are model/results/mcnemar_power's for these assumptions."""
    got = {(c["modelId"], c["baselineScenarioId"], c["currentScenarioId"]): c for c in power["comparisons"]}
    if set(got) != set(expected):
        failures.append(f"{name}: comparisons {sorted(got)} != {sorted(expected)}")
        return
    cases = []
    for key, c in got.items():
        pairs, repositories = expected[key]
        if c["pairs"] != pairs or repositories not in (None, c["repositories"]):
            failures.append(f"{name} {key}: pairs/repositories {(c['pairs'], c['repositories'])} != {expected[key]}")
        cases += [{"kind": "mde", "pairs": c["pairs"], "discordance": discordance, "alpha": alpha, "power": target},
                  {"kind": "power", "pairs": c["pairs"], "effect": effect, "discordance": discordance, "alpha": alpha},
                  {"kind": "pairs-needed", "effect": effect, "discordance": discordance, "alpha": alpha, "power": target}]
    results = json.loads(subprocess.run([probe], input=json.dumps(cases), capture_output=True, text=True, check=True).stdout)
    for i, c in enumerate(got.values()):
        mde, pw, needed = results[3 * i: 3 * i + 3]
        if c["minimumDetectableDifference"] != mde["effect"] or c["powerAtEffect"] != pw["power"] or c["pairsNeeded"] != needed["pairs"]:
            failures.append(f"{name}: {c} != probe {mde} {pw} {needed}")
        if mde["effect"] is not None and f"detects a {round(mde['effect'] * 100, 1):g}-point difference" not in c["sentence"]:
            failures.append(f"{name}: sentence {c['sentence']!r}")
    for member, value in (("alpha", alpha), ("targetPower", target), ("discordance", discordance), ("effect", effect)):
        if power[member] != value:
            failures.append(f"{name}: {member} {power[member]} != {value}")

full = json.load(open(f"{work}/full-power.json"))["power"]
check(full, pairs_of(select), 0.05, 0.8, 0.3, 0.1, "full matrix")
if full["executions"] != 288 or sorted({c["pairs"] for c in full["comparisons"]}) != [48]:
    failures.append(f"full matrix: {full['executions']} executions, pairs {[c['pairs'] for c in full['comparisons']]}")
# The pairwise plan runs replicate 0 of sampleSize / 4 = 8 tasks in its two scenarios.
pairwise = json.load(open(f"{work}/pairwise-power.json"))["power"]
check(pairwise, {(m, "repository-only", "registry-assisted"): (8, None) for m in ("low-cost-model", "reference-model")},
      0.01, 0.9, 0.4, 0.1, "pairwise")
# More pairs detect smaller differences.
for f in full["comparisons"]:
    for p in pairwise["comparisons"]:
        if p["minimumDetectableDifference"] is not None and not f["minimumDetectableDifference"] < p["minimumDetectableDifference"]:
            failures.append("48 pairs at 0.05 / 0.8 do not detect less than 8 at 0.01 / 0.9")
print("\n".join(failures) if failures else "ok")
PY
out=$(python3 "$WORK/check.py" "$STRATA" "$PROBE" "$WORK" 2>&1)
expect_true "[ \"\$out\" = ok ]" "the comparisons and their numbers: $out"

# --text: the assumptions, then a sentence per comparison.
run plan "$WORK/full.json" --suite "$WORK/suite.json" --power --effect 0.1 --text
expect_code 0 "--text"
expect_out_has "Power of the exact McNemar test at alpha 0.05, assuming 0.3 of pairs differ between arms (288 executions):" "--text header"
expect_out_has "low-cost-model, repository-only → registry-assisted: 48 pairs in 12 repositories; detects a " "--text sentence"
expect_out_has "10 points: " "--text effect"
expect_true "[ \"\$(wc -l <\"\$WORK/stdout\")\" = 7 ]" "--text: a header and 6 comparisons"

# The fixture's plan samples 24 of 144 cells, balanced: each task in one arm, no pair.
run plan "$FIX/run-plan-v1.json" --suite "$FIX/task-suite-v1.json" --power --text
expect_code 0 "a plan without pairs"
expect_out_has "This plan draws no pair: its sampling (balanced-task-strata, 24 executions)" "a plan without pairs says so"
run plan "$FIX/run-plan-v1.json" --suite "$FIX/task-suite-v1.json" --power
expect_true "python3 -c \"import json,sys; p=json.load(open('\$WORK/stdout'))['power']; sys.exit(p['comparisons'] != [] or 'note' not in p)\"" "no pair: empty comparisons and a note"
# Without --power the command shows the plan, as before.
run plan "$WORK/full.json" --text
expect_code 0 "plan --text"
expect_out_has "Sample: 288/48 (balanced-task-strata)" "plan --text shows the plan"

# Refusals: exit 2, one line naming the flag, nothing on stdout.
P=("$WORK/full.json" --suite "$WORK/suite.json" --power)
bad_input "--alpha 0" "--alpha 0 is out of range: it must be above 0 and below 1." plan "${P[@]}" --alpha 0
bad_input "--alpha 1.5" "--alpha 1.5 is out of range" plan "${P[@]}" --alpha 1.5
bad_input "--target-power 1" "--target-power 1 is out of range" plan "${P[@]}" --target-power 1
bad_input "--discordance 0" "--discordance 0 is out of range: the share of pairs whose arms differ must be above 0 and at most 1." plan "${P[@]}" --discordance 0
bad_input "--discordance 1.2" "--discordance 1.2 is out of range" plan "${P[@]}" --discordance 1.2
bad_input "--effect 0" "--effect 0 is out of range: a difference in success rate above 0 and at most 1." plan "${P[@]}" --effect 0
bad_input "--effect -0.1" "--effect -0.1 is out of range" plan "${P[@]}" --effect -0.1
bad_input "--effect above --discordance" "--effect 0.5 is larger than --discordance 0.3: the difference in success rate cannot exceed the share of pairs whose arms differ." plan "${P[@]}" --effect 0.5
bad_input "another suite" "Run plan taskSuiteHash does not match the supplied task suite." plan "$WORK/full.json" --suite "$FIX/task-suite-v1.json" --power
bad_input "a suite that is not a suite" "full.json: \$.type: expected \"study-task-suite\", got a \"controlled-study-run-plan\" artifact" plan "$WORK/full.json" --suite "$WORK/full.json" --power
# Usage errors: exit 1, the problem and the usage line.
for args in "--power" "--suite $WORK/suite.json" "--effect 0.1" "--alpha 0.01"; do
  run plan "$WORK/full.json" $args
  expect_code 1 "plan $args alone"
  expect_out_empty "plan $args alone"
done
expect_err_has "--alpha requires --power" "--alpha without --power names it"
finish
