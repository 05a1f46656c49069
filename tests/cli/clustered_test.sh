#!/usr/bin/env bash
# Clustered intervals, multiplicity adjustment and findings of strata metrics (docs/METRICS.md) on
# two real studies of the fixture suite (6 repositories x 4 tasks, one per category), pairwise
# sampling of repository-only (baseline) and deterministic-doc-bridge (current) for both models:
# 96 executions each, 24 pairs per model. The provider (provider.sh here, around the example
# provider, whose answer it completes so that the rubric always finds a success) answers every
# current task and fails (exit 1) some baseline tasks, chosen by the repository it runs in (its
# working directory) and the task's category:
#   - "confined": every task of consumer-01 and consumer-02, none elsewhere (b = 0, c = 8 of 24
#     pairs, McNemar p = 1/128): the plain interval excludes 0, but the pairs of a repository move
#     together, so the clustered interval (6 clusters, t on 5 degrees of freedom) includes 0, is
#     wider, has a design effect above 1, and the success finding says why. (Two repositories, not
#     one: a suite holds exactly four tasks per repository and pairwise sampling runs replicate 0
#     only, so one repository gives at most 4 discordant pairs a model, and b = 0, c = 4 cannot
#     exclude 0 from the plain interval with 20 pairs or more.)
#   - "spread": the discovery tasks everywhere and the architecture tasks of consumer-02, -04 and
#     -06 (c = 9 of 24, 1 or 2 in every repository): both intervals exclude 0 and the success
#     finding's verdict is "increased".
# Pairs, discordant pairs and the clustered interval (CR1 variance of the mean difference, t on
# G - 1 degrees of freedom from the closed form of Student's t for integer degrees of freedom) are
# recomputed here in Python from the ledger. Then --cluster category (the suite's 4 categories:
# below the 5 clusters an interval needs, so none, with a note), --multiplicity holm / bh / none
# against the raw p values (Holm and Benjamini-Hochberg recomputed from them here), and bad
# --multiplicity and --cluster values.
# Usage: clustered_test.sh <strata binary> <example provider binary> <fixtures dir>
STRATA=$(realpath "$1")
PROVIDER=$(realpath "$2")
FIX=$(realpath "$3")
. "$(dirname "$0")/lib.sh"

