#!/usr/bin/env bash
# The paired comparison of strata metrics (docs/METRICS.md) on two real studies of 128 tasks,
# pairwise sampling (2 models x 2 scenarios x 128 tasks = 512 executions each):
#   - "effect": the repository-only arm's provider always fails, the deterministic-doc-bridge
#     arm's is the example provider (which answers most tasks fully): the known effect must be
#     found (McNemar p far below 0.05, the interval of the difference above 0);
#   - "none": both arms run the example provider, whose answers do not depend on the scenario's
#     meaning: no effect on success may be reported as significant (p >= 0.05, interval around 0).
# Pair counts, rates, discordant pairs and the exact McNemar p are recomputed here in Python from
# the ledger (integer binomial sums); the statistics themselves are checked one by one in
# statistics_test.sh.
# Usage: paired_test.sh <strata binary> <example provider binary> <fixtures dir>
STRATA=$(realpath "$1")
PROVIDER=$(realpath "$2")
FIX=$(realpath "$3")
. "$(dirname "$0")/lib.sh"

cat >"$WORK/failing" <<'SH'
#!/usr/bin/env bash
cat >/dev/null
exit 1
SH
chmod +x "$WORK/failing"
python3 - "$WORK" "$FIX" "$PROVIDER" <<'PY'
import json, sys
from study_payloads import grown_pairwise_study, provider_entries, write_provider_config, write_repository_config
work, fix, provider = sys.argv[1:4]
suite, plan, ids = grown_pairwise_study(fix, 60000)
json.dump(suite, open(f"{work}/suite.payload.json", "w"))
for run in ("effect", "none"):
    plan["runId"] = f"paired-{run}"
    json.dump(plan, open(f"{work}/plan-{run}.payload.json", "w"))
write_repository_config(f"{work}/repos", ids, f"{work}/repos.payload.json")
entries = provider_entries(provider, ["--model", "any"])
write_provider_config(entries, f"{work}/none.payload.json")
for e in entries:
    if e["scenarioIds"] == ["repository-only"]:
        e.update(command=f"{work}/failing", args=[])
write_provider_config(entries, f"{work}/effect.payload.json")
PY
"$STRATA" seal task-suite "$WORK/suite.payload.json" -o "$WORK/suite.json" >/dev/null
SUITE_HASH=$(python3 -c "import json; print(json.load(open('$WORK/suite.json'))['contentHash'])")
"$STRATA" seal repository-config "$WORK/repos.payload.json" -o "$WORK/repos.json" >/dev/null
for run in effect none; do
  sed -i "s/\"taskSuiteHash\": \"[0-9a-f]*\"/\"taskSuiteHash\": \"$SUITE_HASH\"/" "$WORK/plan-$run.payload.json"
  "$STRATA" seal run-plan "$WORK/plan-$run.payload.json" -o "$WORK/plan-$run.json" >/dev/null
  "$STRATA" seal provider-config "$WORK/$run.payload.json" -o "$WORK/$run-providers.json" >/dev/null
  run run "$WORK/plan-$run.json" "$WORK/suite.json" --providers "$WORK/$run-providers.json" \
    --repositories "$WORK/repos.json" --ledger "$WORK/ledger.json" --jobs 8 --text
  expect_code 0 "run $run (512 executions)"
done

# check <run id>: strata metrics' paired success comparison against the ledger, per model;
# prints "<min p> <max p> <min interval low> <max interval high>" over the models.
cat >"$WORK/check.py" <<'PY'
import json, math, subprocess, sys
from fractions import Fraction
strata, ledger, run_id = sys.argv[1:4]
report = json.loads(subprocess.run([strata, "metrics", ledger, "--run-id", run_id], capture_output=True, text=True, check=True).stdout)["report"]
cells = {}
for o in json.load(open(ledger))["observations"]:
    if o["runId"] != run_id:
        continue
    t, a = o["task"], o["adjudication"]
    key = (t["taskId"], t["repositoryId"], t["replicate"])
    cells.setdefault((t["modelId"], t["scenarioId"]), {}).setdefault(key, a["status"] != "pending" and a.get("outcome") == "success")
ps, lows, highs = [], [], []
paired = report["paired"]
assert len(paired) == 2, f"{len(paired)} model pairs"
for p in paired:
    assert (p["baselineScenarioId"], p["currentScenarioId"]) == ("repository-only", "deterministic-doc-bridge"), p
    base, cur = cells[(p["modelId"], "repository-only")], cells[(p["modelId"], "deterministic-doc-bridge")]
    keys = [k for k in base if k in cur]
    b = sum(1 for k in keys if base[k] and not cur[k])
    c = sum(1 for k in keys if cur[k] and not base[k])
    s = p["success"]
    assert p["pairs"] == len(keys) == 128, p["pairs"]
    assert (s["baselineOnly"], s["currentOnly"]) == (b, c), (s["baselineOnly"], s["currentOnly"], b, c)
    assert abs(s["baselineRate"] - sum(base[k] for k in keys) / len(keys)) < 1e-12
    assert abs(s["currentRate"] - sum(cur[k] for k in keys) / len(keys)) < 1e-12
    assert abs(s["difference"] - (c - b) / len(keys)) < 1e-12
    m = b + c
    want = float(min(1, 2 * Fraction(sum(math.comb(m, k) for k in range(min(b, c) + 1)), 2 ** m)))
    assert abs(s["mcnemarP"] - want) <= 1e-9 * max(want, 1e-300), (s["mcnemarP"], want)
    ps.append(s["mcnemarP"]); lows.append(s["interval"][0]); highs.append(s["interval"][1])
print(min(ps), max(ps), min(lows), max(highs))
PY
read -r effect_min_p effect_max_p effect_low _ < <(python3 "$WORK/check.py" "$STRATA" "$WORK/ledger.json" paired-effect 2>"$WORK/effect.err")
expect_true "[ -n '$effect_max_p' ]" "the effect study's comparison equals the ledger's pairs: $(cat "$WORK/effect.err")"
expect_true "python3 -c 'import sys; sys.exit(not (float(sys.argv[1]) < 1e-6 and float(sys.argv[2]) > 0))' '$effect_max_p' '$effect_low'" \
  "the known effect is found in both models (McNemar p $effect_max_p, interval low $effect_low)"
read -r none_min_p _ none_low none_high < <(python3 "$WORK/check.py" "$STRATA" "$WORK/ledger.json" paired-none 2>"$WORK/none.err")
expect_true "[ -n '$none_min_p' ]" "the no-effect study's comparison equals the ledger's pairs: $(cat "$WORK/none.err")"
expect_true "python3 -c 'import sys; sys.exit(not (float(sys.argv[1]) >= 0.05 and float(sys.argv[2]) < 0 < float(sys.argv[3])))' '$none_min_p' '$none_low' '$none_high'" \
  "no effect is not reported as significant (McNemar p $none_min_p, interval [$none_low, $none_high])"
run metrics "$WORK/ledger.json" --run-id paired-effect --text; expect_code 0 "metrics --text"
expect_out_has "Paired low-cost-model: repository-only -> deterministic-doc-bridge on 128 tasks" "the paired lines name model, arms and pairs"
expect_out_has "durationMs median" "durations are compared"

finish
