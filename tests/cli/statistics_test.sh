#!/usr/bin/env bash
# model/results/statistics against an independent computation in Python's standard library (SciPy cannot
# be installed beside libboost1.81-dev, see docs/DECISIONS.md): exact binomial sums with integer
# arithmetic, the signed-rank null distribution by brute-force enumeration of every sign pattern,
# the normal distribution from statistics.NormalDist, textbook Wilson intervals, and the verified
# agreement (issue 43) counted again from its definitions.
# Usage: statistics_test.sh <strata-stats-probe binary>
PROBE=$(realpath "$1")
STRATA=$PROBE  # lib.sh's run() is not used here
. "$(dirname "$0")/lib.sh"

cat >"$WORK/check.py" <<'PY'
import itertools, json, math, random, subprocess, sys
from fractions import Fraction
from statistics import NormalDist

Z = NormalDist().inv_cdf(0.975)
random.seed(20261202)
cases = [{"kind": "wilson", "successes": k, "n": n} for k, n in ((0, 10), (5, 10), (10, 10), (1, 1), (37, 120), (3, 1000))]
cases += [{"kind": "mcnemar", "b": b, "c": c, "n": n} for b, c, n in ((0, 0, 20), (3, 9, 40), (0, 6, 10), (25, 10, 100), (1, 1, 5), (0, 30, 30))]
samples = {
    "five pairs (too few)": [3, -1, 4, 1, 5],
    "eight distinct": [1.5, -0.25, 3, 4.75, -2, 6, 0.5, 9],
    "twelve distinct, mostly positive": [random.uniform(-1, 3) for _ in range(12)],
    "fourteen distinct, no effect": [random.uniform(-1, 1) for _ in range(14)],
    "ties": [2, 2, -2, 3, 3, 5, 1, -1, 4, 4],
    "a zero": [0, 1, -2, 3, 4, 5, 6, -7],
    "sixty (normal)": [random.gauss(0.3, 1) for _ in range(60)],
    "1,500 with many ties (the Walsh averages are selected, not built)": [round(random.gauss(40, 300)) for _ in range(1500)],
}
cases += [{"kind": "wilcoxon", "differences": d} for d in samples.values()]
# The verified agreement (issue 43): arms of every kind, as (claimed passed, claimed total,
# verified passed, verified total) per observation, None for a part that is absent.
def observation(claim, verified):
    m = {}
    if claim is not None:
        m["acceptanceChecksPassed"], m["acceptanceChecksTotal"] = claim
    if verified is not None:
        m["verifiedChecksPassed"], m["verifiedChecksTotal"] = verified
        m["verifiedChecksExecuted"] = verified[1]
    return {"measurements": m}
agreement_arms = {
    "nothing verified": [((2, 2), None)] * 5,
    "every claim true (n agreement)": [((2, 2), (2, 2))] * 7 + [((1, 2), (1, 2))] * 2,
    "no claim true (0 agreement)": [((3, 3), (1, 3))] * 6,
    "mixed, with no claims and unverified": [((2, 2), (2, 2))] * 9 + [((2, 2), (0, 2))] * 7 + [((0, 2), (2, 2))] * 3
        + [(None, (2, 2))] * 4 + [((2, 2), None)] * 2 + [((3, 3), (2, 2))] + [(None, None)],
    "empty": [],
    "random": [(random.choice([None, (2, 2), (1, 2), (0, 2)]), random.choice([None, (2, 2), (1, 2), (0, 2)])) for _ in range(200)],
}
cases += [{"kind": "agreement", "name": name, "observations": [observation(*o) for o in arm]} for name, arm in agreement_arms.items()]
got = json.loads(subprocess.run([sys.argv[1]], input=json.dumps(cases), capture_output=True, text=True, check=True).stdout)

failures = []
def close(a, b, what, tol=1e-9):
    if a is None or b is None:
        if a is not b:
            failures.append(f"{what}: got {a}, expected {b}")
    elif abs(a - b) > tol * max(1, abs(b)):
        failures.append(f"{what}: got {a!r}, expected {b!r}")

def wilson(k, n):
    p = k / n
    d = 1 + Z * Z / n
    c = (p + Z * Z / (2 * n)) / d
    h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return max(0, c - h), min(1, c + h)

# Null distribution of W+ (sum of the positive ranks) by enumerating every sign pattern.
def w_plus_distribution(n):
    counts = {}
    for signs in itertools.product((0, 1), repeat=n):
        w = sum(r for r, s in zip(range(1, n + 1), signs) if s)
        counts[w] = counts.get(w, 0) + 1
    return counts

def cdf(counts, n, w):
    return Fraction(sum(c for v, c in counts.items() if v <= w), 2 ** n)

def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r

def agreement(arm):
    """The agreement counted here, from the definitions in docs/METRICS.md."""
    out = {"verified": 0, "notVerified": 0, "verifiedPassed": 0, "claimed": 0, "claimedPassed": 0,
           "confirmed": 0, "claimedButFailed": 0, "notClaimedButPassed": 0, "notClaimedNotPassed": 0, "verifiedWithoutClaim": 0}
    for claim, verified in arm:
        checks = verified[1] if verified else (claim[1] if claim else None)
        claims_all = None if claim is None else (claim[0] == claim[1] == checks)
        if claim is not None:
            out["claimed"] += 1
            out["claimedPassed"] += claims_all
        if verified is None:
            out["notVerified"] += 1
            continue
        out["verified"] += 1
        passed = verified[1] > 0 and verified[0] == verified[1]
        out["verifiedPassed"] += passed
        key = ("verifiedWithoutClaim" if claim is None else "confirmed" if claims_all and passed else
               "claimedButFailed" if claims_all else "notClaimedButPassed" if passed else "notClaimedNotPassed")
        out[key] += 1
    return out

