#!/usr/bin/env bash
# model/results/mcnemar_power, model/results/cluster_robust and model/results/multiplicity against an independent
# computation in Python's standard library (no SciPy, see statistics_test.sh): the power of the
# exact McNemar test summed exactly in rational arithmetic over every (discordant, favouring)
# count, the detectable effect and the pairs needed checked against that exact power (the pairs
# needed by brute force from one pair upward), a seeded simulation of the plan's pairs, the
# cluster-robust (CR1) variances from their definitions with Student's t quantile from the
# closed-form series of its distribution (Abramowitz and Stegun 26.7.3-4) inverted by bisection,
# and Holm's and Benjamini-Hochberg's adjustments from closed testing and the q-value definition.
# Usage: power_statistics_test.sh <strata-stats-probe binary>
PROBE=$(realpath "$1")
STRATA=$PROBE  # lib.sh's run() is not used here
. "$(dirname "$0")/lib.sh"
CODE=0; : >"$WORK/stdout"; : >"$WORK/stderr"  # what fail() reports: no command runs through run()

cat >"$WORK/check.py" <<'PY'
import itertools, json, math, random, subprocess, sys
from fractions import Fraction
from functools import lru_cache
from statistics import NormalDist

random.seed(20261207)
failures = []

def probe(cases):
    return json.loads(subprocess.run([sys.argv[1]], input=json.dumps(cases), capture_output=True, text=True, check=True).stdout)

def close(a, b, what, tol=1e-9):
    """Relative tolerance (absolute for expected values within 1e-15 of zero); None only with None."""
    if a is None or b is None:
        if a is not b:
            failures.append(f"{what}: got {a}, expected {b}")
    elif not abs(a - b) <= tol * abs(b) + 1e-15:
        failures.append(f"{what}: got {a!r}, expected {b!r}")

def exact(x):
    """The decimal a case was written with (0.3 -> 3/10), not the binary double nearest it."""
    return Fraction(repr(x))

# ---- The exact McNemar test and its power, in rational arithmetic -----------------------------

@lru_cache(maxsize=None)
def rejects(d, alpha):
    """For d discordant pairs, whether the test rejects with c of them favouring the current arm
    (b = d - c): p = min(1, 2 P[Binomial(d, 1/2) <= min(b, c)]) <= alpha, from the definition."""
    prefix, total = [], 0
    for j in range(d + 1):
        total += math.comb(d, j)
        prefix.append(total)
    return tuple(d > 0 and min(1, Fraction(2 * prefix[min(c, d - c)], 2 ** d)) <= alpha for c in range(d + 1))

class ExactPower:
    """P[reject] over n pairs: D ~ Binomial(n, psi), C | D = d ~ Binomial(d, q), q = (psi + effect) / (2 psi),
    as one integer numerator over (S R)^n (psi = s / S, q = r / R)."""
    def __init__(self, effect, psi, alpha):
        self.psi, self.alpha = psi, alpha
        q = (psi + effect) / (2 * psi)
        assert 0 <= q <= 1
        self.r, self.R = q.numerator, q.denominator
        self.inner = []  # inner[d] = sum over rejecting c of C(d, c) r^c (R - r)^(d - c)

    def inner_sum(self, d):
        while len(self.inner) <= d:
            k = len(self.inner)
            r, R = self.r, self.R
            self.inner.append(sum(math.comb(k, c) * r ** c * (R - r) ** (k - c) for c, yes in enumerate(rejects(k, self.alpha)) if yes))
        return self.inner[d]

    def __call__(self, n):
        s, S, R = self.psi.numerator, self.psi.denominator, self.R
        total = sum(math.comb(n, d) * s ** d * (S - s) ** (n - d) * R ** (n - d) * self.inner_sum(d) for d in range(n + 1))
        return Fraction(total, (S * R) ** n)

def power(n, effect, psi, alpha):
    return ExactPower(effect, psi, alpha)(n)

# ---- Student's t, independently: P(|T| <= t) for integer df by A&S 26.7.3 (odd) and 26.7.4 (even) ----