# provider.sh <confined|spread> <example provider>: the request on stdin; exit 1 for a baseline
# task the study fails, else the example provider's answer made a success (every evidence id the
# task requires, every acceptance check passed). Bash string matching on the compact request:
# no other process than the example provider.
cat >"$WORK/provider.sh" <<'SH'
#!/usr/bin/env bash
request=$(cat)
member() { REPLY=${request#*\"$1\":\"}; REPLY=${REPLY%%\"*}; }
member scenarioId; scenario=$REPLY
member category; category=$REPLY
repository=${PWD##*/}
if [ "$scenario" = repository-only ]; then
  case "$1/$repository/$category" in
    confined/consumer-01/* | confined/consumer-02/*) exit 1 ;;
    spread/*/discovery | spread/consumer-0[246]/architecture) exit 1 ;;
  esac
fi
ids= rest=${request#*\"evidenceRequirements\":\[}
rest=${rest%%\"acceptanceChecks\":*}
while [[ $rest == *'"id":"'* ]]; do rest=${rest#*\"id\":\"}; ids+=${ids:+,}\"${rest%%\"*}\"; done
answer=$("$2" --model any <<<"$request")
answer=${answer/\"taskOutcome\":\"partial\"/\"taskOutcome\":\"success\"}
[[ $answer =~ \"evidenceIds\":\[[^]]*\] ]] && answer=${answer/"${BASH_REMATCH[0]}"/\"evidenceIds\":[$ids]}
[[ $answer =~ \"acceptanceChecksTotal\":([0-9]+) ]] && total=${BASH_REMATCH[1]}
[[ $answer =~ \"acceptanceChecksPassed\":[0-9]+ ]] && answer=${answer/"${BASH_REMATCH[0]}"/\"acceptanceChecksPassed\":$total}
printf '%s\n' "$answer"
SH
chmod +x "$WORK/provider.sh"

fixture_repositories
python3 - "$WORK" "$FIX" "$PROVIDER" <<'PY'
import json, sys
from study_payloads import provider_entries, unsealed, write_provider_config
work, fix, provider = sys.argv[1:4]
plan = unsealed(f"{fix}/run-plan-v1.json")
plan["sampling"] = {"strategy": "pairwise-task-strata", "sampleSize": 4 * len(plan["taskIds"]),
                    "scenarioIds": ["repository-only", "deterministic-doc-bridge"]}
for study in ("confined", "spread"):
    plan["runId"] = f"clustered-{study}"
    json.dump(plan, open(f"{work}/plan-{study}.payload.json", "w"))
    write_provider_config(provider_entries(f"{work}/provider.sh", [study, provider]), f"{work}/{study}.payload.json")
PY
L=$WORK/ledger.json
for study in confined spread; do
  "$STRATA" seal run-plan "$WORK/plan-$study.payload.json" -o "$WORK/plan-$study.json" >/dev/null
  "$STRATA" seal provider-config "$WORK/$study.payload.json" -o "$WORK/$study-providers.json" >/dev/null
  run run "$WORK/plan-$study.json" "$FIX/task-suite-v1.json" --providers "$WORK/$study-providers.json" \
    --repositories "$WORK/repos.json" --ledger "$L" --jobs 8 --text
  expect_code 0 "run $study (96 executions)"
done

# check.py <strata> <ledger> <run id> <case> [metrics flags]: strata metrics --json of the run
# against the ledger; prints one line per problem and exits 1 when there is any. Cases: confined,
# spread, category (the clustered members and findings), multiplicity (holm, bh, none and the
# defaults).
cat >"$WORK/check.py" <<'PY'
import json, math, subprocess, sys
strata, ledger, run_id, case = sys.argv[1:5]
flags = sys.argv[5:]
problems = []

def metrics(*extra):
    done = subprocess.run([strata, "metrics", ledger, "--run-id", run_id, "--json", *extra], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"strata metrics {' '.join(extra)}: exit {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)["report"]

def t975(nu):
    """Student's t quantile 0.975 on nu (integer) degrees of freedom: bisection on the closed form
    of P(|T| <= t) (Abramowitz & Stegun 26.7.3-4)."""
    def mass(t):
        th = math.atan(t / math.sqrt(nu))
        c2, total, term = math.cos(th) ** 2, 0.0, 1.0
        if nu % 2:
            if nu == 1:
                return 2 / math.pi * th
            term = total = math.cos(th)
            for k in range(3, nu - 1, 2):
                term *= c2 * (k - 1) / k
                total += term
            return 2 / math.pi * (th + math.sin(th) * total)
        total = 1.0
        for k in range(2, nu - 1, 2):
            term *= c2 * (k - 1) / k
            total += term
        return math.sin(th) * total
    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mass(mid) < 0.95 else (lo, mid)
    return (lo + hi) / 2

def close(got, want, what, tol=1e-9):
    if got is None or want is None:
        if got is not want:
            problems.append(f"{what}: got {got}, expected {want}")
    elif isinstance(want, (list, tuple)):
        if not isinstance(got, list) or len(got) != len(want):
            problems.append(f"{what}: got {got}, expected {list(want)}")
        else:
            for i, (g, w) in enumerate(zip(got, want)):
                close(g, w, f"{what}[{i}]", tol)
    elif not isinstance(got, (int, float)) or abs(got - want) > tol * max(1.0, abs(want)):
        problems.append(f"{what}: got {got!r}, expected {want!r}")

def cr1(values, clusters):
    """(mean, CR1 variance of the mean, G): V = G/(G-1) sum_g (sum_{i in g} (x_i - mean))^2 / n^2."""
    n, mean = len(values), sum(values) / len(values)
    sums = {}
    for x, g in zip(values, clusters):
        sums[g] = sums.get(g, 0.0) + x - mean
    G = len(sums)
    return mean, (G / (G - 1) * sum(s * s for s in sums.values()) / n ** 2 if G > 1 else math.nan), G

# The run's pairs per model, from the ledger: (taskId, repositoryId, replicate) observed in both arms,
# the first observation of an arm when there are several.
by = flags[flags.index("--cluster") + 1] if "--cluster" in flags else "repository"
arms = {}
for o in json.load(open(ledger))["observations"]:
    if o["runId"] != run_id:
        continue
    t, a, e = o["task"], o["adjudication"], o["execution"]
    tokens = e["inputTokens"] + e["outputTokens"] if "inputTokens" in e and "outputTokens" in e else None
    arms.setdefault((t["modelId"], t["scenarioId"]), {}).setdefault((t["taskId"], t["repositoryId"], t["replicate"]), {
        "decided": a["status"] != "pending", "success": a.get("outcome") == "success",
        "cluster": t["repositoryId"] if by == "repository" else t["category"],
        "totalTokens": tokens, "durationMs": e["durationMs"]})

def pairs_of(p):
    base, cur = arms[(p["modelId"], p["baselineScenarioId"])], arms[(p["modelId"], p["currentScenarioId"])]
    return [(base[k], cur[k]) for k in base if k in cur]

def check_clustered(got, values, clusters, what, ratio_of=None):
    """got: a "clustered" member; values: the per-pair differences (or, with ratio_of, the
    (baseline, current) values of a ratio of means)."""
    G = len(set(clusters))
    if not isinstance(got, dict):
        problems.append(f"{what}: no clustered member ({got})")
        return
    if got.get("by") != by or got.get("clusters") != G:
        problems.append(f"{what}: by {got.get('by')} with {got.get('clusters')} clusters, expected {by} with {G}")
    if G < 5:
        if got.get("interval") is not None or not isinstance(got.get("note"), str) or not got["note"]:
            problems.append(f"{what}: {G} clusters, expected a null interval and a note: {got}")
        return
    if ratio_of:
        b, c = [x for x, _ in ratio_of], [y for _, y in ratio_of]
        mb, mc = sum(b) / len(b), sum(c) / len(c)
        _, v, _ = cr1([y / mc - x / mb for x, y in ratio_of], clusters)
        ratio, se = mc / mb, math.sqrt(v)
        half = t975(G - 1) * se
        close(got.get("ratio"), ratio, f"{what}.ratio")
        close(got.get("interval"), (ratio * math.exp(-half), ratio * math.exp(half)), f"{what}.interval")
        close(got.get("standardError"), se, f"{what}.standardError")
        return
    mean, v, _ = cr1(values, clusters)
    _, v1, _ = cr1(values, list(range(len(values))))
    se = math.sqrt(v)
    close(got.get("difference"), mean, f"{what}.difference")
    close(got.get("interval"), (mean - t975(G - 1) * se, mean + t975(G - 1) * se), f"{what}.interval")
    close(got.get("standardError"), se, f"{what}.standardError")
    if v1 > 0:
        close(got.get("designEffect"), v / v1, f"{what}.designEffect")

def raw_p(measure):
    if measure is None:
        return None
    if "mcnemarP" in measure:
        return measure["mcnemarP"]
    return (measure.get("wilcoxon") or {}).get("p")

def tests_of(report):
    return [(f'{p["modelId"]} {m}', raw_p(p[m]), (p[m] or {}).get("adjustedP"))
            for p in report["paired"] for m in ("success", "totalTokens", "costUsd", "durationMs")]

def holm(ps):
    order, out, running = sorted(range(len(ps)), key=lambda i: ps[i]), [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = running
    return out

def bh(ps):
    order, out, running = sorted(range(len(ps)), key=lambda i: ps[i], reverse=True), [0.0] * len(ps), 1.0
    for rank, i in enumerate(order):
        running = min(running, len(ps) / (len(ps) - rank) * ps[i])
        out[i] = running
    return out

if case == "multiplicity":
    reports = {m: metrics(*flags, "--multiplicity", m) for m in ("holm", "bh", "none")}
    default = metrics(*flags)
    if default != reports["holm"] or ("--cluster" not in flags and default != metrics("--cluster", "repository")):
        problems.append("the defaults are not --cluster repository --multiplicity holm")
    tests = {m: tests_of(r) for m, r in reports.items()}
    family = [p for _, p, _ in tests["none"] if p is not None]
    for method, report in reports.items():
        want = {"method": method, "alpha": 0.05, "tests": len(family)}
        if {k: report["multiplicity"].get(k) for k in want} != want or not report["multiplicity"].get("family"):
            problems.append(f'{method}: multiplicity {report["multiplicity"]}, expected {want} and a family')
        adjusted = {"holm": holm, "bh": bh, "none": lambda ps: ps}[method](family)
        for (name, p, got), want_p in zip([t for t in tests[method] if t[1] is not None], adjusted):
            close(got, want_p, f"{method}: adjustedP of {name} (raw {p})", 1e-12)
        for name, p, got in tests[method]:
            if p is None and got is not None:
                problems.append(f"{method}: {name} has no p but adjustedP {got}")
    for (name, p, h), (_, _, b), (_, _, n) in zip(tests["holm"], tests["bh"], tests["none"]):
        if p is not None and not (n == p and h >= b - 1e-15 and b >= p - 1e-15):
            problems.append(f"{name}: expected none == raw, holm >= bh >= raw: raw {p}, holm {h}, bh {b}, none {n}")
    if not any(h > b for (_, p, h), (_, _, b) in zip(tests["holm"], tests["bh"]) if p is not None):
        problems.append("holm never above bh: the family does not tell them apart")
    print("\n".join(problems))
    sys.exit(1 if problems else 0)

report = metrics(*flags)
if report["clustering"] != {"by": by, "minimumClusters": 5}:
    problems.append(f'clustering {report["clustering"]}')
if len(report["paired"]) != 2:
    problems.append(f'{len(report["paired"])} paired comparisons, expected 2 (one per model)')
findings = {(f["modelId"], f["baselineScenarioId"], f["currentScenarioId"], f["measure"]): f for f in report["findings"]}
if len(findings) != len(report["findings"]) or len(findings) != 3 * len(report["paired"]):
    problems.append(f'{len(report["findings"])} findings, expected one per comparison and measure (success, totalTokens, costUsd)')
for p in report["paired"]:
    model, s = p["modelId"], p["success"]
    pairs = pairs_of(p)
    decided = [(b, c) for b, c in pairs if b["decided"] and c["decided"]]
    b = sum(1 for x, y in decided if x["success"] and not y["success"])
    c = sum(1 for x, y in decided if y["success"] and not x["success"])
    if (p["pairs"], s["pairs"], s["baselineOnly"], s["currentOnly"]) != (len(pairs), len(decided), b, c) or len(pairs) != 24:
        problems.append(f'{model}: pairs {p["pairs"]}/{s["pairs"]}, b {s["baselineOnly"]}, c {s["currentOnly"]}; '
                        f'the ledger: {len(pairs)}/{len(decided)} (24 expected), b {b}, c {c}')
    check_clustered(s.get("clustered"), [int(y["success"]) - int(x["success"]) for x, y in decided],
                    [x["cluster"] for x, _ in decided], f"{model} success.clustered")
    d = s.get("detectable") or {}
    if d.get("discordanceFrom") not in ("observed", "assumed") or d.get("alpha") != 0.05:
        problems.append(f"{model}: success.detectable {d}")
    for m in ("totalTokens", "durationMs"):
        both = [(x[m], y[m]) for x, y in pairs if x[m] is not None and y[m] is not None]
        if p[m] is None:
            if both:
                problems.append(f"{model}: {m} null, but {len(both)} pairs report it")
            continue
        ratio = p[m].get("meanRatio")
        if not isinstance(ratio, dict):
            problems.append(f"{model}: {m}.meanRatio {ratio}")
            continue
        close(ratio.get("ratio"), sum(y for _, y in both) / sum(x for x, _ in both), f"{model} {m}.meanRatio.ratio")
        check_clustered(ratio.get("clustered"), None,
                        [x["cluster"] for x, y in pairs if x[m] is not None and y[m] is not None],
                        f"{model} {m}.meanRatio.clustered", ratio_of=both)
    found = {m: findings.get((model, p["baselineScenarioId"], p["currentScenarioId"], m)) for m in ("success", "totalTokens", "costUsd")}
    for m, f in found.items():
        if f is None or not isinstance(f.get("sentence"), str) or not f["sentence"]:
            problems.append(f"{model}: no {m} finding with a sentence: {f}")
            found[m] = {}
        elif p[m] is None and f.get("verdict") != "not measured":
            problems.append(f'{model}: {m} is null but its finding says {f.get("verdict")}')
    f = found["success"]
    want = {"estimate": s["difference"], "interval": s["interval"], "clusteredInterval": (s.get("clustered") or {}).get("interval"),
            "adjustedP": s.get("adjustedP")}
    if {k: f.get(k) for k in want} != want:
        problems.append(f"{model}: the success finding {f} does not carry the comparison's {want}")
    plain, clustered = s["interval"], (s.get("clustered") or {}).get("interval")
    designed = {"confined": (0, 8), "spread": (0, 9)}.get(run_id.split("-")[-1])
    if (b, c) != designed:
        problems.append(f"{model}: the provider did not make the study's effect: b {b}, c {c}, expected {designed}")
    if case == "confined":
        if not (plain[0] > 0 and clustered and clustered[0] < 0 < clustered[1]
                and clustered[1] - clustered[0] > plain[1] - plain[0] and s["clustered"].get("designEffect", 0) > 1):
            problems.append(f'{model}: expected the plain interval {plain} above 0, the clustered one {clustered} '
                            f'around 0 and wider, design effect {s["clustered"].get("designEffect")} above 1')
        if "clustered interval includes 0" not in f.get("sentence", ""):
            problems.append(f'{model}: the success finding does not say why: {f.get("sentence")}')
    elif case == "spread":
        if not (plain[0] > 0 and clustered and clustered[0] > 0):
            problems.append(f"{model}: expected both intervals above 0: plain {plain}, clustered {clustered}")
        if f.get("verdict") != "increased" or "clustered interval includes 0" in f.get("sentence", ""):
            problems.append(f'{model}: the success finding: {f.get("verdict")}: {f.get("sentence")}')
    elif case == "category":
        if clustered is not None or s["clustered"].get("clusters") != 4:
            problems.append(f'{model}: 4 categories, expected no clustered interval: {s["clustered"]}')
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
check() {  # check <run> <case> <what> [metrics flags]
  local run=$1 case=$2 what=$3
  shift 3
  python3 "$WORK/check.py" "$STRATA" "$L" "clustered-$run" "$case" "$@" >"$WORK/check.out" 2>&1
  expect_true "[ $? = 0 ]" "$what: $(cat "$WORK/check.out")"
}
check confined confined "an effect confined to two repositories: the plain interval excludes 0, the clustered one does not, the finding says why"
check spread spread "an effect in every repository: both intervals exclude 0, the finding says increased"
check spread category "--cluster category: 4 clusters, no clustered interval, a note" --cluster category
check confined category "--cluster category on the confined study" --cluster category
check confined multiplicity "--multiplicity holm, bh, none on the confined study"
check spread multiplicity "--multiplicity holm, bh, none on the spread study"
check spread multiplicity "--multiplicity with --cluster category" --cluster category

bad_flag() {  # bad_flag <flag> <value> <accepted values...>: non-zero exit, a message naming them, nothing on stdout
  local flag=$1 value=$2
  shift 2
  run metrics "$L" --run-id clustered-spread "$flag" "$value"
  expect_true "[ $CODE != 0 ]" "$flag $value: a non-zero exit"
  expect_out_empty "$flag $value"
  expect_err_has "$flag" "$flag $value: the message names the flag"
  for accepted in "$@"; do expect_err_has "$accepted" "$flag $value: the message names $accepted"; done
}
bad_flag --multiplicity bonferroni holm bh none
bad_flag --cluster model repository category

finish
