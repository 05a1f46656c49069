#!/usr/bin/env bash
# strata metrics (docs/METRICS.md) on a real study: round-1 run by the example provider (its
# outcome depends on the scenario), round-2 by a provider that always fails, so the success rate
# falls in every arm. Every number is recomputed here in Python from the ledger itself
# (statistics.quantiles "inclusive" is the same linear interpolation as numpy's default):
#   - per-arm executions, status and result counts, success rate, tokens/duration/cost
#     total/median/p90, evidence coverage, acceptance checks;
#   - round-1 -> round-2 regresses (exit 1, each arm named), --allow-regressions exits 0, the
#     reverse comparison is met; a protocol's targets give the verdicts computed here;
#   - all-pending adjudications: no success rate, no verdict, no regression;
#   - bad input: mixed rounds, unknown run id or round, half a comparison, a target Strata does
#     not compute: message and exit 2.
# Usage: metrics_test.sh <strata binary> <example provider binary> <fixtures dir>
STRATA=$(realpath "$1")
PROVIDER=$(realpath "$2")
FIX=$(realpath "$3")
. "$(dirname "$0")/lib.sh"

make_example_study "$PROVIDER" a b
L=$WORK/ledger.json
study_run a "$L" --round round-1; expect_code 0 "round-1 (example provider)"
failing_providers
run run "$WORK/plan-b.json" "$WORK/suite.json" --providers "$WORK/failing.json" --repositories "$WORK/repos.json" \
  --ledger "$L" --round round-2 --text
expect_code 0 "round-2 (a failing provider)"

# The independent computation. expected_arms <ledger> [run ids...] prints the arms as JSON;
# verdicts <ledger> <baseline round> <current round> <targets JSON> prints the target verdicts.
cat >"$WORK/expected.py" <<'PY'
import json, math, statistics, sys

def q(values, p):
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.median(values) if p == 0.5 else statistics.quantiles(values, n=10, method="inclusive")[8]

def quartiles(values):
    if not values:
        return None, None
    if len(values) == 1:
        return values[0], values[0]
    parts = statistics.quantiles(values, n=4, method="inclusive")
    return parts[0], parts[2]

def dist(values):
    p25, p75 = quartiles(values)
    return {"reported": len(values), "total": sum(values) if values else None, "median": q(values, 0.5), "p90": q(values, 0.9),
            "min": min(values) if values else None, "p25": p25, "p75": p75, "max": max(values) if values else None}

def wilson(s, n, z=1.959963984540054):
    if n == 0:
        return None
    p = s / n
    centre, half = (p + z * z / (2 * n)) / (1 + z * z / n), z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return [max(0.0, centre - half), min(1.0, centre + half)]

def arms(observations):
    out = {}
    for o in observations:
        out.setdefault((o["task"]["modelId"], o["task"]["scenarioId"]), []).append(o)
    result = []
    for (model, scenario), obs in sorted(out.items()):
        def results(o):
            a = o["adjudication"]
            return a["outcome"] if a["status"] != "pending" and "outcome" in a else "pending"
        r = [results(o) for o in obs]
        decided = [x for x in r if x != "pending"]
        e = [o["execution"] for o in obs]
        m = [o.get("measurements", {}) for o in obs]
        tokens = [x["inputTokens"] + x["outputTokens"] for x in e if "inputTokens" in x and "outputTokens" in x]
        costs = [x["agentCostUsd"] for x in m if "agentCostUsd" in x]
        reported = [x["agentReportedCostUsd"] for x in m if "agentReportedCostUsd" in x]
        with_evidence = sum(1 for o in obs if o["evidenceIds"])
        result.append({"modelId": model, "scenarioId": scenario, "executions": len(obs),
                       "status": {s: sum(1 for x in e if x["status"] == s) for s in sorted({x["status"] for x in e})},
                       "result": {s: r.count(s) for s in sorted(set(r))},
                       "successRate": decided.count("success") / len(decided) if decided else None,
                       "successInterval": wilson(decided.count("success"), len(decided)),
                       "totalTokens": dist(tokens), "durationMs": dist([x["durationMs"] for x in e]),
                       "costUsd": dist(costs) if costs else None,
                       "reportedCostUsd": dist(reported) if reported else None,
                       "evidence": {"withEvidence": with_evidence, "coverage": with_evidence / len(obs)},
                       "acceptanceChecks": {"passed": sum(x.get("acceptanceChecksPassed", 0) for x in m),
                                            "total": sum(x.get("acceptanceChecksTotal", 0) for x in m)}})
    return result