def t_central(t, nu):
    theta = math.atan(t / math.sqrt(nu))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if nu % 2:
        series, term = 0.0, 1.0
        if nu > 1:
            series = 1.0
            for k in range(1, (nu - 3) // 2 + 1):  # terms 2.4...(2k) / 1.3...(2k+1) cos^(2k)
                term *= (2 * k) / (2 * k + 1) * c2
                series += term
        return 2 / math.pi * (theta + (s * math.cos(theta) * series if nu > 1 else 0.0))
    series, term = 1.0, 1.0
    for k in range(1, (nu - 2) // 2 + 1):  # terms 1.3...(2k-1) / 2.4...(2k) cos^(2k)
        term *= (2 * k - 1) / (2 * k) * c2
        series += term
    return s * series

@lru_cache(maxsize=None)
def t975(nu):
    low, high = 0.0, 1e4
    while True:
        mid = (low + high) / 2
        if mid in (low, high):
            return high
        if t_central(mid, nu) < 0.95:
            low = mid
        else:
            high = mid

# The quantile against values from the regularised incomplete beta function in 30-digit arithmetic
# (mpmath's betainc and findroot, computed once, rounded to 17 digits).
for nu, value in ((1, 12.706204736174705), (2, 4.3026527297494639), (4, 2.7764451051977944), (9, 2.2621571627982055),
                  (29, 2.0452296421327043), (120, 1.9799304050824408)):
    close(t975(nu), value, f"t quantile on {nu} degrees of freedom (the test's own)", 1e-12)

# ---- Cluster-robust (CR1) variances from the definition --------------------------------------

def cr1(influence, clusters):
    """G, and G / (G - 1) * sum over clusters of (sum of influence)^2 / n^2."""
    n = len(influence)
    names = clusters if clusters else [str(i) for i in range(n)]
    sums = {}
    for u, g in zip(influence, names):
        sums[g] = sums.get(g, 0.0) + u
    G = len(sums)
    return G, (G / (G - 1) * sum(v * v for v in sums.values()) / (n * n) if G > 1 else None)

def design_effect(v, v_plain):
    # Zero spread (every influence 0): no widening, by convention 1 (what "1 for independent
    # pairs" extends to).
    return 1.0 if v == 0 and v_plain == 0 else v / v_plain

def clustered_mean(values, clusters):
    n = len(values)
    mean = math.fsum(values) / n
    u = [x - mean for x in values]
    G, v = cr1(u, clusters)
    if G < 5:
        return None
    _, v_plain = cr1(u, [])
    se, t = math.sqrt(v), t975(G - 1)
    return {"estimate": mean, "interval": [mean - t * se, mean + t * se], "standard_error": se, "clusters": G,
            "design_effect": design_effect(v, v_plain)}

def ratio_of_means(baseline, current, clusters):
    n = len(baseline)
    mb, mc = math.fsum(baseline) / n, math.fsum(current) / n
    G = len(set(clusters)) if clusters else n
    if G < 5 or mb <= 0 or mc <= 0:
        return None
    u = [c / mc - b / mb for b, c in zip(baseline, current)]
    _, v = cr1(u, clusters)
    _, v_plain = cr1(u, [])
    ratio, se, t = mc / mb, math.sqrt(v), t975(G - 1)
    return {"estimate": ratio, "interval": [math.exp(math.log(ratio) - t * se), math.exp(math.log(ratio) + t * se)],
            "standard_error": se, "clusters": G, "design_effect": design_effect(v, v_plain)}

# ---- Multiplicity, from definitions other than the step-down / step-up recursions --------------

def holm_closed_testing(p):
    """Holm = closed testing with Bonferroni's local test: the adjusted p of H_i is the largest
    Bonferroni p, min(1, |S| min_S p), over every intersection S that contains i."""
    m = len(p)
    out = []
    for i in range(m):
        others = [j for j in range(m) if j != i]
        best = 0.0
        for size in range(m):
            for rest in itertools.combinations(others, size):
                S = (i,) + rest
                best = max(best, min(1.0, len(S) * min(p[j] for j in S)))
        out.append(best)
    return out

def bh_q_values(p):
    """Benjamini-Hochberg's adjusted p = the q-value: the smallest m t / #{j: p_j <= t} over the
    thresholds t >= p_i among the p-values, capped at 1."""
    m = len(p)
    return [min(1.0, min(m * t / sum(1 for x in p if x <= t) for t in p if t >= pi)) for pi in p]

# ---- The cases -------------------------------------------------------------------------------

power_cases = [  # pairs, effect, discordance, alpha
    (10, 0.2, 0.3, 0.05), (20, 0.1, 0.3, 0.05), (30, 0.15, 0.3, 0.05), (30, -0.15, 0.3, 0.05),
    (48, 0.3, 0.3, 0.05),    # effect = discordance: every discordant pair favours the current arm
    (48, -0.3, 0.3, 0.05),   # and the baseline
    (60, 0.0, 0.3, 0.05),    # no effect: the size, at most alpha
    (25, 0.25, 0.5, 0.01), (40, 0.05, 0.1, 0.1), (60, 0.4, 1.0, 0.05), (12, 0.6, 0.7, 0.2),
    (60, 0.02, 0.05, 0.05),  # rare discordance
    (5, 0.3, 0.3, 0.05),     # five pairs: p >= 1/16 > 0.05, never rejects
    (1, 0.5, 0.5, 0.05),
    (20, 0.2, 0.5, 0.0625),  # alpha = 2/2^5 exactly: p <= alpha, not <, at five discordant pairs
    (37, 0.123, 0.456, 0.05),
]
mde_cases = [  # pairs, discordance, alpha, power
    (48, 0.3, 0.05, 0.8),    # the simulated plan below
    (30, 0.3, 0.05, 0.8), (60, 0.5, 0.01, 0.9), (40, 0.2, 0.1, 0.5), (10, 1.0, 0.05, 0.8), (25, 0.6, 0.05, 0.8),
    (20, 0.3, 0.05, 0.8),    # P[at least 6 discordant] = 0.58: not even effect = discordance
    (60, 0.1, 0.05, 0.8),    # the same, 0.55
]
needed_cases = [  # effect, discordance, alpha, power
    (0.2, 0.3, 0.05, 0.8), (-0.2, 0.3, 0.05, 0.8), (0.3, 0.3, 0.05, 0.8), (0.25, 0.5, 0.01, 0.9),
    (0.1, 0.1, 0.05, 0.8), (0.5, 1.0, 0.05, 0.95), (0.15, 0.2, 0.1, 0.5), (0.35, 0.4, 0.05, 0.99),
    (0.002, 0.3, 0.05, 0.8),  # Connor: about 590,000 pairs, above kMaxPowerPairs
]
K_MAX_POWER_PAIRS = 100000

def group(names, sizes):
    return [name for name, size in zip(names, sizes) for _ in range(size)]

def shuffled(xs):
    xs = list(xs)
    random.shuffle(xs)
    return xs

letters = [chr(ord("a") + i) for i in range(26)]
mean_cases = {
    "seven clusters of unequal sizes, one of one": ([random.gauss(0.5, 1) for _ in range(23)], group(letters, (1, 2, 7, 3, 4, 5, 1))),
    "exactly five clusters": ([random.uniform(0, 10) for _ in range(11)], group(letters, (3, 1, 2, 4, 1))),
    "four clusters (too few)": ([random.uniform(0, 10) for _ in range(11)], group(letters, (3, 3, 3, 2))),
    "no clusters: every value its own": ([random.gauss(3, 2) for _ in range(12)], []),
    "no clusters, four values (too few)": ([1.0, 2.0, 4.0, 8.0], []),
    "no clusters, five values": ([1.0, 2.0, 4.0, 8.0, 16.0], []),
    "every value equal": ([0.75] * 14, group(letters, (2, 3, 1, 4, 2, 2))),
    "successes (0/1), eight clusters, correlated within": (
        [float(random.random() < p) for p, k in zip((0.1, 0.9, 0.5, 0.3, 0.8, 0.2, 0.6, 0.95), (4, 6, 3, 5, 2, 7, 4, 1)) for _ in range(k)],
        group(letters, (4, 6, 3, 5, 2, 7, 4, 1))),
    "clusters interleaved, not contiguous": ([random.gauss(0, 1) + (i % 6) for i in range(30)], [f"repo-{i % 6}" for i in range(30)]),
    "names differing in case only": ([1.0, 3.0, 2.0, 5.0, 4.0, 9.0, 2.5], ["x", "X", "y", "Y", "z", "Z", "x"]),
    "200 values, 40 clusters of random sizes": (
        [random.gauss(1, 3) for _ in range(200)], shuffled(f"c{random.randrange(40) if i >= 40 else i}" for i in range(200))),
}
ratio_cases = {
    "costs, eight clusters of unequal sizes, interleaved": (
        [random.uniform(1, 5) for _ in range(27)], None, shuffled(group(letters, (1, 2, 5, 3, 4, 6, 2, 4)))),
    "exactly five clusters": ([random.uniform(1, 3) for _ in range(9)], None, group(letters, (2, 1, 3, 2, 1))),
    "four clusters (too few)": ([random.uniform(1, 3) for _ in range(9)], None, group(letters, (2, 3, 2, 2))),
    "no clusters": ([random.uniform(0.5, 2) for _ in range(15)], None, []),
    "some baseline zeros, positive mean": ([0, 0, 1.5, 2.0, 0, 3.0, 1.0, 0.5], [0.2, 0.1, 1.0, 1.1, 0.4, 2.0, 1.2, 0.3],
                                           ["a", "a", "b", "c", "d", "e", "e", "f"]),
    "current exactly twice the baseline": ([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2.0, 4.0, 6.0, 8.0, 10.0, 12.0], []),
    "baseline all zero (mean not positive)": ([0.0] * 6, [1.0] * 6, []),
    "current mean negative": ([1.0] * 6, [-1.0, -2.0, 0.5, 0.1, -0.3, 0.2], []),
    "current mean zero": ([1.0] * 6, [1.0, -1.0, 2.0, -2.0, 0.5, -0.5], []),
}
for name, (baseline, current, clusters) in list(ratio_cases.items()):
    if current is None:  # correlated with the baseline, a factor per cluster
        factor = {g: random.uniform(0.6, 1.4) for g in set(clusters)}
        current = [b * factor[g] * random.uniform(0.8, 1.2) for b, g in zip(baseline, clusters)]
        ratio_cases[name] = (baseline, current, clusters)
adjust_cases = [
    ([0.01, 0.04, 0.03, 0.005], "holm"), ([0.01, 0.04, 0.03, 0.005], "bh"), ([0.01, 0.04, 0.03, 0.005], "none"),
    ([0.02, 0.5, 0.02, 0.02, 0.001], "holm"), ([0.02, 0.5, 0.02, 0.02, 0.001], "bh"),  # ties
    ([1.0, 0.3, 1.0, 0.04], "holm"), ([1.0, 0.3, 1.0, 0.04], "bh"),                      # p = 1, capping
    ([0.2, 0.6, 0.45, 0.9], "holm"), ([0.2, 0.6, 0.45, 0.9], "bh"),                      # adjusted values clipped to 1
    ([0.03], "holm"), ([0.03], "bh"), ([], "holm"), ([], "bh"),
    ([0.04, 0.01, 0.03], "bonferroni"),  # not a method: null
]
random_p = [random.random() ** 3 for _ in range(9)]
adjust_cases += [(random_p, "holm"), (random_p, "bh")]

cases = [{"kind": "power", "pairs": n, "effect": e, "discordance": d, "alpha": a} for n, e, d, a in power_cases]
cases += [{"kind": "mde", "pairs": n, "discordance": d, "alpha": a, "power": p} for n, d, a, p in mde_cases]
cases += [{"kind": "pairs-needed", "effect": e, "discordance": d, "alpha": a, "power": p} for e, d, a, p in needed_cases]
cases += [{"kind": "clustered-mean", "values": v, "clusters": c} for v, c in mean_cases.values()]
cases += [{"kind": "ratio", "baseline": b, "current": c, "clusters": g} for b, c, g in ratio_cases.values()]
cases += [{"kind": "adjust", "p": p, "method": m} for p, m in adjust_cases]
got = iter(probe(cases))

# Power: the exact sum, to 1e-9 relative.
for (n, e, d, a), result in zip(power_cases, got):
    expected = power(n, exact(e), exact(d), exact(a))
    close(result["power"], float(expected), f"power of {n} pairs at effect {e}, discordance {d}, alpha {a}")
    if e == 0 and expected > exact(a):
        failures.append(f"the test's own size {float(expected)} exceeds alpha {a}")
if power(30, exact(0.15), exact(0.3), exact(0.05)) != power(30, exact(-0.15), exact(0.3), exact(0.05)):
    failures.append("the test's own power is not symmetric in the effect")

# Minimum detectable effect: reaches the target, 1e-6 less does not; none when effect = discordance does not.
mde_results = {}
for (n, d, a, p), result in zip(mde_cases, got):
    e = result["effect"]
    mde_results[(n, d, a, p)] = e
    what = f"detectable effect over {n} pairs, discordance {d}, alpha {a}, power {p}"
    if power(n, exact(d), exact(d), exact(a)) < exact(p):
        close(e, None, what)
        continue
    if e is None or not 0 < e <= d:
        failures.append(f"{what}: got {e}")
        continue
    if power(n, Fraction(e), exact(d), exact(a)) < exact(p):
        failures.append(f"{what}: power {float(power(n, Fraction(e), exact(d), exact(a)))} at {e!r}, below the target")
    # "To 1e-6, rounded up": a multiple of 1e-6, and the one below it falls short.
    if abs(e * 1e6 - round(e * 1e6)) > 1e-6:
        failures.append(f"{what}: {e!r} is not a multiple of 1e-6")
    if e > 1e-6 and power(n, Fraction(round(e * 1e6) - 1, 10 ** 6), exact(d), exact(a)) >= exact(p):
        failures.append(f"{what}: {e!r} less 1e-6 already reaches the target")

# Pairs needed: brute force from one pair upward (the exact power is not monotone in n).
for (e, d, a, p), result in zip(needed_cases, got):
    what = f"pairs needed for effect {e}, discordance {d}, alpha {a}, power {p}"
    E, D, A, P = exact(e), exact(d), exact(a), exact(p)
    z = NormalDist().inv_cdf
    connor = (z(1 - a / 2) * math.sqrt(d) + z(p) * math.sqrt(d - e * e)) ** 2 / (e * e)
    if connor > 2 * K_MAX_POWER_PAIRS:
        # Far beyond the search: the power at kMaxPowerPairs (normal approximation given the
        # expected discordant count) is well under the target.
        m = K_MAX_POWER_PAIRS * d
        approx = NormalDist().cdf(abs(e) * K_MAX_POWER_PAIRS / math.sqrt(m) - z(1 - a / 2))
        if not approx < p - 0.2:
            failures.append(f"{what}: the test's own case is not beyond the search ({approx})")
        close(result["pairs"], None, what)
        continue
    at = ExactPower(E, D, A)
    n = 1
    while at(n) < P:
        n += 1
        assert n < 400, what
    close(result["pairs"], n, what)
    if result["pairs"] is not None:
        k = int(result["pairs"])
        if at(k) < P:
            failures.append(f"{what}: power {float(at(k))} at {k} pairs, below the target")
        if k > 1 and at(k - 1) >= P:
            failures.append(f"{what}: {k - 1} pairs already reach the target")

# Clustered means and ratios of means: the definitions, t from the series above.
def compare_estimate(result, expected, what):
    if expected is None or result is None:
        close(result, expected, what)
        return
    close(result["estimate"], expected["estimate"], f"{what}: estimate")
    close(result["interval"][0], expected["interval"][0], f"{what}: interval low")
    close(result["interval"][1], expected["interval"][1], f"{what}: interval high")
    close(result["standard_error"], expected["standard_error"], f"{what}: standard error")
    close(result["clusters"], expected["clusters"], f"{what}: clusters")
    close(result["design_effect"], expected["design_effect"], f"{what}: design effect")

for (name, (values, clusters)), result in zip(mean_cases.items(), got):
    compare_estimate(result, clustered_mean(values, clusters), f"clustered mean, {name}")
for (name, (baseline, current, clusters)), result in zip(ratio_cases.items(), got):
    compare_estimate(result, ratio_of_means(baseline, current, clusters), f"ratio of means, {name}")

# Adjusted p-values.
for (p, method), result in zip(adjust_cases, got):
    what = f"{method} of {p}"
    expected = None if method == "bonferroni" else holm_closed_testing(p) if method == "holm" else bh_q_values(p) if method == "bh" else p
    adjusted = result["adjusted"]
    if expected is None or adjusted is None or len(adjusted) != len(expected):
        if not (expected is None and adjusted is None):
            failures.append(f"{what}: got {adjusted}, expected {expected}")
        continue
    for i, (x, y) in enumerate(zip(adjusted, expected)):
        close(x, y, f"{what} [{i}]", 1e-12)

# A seeded simulation of the plan: 48 pairs, discordance 0.30, alpha 0.05, at the detectable effect
# for power 0.8; each pair drawn, the exact test on (b, c) with integer arithmetic.
plan = (48, 0.3, 0.05, 0.8)
effect = mde_results[plan]
if effect is not None:
    n, d, a, target = plan
    model_power = probe([{"kind": "power", "pairs": n, "effect": effect, "discordance": d, "alpha": a}])[0]["power"]
    q = (d + effect) / (2 * d)
    reps, rejected = 20000, 0
    for _ in range(reps):
        b = c = 0
        for _ in range(n):
            if random.random() < d:
                if random.random() < q:
                    c += 1
                else:
                    b += 1
        rejected += rejects(b + c, Fraction(1, 20))[c]
    rate = rejected / reps
    se = math.sqrt(model_power * (1 - model_power) / reps)
    if abs(rate - model_power) > 4 * se:
        failures.append(f"simulation: rejection rate {rate} against mcnemar_power {model_power} (4 SE = {4 * se:.4f})")
    if rate < target - 4 * se:
        failures.append(f"simulation: rejection rate {rate} at the detectable effect {effect}, under {target}")
else:
    failures.append("simulation: no detectable effect for the plan")

print("\n".join(failures) if failures else f"ok {len(cases) + 1}")
PY
out=$(python3 "$WORK/check.py" "$PROBE" 2>&1)
expect_true "[ \"\$out\" = 'ok 70' ]" "every statistic equals the independent computation: $out"
finish