for case, result in zip(cases, got):
    if case["kind"] == "agreement":
        want = agreement(agreement_arms[case["name"]])
        a = result["agreement"]
        for k in ("verified", "notVerified", "verifiedPassed", "claimed", "claimedPassed"):
            close(result[k], want[k], f"agreement {case['name']}: {k}")
        for k in ("confirmed", "claimedButFailed", "notClaimedButPassed", "notClaimedNotPassed", "verifiedWithoutClaim"):
            close(a[k], want[k], f"agreement {case['name']}: {k}")
        claims = want["confirmed"] + want["claimedButFailed"]
        close(result["claimsVerified"], claims, f"agreement {case['name']}: claimsVerified")
        for rate, interval, k, n in (("verifiedRate", "verifiedInterval", want["verifiedPassed"], want["verified"]),
                                     ("claimedRate", "claimedInterval", want["claimedPassed"], want["claimed"]),
                                     ("claimsTrueRate", "claimsTrueInterval", want["confirmed"], claims)):
            if n == 0:
                if result[rate] is not None or result[interval] is not None:
                    failures.append(f"agreement {case['name']}: {rate} on nothing: {result[rate]} {result[interval]}")
                continue
            close(result[rate], k / n, f"agreement {case['name']}: {rate}")
            low, high = wilson(k, n)
            close(result[interval][0], low, f"agreement {case['name']}: {interval} low")
            close(result[interval][1], high, f"agreement {case['name']}: {interval} high")
    elif case["kind"] == "wilson":
        low, high = wilson(case["successes"], case["n"])
        close(result["interval"][0], low, f"wilson {case} low")
        close(result["interval"][1], high, f"wilson {case} high")
    elif case["kind"] == "mcnemar":
        b, c, n = case["b"], case["c"], case["n"]
        m = b + c
        p = None if m == 0 else float(min(1, 2 * Fraction(sum(math.comb(m, k) for k in range(min(b, c) + 1)), 2 ** m)))
        close(result["p"], p, f"mcnemar {case} p")
        N, p12, p21 = n + 2, (b + 0.5) / (n + 2), (c + 0.5) / (n + 2)
        half = Z * math.sqrt((p12 + p21 - (p21 - p12) ** 2) / N)
        close(result["interval"][0], max(-1, p21 - p12 - half), f"paired difference {case} low")
        close(result["interval"][1], min(1, p21 - p12 + half), f"paired difference {case} high")
    else:
        d = case["differences"]
        nz = [x for x in d if x != 0]
        n = len(nz)
        name = next(k for k, v in samples.items() if v == d)
        if n < 6:
            if result["test"] is not None or result["shift"] is not None:
                failures.append(f"{name}: a test on {n} pairs")
            continue
        r = ranks([abs(x) for x in nz])
        t = min(sum(ri for ri, x in zip(r, nz) if x > 0), sum(ri for ri, x in zip(r, nz) if x < 0))
        tied = len(set(abs(x) for x in nz)) < n
        exact = n <= 50 and not tied and n == len(d)
        if exact:
            p = float(min(1, 2 * cdf(w_plus_distribution(n), n, t)))
        else:
            groups = {}
            for x in nz:
                groups[abs(x)] = groups.get(abs(x), 0) + 1
            ties = sum(g ** 3 - g for g in groups.values())
            se = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - ties / 48)
            p = min(1, 2 * (1 - NormalDist().cdf(abs((t - n * (n + 1) / 4) / se))))
        close(result["test"]["statistic"], t, f"{name}: statistic")
        close(result["test"]["p"], p, f"{name}: p", 1e-7)
        if result["test"]["exact"] != exact:
            failures.append(f"{name}: exact={result['test']['exact']}, expected {exact}")
        # Hodges-Lehmann: the median Walsh average, the interval from the same null distribution.
        N = len(d)
        walsh = sorted((d[i] + d[j]) / 2 for i in range(N) for j in range(i, N))
        M = len(walsh)
        estimate = walsh[M // 2] if M % 2 else (walsh[M // 2 - 1] + walsh[M // 2]) / 2
        if N <= 16:
            counts = w_plus_distribution(N)
            c = 1
            while c < M and cdf(counts, N, c) <= Fraction(25, 1000):
                c += 1
        else:
            c = max(1, math.floor(N * (N + 1) / 4 - Z * math.sqrt(N * (N + 1) * (2 * N + 1) / 24)))
        close(result["shift"]["estimate"], estimate, f"{name}: Hodges-Lehmann estimate")
        close(result["shift"]["interval"][0], walsh[c - 1], f"{name}: interval low")
        close(result["shift"]["interval"][1], walsh[M - c], f"{name}: interval high")

# Textbook values (Newcombe 1998, table I): 0/10 -> 0 to 0.2775, 5/10 -> 0.2366 to 0.7634.
close(got[0]["interval"][1], 0.2775, "wilson 0/10 against the textbook", 2e-4)
close(got[1]["interval"][0], 0.2366, "wilson 5/10 against the textbook", 2e-4)
print("\n".join(failures) if failures else f"ok {len(cases)}")
PY
out=$(python3 "$WORK/check.py" "$PROBE" 2>&1)
expect_true "[ \"\$out\" = 'ok 26' ]" "every statistic equals the independent computation: $out"
finish