def metric(arm, metric_id):
    if arm is None:
        return None
    return {"task-success": arm["successRate"], "tokens-to-answer": arm["totalTokens"]["median"],
            "time-to-answer": arm["durationMs"]["median"]}[metric_id]

LARGER = {"task-success": True, "tokens-to-answer": False, "time-to-answer": False}

def verdict(direction, threshold, larger, b, c):
    if b is None or c is None:
        return "not-measured"
    r = 0.0 if b == c else (math.copysign(math.inf, c - b) if b == 0 else (c - b) / abs(b))
    moved = -r if direction == "decrease" else r if direction == "increase" else (r if larger else -r)
    if direction == "no-regression":
        return "regressed" if moved < -threshold else "met"
    return "met" if moved >= threshold else ("regressed" if moved < 0 else "missed")

observations = json.load(open(sys.argv[2]))["observations"]
if sys.argv[1] == "arms":
    runs = sys.argv[3:]
    print(json.dumps(arms([o for o in observations if not runs or o["runId"] in runs])))
else:
    base, cur, targets = sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
    b_arms = {(a["modelId"], a["scenarioId"]): a for a in arms([o for o in observations if o.get("round") == base])}
    c_arms = {(a["modelId"], a["scenarioId"]): a for a in arms([o for o in observations if o.get("round") == cur])}
    out = []
    for key in sorted(set(b_arms) | set(c_arms)):
        for t in targets:
            b, c = metric(b_arms.get(key), t["metricId"]), metric(c_arms.get(key), t["metricId"])
            out.append([t["metricId"], key[0], key[1], verdict(t["direction"], t["threshold"], LARGER[t["metricId"]], b, c)])
    print(json.dumps(out))
PY
# same_arms <strata JSON output> <expected JSON>: every expected member equals strata's (numbers to 1e-9).
cat >"$WORK/same.py" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["report"]["arms"]
want = json.loads(open(sys.argv[2]).read())
def close(g, w, where):
    if isinstance(w, dict):
        assert isinstance(g, dict), where
        for k in w:
            close(g.get(k), w[k], f"{where}.{k}")
    elif isinstance(w, list):
        assert isinstance(g, list) and len(g) == len(w), f"{where}: got {g}, expected {w}"
        for i, (gi, wi) in enumerate(zip(g, w)):
            close(gi, wi, f"{where}[{i}]")
    elif isinstance(w, float) or isinstance(w, int):
        assert g is not None and abs(g - w) <= 1e-9 * max(1, abs(w)), f"{where}: got {g}, expected {w}"
    else:
        assert g == w, f"{where}: got {g!r}, expected {w!r}"
assert len(got) == len(want), f"{len(got)} arms, expected {len(want)}"
for g, w in zip(got, want):
    close(g, w, f"{w['modelId']}/{w['scenarioId']}")
PY
arms_match() {  # arms_match <ledger> [run ids...]: strata metrics --json of those runs against expected.py
  local ledger=$1
  shift
  local selection=()
  for id in "$@"; do selection+=(--run-id "$id"); done
  "$STRATA" metrics "$ledger" "${selection[@]}" >"$WORK/metrics.json" || return 1
  python3 "$WORK/expected.py" arms "$ledger" "$@" >"$WORK/expected.json" && python3 "$WORK/same.py" "$WORK/metrics.json" "$WORK/expected.json"
}

# --- per-arm figures --------------------------------------------------------------------------
expect_true "arms_match '$L' append-a" "round-1's arms equal the values computed from the ledger"
expect_true "arms_match '$L' append-b" "round-2's arms (all failed, no tokens) equal the values computed from the ledger"
run metrics "$L" --run-id append-a --text; expect_code 0 "metrics --text"
expect_out_has "Arm low-cost-model / deterministic-doc-bridge: 4 executions, success rate" "one line per arm"

# --- comparisons --------------------------------------------------------------------------
run metrics "$L" --baseline-round round-1 --current-round round-2 --text; expect_code 1 "round-1 -> round-2 regresses"
regressed_arms=$(python3 "$WORK/expected.py" verdicts "$L" round-1 round-2 \
  '[{"metricId": "task-success", "direction": "no-regression", "threshold": 0}]' | python3 -c 'import json,sys; print(sum(v[3] == "regressed" for v in json.load(sys.stdin)))')
expect_true "[ $regressed_arms -gt 0 ]" "the computed comparison has regressions ($regressed_arms)"
expect_out_has "Regressions: $regressed_arms" "every arm whose success rate fell is a regression"
expect_out_has "task-success no-regression 0, low-cost-model / deterministic-doc-bridge: 1 -> 0 (-100%): regressed" "the arm is named with both values"
run metrics "$L" --baseline-round round-1 --current-round round-2 --allow-regressions; expect_code 0 "--allow-regressions"
run metrics "$L" --baseline-round round-2 --current-round round-1; expect_code 0 "round-2 -> round-1 does not regress"
run metrics "$L" --baseline-run-id append-b --current-run-id append-a --text; expect_code 0 "compared by run ids"
expect_out_has "Comparison: run append-b -> run append-a" "the compared runs are named"

# A protocol's targets: tokens and time must fall by 25% / 20%, success must not regress.
targets=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["stopping"]["targets"]))' "$FIX/protocol-v1.json")
run metrics "$L" --protocol "$FIX/protocol-v1.json" --baseline-round round-1 --current-round round-2 --allow-regressions
expect_code 0 "the protocol's targets (regressions allowed)"
python3 "$WORK/expected.py" verdicts "$L" round-1 round-2 "$targets" >"$WORK/want.json"
python3 -c 'import json,sys; print(json.dumps([[t["metricId"], t["modelId"], t["scenarioId"], t["verdict"]] for t in json.load(open(sys.argv[1]))["report"]["comparison"]["targets"]]))' \
  "$WORK/stdout" >"$WORK/got.json"
expect_true "[ \"\$(cat '$WORK/got.json')\" = \"\$(cat '$WORK/want.json')\" ]" "every target's verdict equals the one computed here"
expect_true "grep -q not-measured '$WORK/want.json'" "tokens of a failed round are not measured (no verdict, no regression)"

# --- all-pending adjudications ---------------------------------------------------------------------
run adjudicate "$L" "$WORK/suite.json" --adjudicator "$WORK/judge.json" --output "$WORK/pending.json" --run-id append-a
expect_code 0 "adjudication by a judge that always fails"
run metrics "$WORK/pending.json" --run-id append-a; expect_code 0 "metrics of all-pending adjudications"
expect_true "python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))[\"report\"][\"arms\"]; sys.exit(not all(x[\"successRate\"] is None and x[\"result\"] == {\"pending\": x[\"executions\"]} for x in a))' '$WORK/stdout'" \
  "every arm: no success rate, every result pending"
run metrics "$WORK/pending.json" --baseline-run-id append-a --current-run-id append-b; expect_code 0 "a pending baseline does not regress"
expect_true "python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))[\"report\"][\"comparison\"][\"targets\"]; sys.exit(not all(x[\"verdict\"] == \"not-measured\" for x in t))' '$WORK/stdout'" \
  "pending results are not measured"

# --- bad input ------------------------------------------------------------------------------
run metrics "$L"; expect_code 2 "mixed rounds without a comparison"
expect_err_has "mixes rounds (round-1, round-2): choose runs with --run-id, or compare two rounds with --baseline-round and --current-round." "mixed rounds explained"
expect_out_empty "no report for mixed rounds"
run metrics "$L" --run-id nope; expect_code 2 "unknown run id"
expect_err_has "Ledger $L has no observations of run nope." "the run is named"
run metrics "$L" --baseline-round round-1 --current-round round-9; expect_code 2 "unknown round"
expect_err_has "has no observations of round round-9 (it has round-1, round-2)." "the rounds present are named"
run metrics "$L" --baseline-round round-1; expect_code 2 "half a comparison"
expect_err_has "--baseline-round and --current-round go together." "the missing flag is named"
run metrics "$L" --baseline-round round-1 --current-round round-2 --baseline-run-id append-a --current-run-id append-b
expect_code 2 "rounds and runs at once"
expect_err_has "Compare by rounds or by run ids, not both." "one kind of comparison"
python3 - "$FIX/protocol-v1.json" "$WORK/runtime-protocol.payload.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["stopping"]["targets"].append({"metricId": "docbridge-runtime", "direction": "decrease", "threshold": 0.1})
json.dump(p, open(sys.argv[2], "w"))
PY
"$STRATA" seal protocol "$WORK/runtime-protocol.payload.json" -o "$WORK/runtime-protocol.json" >/dev/null
run metrics "$L" --protocol "$WORK/runtime-protocol.json" --baseline-round round-1 --current-round round-2
expect_code 2 "a target Strata does not compute"
expect_err_has "Protocol target docbridge-runtime names a metric strata metrics does not compute" "the target is named"
expect_out_empty "no report for a target Strata does not compute"

finish
