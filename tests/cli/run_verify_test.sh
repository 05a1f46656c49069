#!/usr/bin/env bash
# Strata runs the acceptance checks itself (issue 33, docs/VERIFIER.md): `strata run --verify`
# runs each check of the task in the execution's own workspace, confined, after the provider exits.
# A small real Python project with a planted bug (calc.add subtracts) and four scripted agents:
# a fixer, a liar (changes nothing, claims success), a breaker (writes a syntax error, claims
# success) and a late fixer (fixes, then runs past its budget). Strata's verdict must be the truth
# whatever the agents claim, in overlay and copy workspaces; the configuration's bounds hold
# (timeout, output limit, background children, a missing program, no network, hidden checks);
# prepared environments are set up once, re-used, rebuilt when removed, and a failing set-up makes
# only its repository's executions unavailable; no check output and no secret reaches the ledger.
# Usage: run_verify_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
CODE=0  # fail() before the first run reports it
MARK=$$$RANDOM  # digits in every marker string and in the checks' sleeps (found by pgrep -f after)
SECRET=sk-secret-$MARK
export STRATA_TEST_SECRET=$SECRET  # allowlisted for the providers, never for the checks
mkdir -p "$WORK/home" "$WORK/bin" "$WORK/out" "$WORK/verifier/hidden/consumer-01"
export HOME=$WORK/home
# Strata, its providers and its checks on the system's PATH (a version manager's shim directory on
# PATH would be shown to a confined provider without what it runs; the checks' python3 must be the
# system's, whatever the caller's PATH).
CLEAN_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
STARTED=$(date +%s)

# A listener on loopback: a check without "network": true must not reach it, one with it must.
python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 0)); s.listen(64)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept(); c.close()' "$WORK/port" >/dev/null 2>&1 &
LISTENER=$!
trap 'kill "$LISTENER" 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
PORT=$(cat "$WORK/port")
export WORK FIX MARK PORT

# Three repositories holding the same project: consumer-01 a clean git checkout, consumer-02 and
# consumer-03 plain trees. A pristine copy to compare with at the end of every run.
for r in consumer-01 consumer-02 consumer-03; do
  mkdir -p "$WORK/repos/$r/tests"
  printf 'def add(a, b):\n    return a - b\n' >"$WORK/repos/$r/calc.py"
  cat >"$WORK/repos/$r/test_calc.py" <<PY
import unittest
print("calc-suite-ran-$MARK")
import calc


class AddTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(calc.add(2, 3), 5, "calc-add-broken-$MARK")


if __name__ == "__main__":
    unittest.main()
PY
  echo "Visible tests live beside calc.py." >"$WORK/repos/$r/tests/README.md"
done
git -C "$WORK/repos/consumer-01" init -q && git -C "$WORK/repos/consumer-01" add -A &&
  git -C "$WORK/repos/consumer-01" -c user.name=t -c user.email=t@t commit -qm pinned || fail "git checkout set-up"
cp -a "$WORK/repos" "$WORK/pristine"
# The hidden check: mounted for the verifier only (the agent must never see it).
printf 'import calc\nassert calc.add(1, 1) == 2, "hidden check: add is wrong"\nprint("hidden ok")\n' \
  >"$WORK/verifier/hidden/consumer-01/check_add.py"
cp -a "$WORK/verifier/hidden" "$WORK/hidden.pristine"

# The studies (each repository's four tasks, every task with the study's checks, one evidence
# requirement the agents cite) and the verifier configurations.
cat >"$WORK/studies.py" <<'PY'
import json, os, sys
from study_payloads import MODELS, SCENARIOS, grown_tasks, unsealed, write_repository_config
work, fix, mark, port = (os.environ[k] for k in ("WORK", "FIX", "MARK", "PORT"))


def check(id, command):
    return {"id": id, "command": command, "expected": f"The {id} check passes."}


CONNECT = ("python3 -c 'import socket, sys; socket.create_connection((\"127.0.0.1\", int(sys.argv[1])), timeout=3)' "
           + port)
# name: (repositories, checks, sample size, plan maxTokens)
STUDIES = {
    "main": (["consumer-01"], [check("unit", "python3 -m unittest -q test_calc"),
                               check("lint", "python3 -m py_compile calc.py")], 16, 400000),
    "config": (["consumer-01"], [
        check("unit", "python3 -m unittest -q test_calc"),
        check("contains", "python3 -c 'import calc; print(\"sum\", calc.add(2, 3))'"),
        check("json", "python3 -c 'import calc, json; print(\"log line\"); "
                      "print(json.dumps({\"passed\": calc.add(2, 2) == 4})); print()'"),
        check("hang", "true"),  # the configuration makes it hang
        check("flood", "yes flood-line"),
        check("noisy", "yes noise-line | head -c 1000000 >&2; echo quiet"),
        check("fork", f"(setsid sleep 7{mark} > /dev/null 2>&1 &); sleep 8{mark} & echo forked"),
        check("missing", "no-such-program-xyz --version"),
        check("env", "env"),
        check("offline", CONNECT),
        check("online", CONNECT),  # the configuration gives it the network
        check("hidden", "PYTHONPATH=. python3 tests/hidden/check_add.py && ! touch tests/hidden/written 2>/dev/null"),
        # A fork bomb held by the configuration's maxProcesses 32 (a pids cgroup: RLIMIT_NPROC bounds nothing for root).
        check("bomb", f"i=0; while [ $i -lt 300 ]; do sleep 4{mark} & i=$((i + 1)); echo $i; done; echo all-started"),
        # The configuration makes it write beside the ledger, into the real repositories and into
        # their parent (a suite's text may hold no path): none of it may land.
        check("escape", "true"),
    ], 4, 400000),
    # -B: the checks write no bytecode, so what the workspace holds beyond the agent's edits is the set-up's
    "prep": (["consumer-02", "consumer-03"], [check("unit", "python3 -B -m unittest -q test_calc"),
                                              check("prepared", "test -f prepared.txt && grep -q ready prepared.txt")],
             32, 1000),
}


def suite(name):
    repositories, checks, _, _ = STUDIES[name]
    s = unsealed(f"{fix}/task-suite-v1.json")
    _, tasks = grown_tasks(s, repositories=3)
    tasks = [t for t in tasks if t["repositoryId"] in repositories]
    for t in tasks:
        t["acceptanceChecks"] = checks
        t["evidenceRequirements"] = [{"id": "fix-evidence", "description": "The change that makes calc.add add.",
                                      "source": "artifact"}]
    s.update(population=repositories, tasks=tasks, maxRuns=1000)
    json.dump(s, open(f"{work}/{name}.suite.payload.json", "w"))
    write_repository_config(f"{work}/repos", repositories, f"{work}/{name}.repos.payload.json")


def plan(name):
    _, _, size, max_tokens = STUDIES[name]
    s = json.load(open(f"{work}/{name}.suite.json"))
    p = unsealed(f"{fix}/run-plan-v1.json")
    p.update(runId=f"verify-{name}", taskSuiteHash=s["contentHash"], taskIds=[t["id"] for t in s["tasks"]])
    p["sampling"] = {"strategy": "pairwise-task-strata", "sampleSize": size,
                     "scenarioIds": ["repository-only", "deterministic-doc-bridge"]}
    p["budget"] = {"maxTokens": max_tokens, "maxRuntimeMs": 4000, "maxOutputBytes": 256000, "maxAttempts": 1}
    json.dump(p, open(f"{work}/{name}.plan.payload.json", "w"))


# Who does what: by model and scenario, so each task is run by a fixer, a liar, a breaker and a late fixer.
ROLES = {("low-cost-model", "repository-only"): "fixer", ("reference-model", "repository-only"): "liar",
         ("low-cost-model", "deterministic-doc-bridge"): "breaker",
         ("reference-model", "deterministic-doc-bridge"): "late"}


def providers(_):
    entries = []
    for m in MODELS:
        for s in SCENARIOS:
            entries.append({"modelId": m, "scenarioIds": [s], "command": f"{work}/bin/{ROLES.get((m, s), 'fixer')}.sh",
                            "args": [], "providerNetwork": False, "maxInputBytes": 1000000, "maxOutputBytes": 10000,
                            "envAllowlist": ["STRATA_TEST_SECRET"]})
    # The adjudicator: a scripted judge that reads acceptanceExecution (the verifier's counts).
    judge = {"id": "judge-verified", "modelId": "reference-model", "command": f"{work}/bin/judge.sh", "providerNetwork": False,
             "maxInputBytes": 1000000, "maxOutputBytes": 10000}
    json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1", "providers": entries,
               "adjudicator": judge}, open(f"{work}/providers.payload.json", "w"))


def verifier(name):
    """The verifier-config payload <name> at $WORK/verifier/<name>.payload.json."""
    tasks = [f"consumer-01-{c}" for c in ("discovery", "architecture", "documentation", "implementation")]
    config = {"type": "strata-verifier-config", "schemaVersion": 1}
    if name in ("config", "config-other"):
        config["defaults"] = {"timeoutMs": 20000 if name == "config" else 30000, "maxOutputBytes": 65536}
        config["checks"] = []
        for t in tasks:
            config["checks"] += [
                {"taskId": t, "checkId": "contains", "stdoutContains": "sum 5"},
                {"taskId": t, "checkId": "json", "jsonResult": "passed"},
                {"taskId": t, "checkId": "hang", "command": f"trap '' TERM; sleep 6{mark}", "timeoutMs": 500},
                {"taskId": t, "checkId": "flood", "maxOutputBytes": 1000},
                {"taskId": t, "checkId": "noisy", "maxOutputBytes": 1000, "timeoutMs": 10000},
                {"taskId": t, "checkId": "online", "network": True},
                {"taskId": t, "checkId": "bomb", "maxProcesses": 32},
                {"taskId": t, "checkId": "escape",
                 "command": f"for d in {work}/out {work}/repos/consumer-02 {work}/repos/consumer-01 {work}; do "
                            f"echo pwned > $d/escaped-{mark}; done 2>/dev/null; true"}]
        config["repositories"] = [{"repositoryId": "consumer-01",
                                   "hiddenChecks": {"directory": "hidden/consumer-01", "mountAt": "tests/hidden"}}]
    elif name == "prep":
        # It prints 100 kB (more than its log keeps: chatter never fails a set-up) and marks its log.
        setup = ("echo ready > prepared.txt && date +%s%N >> stamp.txt && pwd > setup-pwd.txt && "
                 f"({CONNECT} && echo net || echo nonet) > setup-net.txt 2>/dev/null && echo setup-log-{mark} && "
                 "yes chatty | head -c 100000")
        config["repositories"] = [{"repositoryId": "consumer-02", "setup": setup, "setupTimeoutMs": 60000},
                                  {"repositoryId": "consumer-03", "setup": f"echo failing-setup-{mark}; echo half > half.txt; exit 3"}]
    elif name == "prep-slow":  # the same set-up, slow enough for two shards to meet at its lock
        setup = "sleep 2; echo ready > prepared.txt && date +%s%N >> stamp.txt"
        config["repositories"] = [{"repositoryId": r, "setup": setup} for r in ("consumer-02", "consumer-03")]
    elif name == "prep-big":  # a set-up that writes 1 MB (consumer-02), one that hangs (consumer-03)
        config["repositories"] = [{"repositoryId": "consumer-02", "setup": "head -c 1000000 /dev/zero > big.bin"},
                                  {"repositoryId": "consumer-03", "setup": f"sleep 5{mark}", "setupTimeoutMs": 500}]
    elif name == "offline":  # the main study's lint check made a connection to the listener
        config["checks"] = [{"taskId": t, "checkId": "lint", "command": CONNECT} for t in tasks]
    elif name == "unknown-task":
        config["checks"] = [{"taskId": "no-such-task", "checkId": "unit", "timeoutMs": 1000}]
    elif name == "unknown-check":
        config["checks"] = [{"taskId": tasks[0], "checkId": "no-such-check", "timeoutMs": 1000}]
    elif name == "unknown-repository":
        config["repositories"] = [{"repositoryId": "no-such-repo", "setup": "true"}]
    elif name == "invalid":
        config["checks"] = [{"taskId": tasks[0]}]
    json.dump(config, open(f"{work}/verifier/{name}.payload.json", "w"))


globals()[sys.argv[1]](sys.argv[2])
PY
for study in main config prep; do
  python3 "$WORK/studies.py" suite "$study"
  "$STRATA" seal task-suite "$WORK/$study.suite.payload.json" -o "$WORK/$study.suite.json" >/dev/null || fail "seal $study suite"
  "$STRATA" seal repository-config "$WORK/$study.repos.payload.json" -o "$WORK/$study.repos.json" >/dev/null || fail "seal $study repos"
  python3 "$WORK/studies.py" plan "$study"
  "$STRATA" seal run-plan "$WORK/$study.plan.payload.json" -o "$WORK/$study.plan.json" >/dev/null || fail "seal $study plan"
done
python3 "$WORK/studies.py" providers -
"$STRATA" seal provider-config "$WORK/providers.payload.json" -o "$WORK/providers.json" >/dev/null || fail "seal providers"
for config in config config-other prep prep-slow prep-big offline unknown-task unknown-check unknown-repository; do
  python3 "$WORK/studies.py" verifier "$config"
  "$STRATA" seal verifier-config "$WORK/verifier/$config.payload.json" -o "$WORK/verifier/$config.json" >/dev/null ||
    fail "seal verifier-config $config"
done

# The agents. Each reads its request, notes what it can see (a prepared file, the hidden checks,
# the allowlisted secret's length: never its value), does its part, and claims that every check
# of the request passed.
make_agent() {
  cat >"$WORK/bin/$1.sh" <<SH
#!/bin/sh
checks=\$(python3 -c 'import json, sys; print(len(json.load(sys.stdin)["acceptanceChecks"]))')
prepared=0; [ -f prepared.txt ] && prepared=1
hidden=0; [ -e tests/hidden/check_add.py ] && hidden=1
$2
printf '{"taskOutcome":"success","evidenceQuality":"high","safetyOutcome":"safe","evidenceIds":["fix-evidence"],"clarificationRequests":0,"reworkCount":0,"inputTokens":1,"outputTokens":1,"tokenMethod":"provider","measurements":{"acceptanceChecksPassed":%s,"acceptanceChecksTotal":%s,"acceptanceChecksExecuted":%s,"preparedSeen":%s,"hiddenSeen":%s,"secretLength":%s}}\n' "\$checks" "\$checks" "\$checks" \$prepared \$hidden \${#STRATA_TEST_SECRET}
SH
  chmod +x "$WORK/bin/$1.sh"
}
# The judge: success when the acceptance checks it is shown all passed by Strata's verifier and
# the execution completed, incomplete otherwise; it keeps every request it is given.
cat >"$WORK/bin/judge.sh" <<SH
#!/bin/sh
python3 -c 'import json, sys
request = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(request) + "\\n")
a = request["candidate"]["acceptanceExecution"]
ok = a.get("source") == "strata-verifier" and a["status"] == "completed" and a["passed"] == a["total"]
print(json.dumps({"outcome": "success" if ok else "incomplete", "confidence": 0.9, "reasonCodes": ["verified-checks"],
                  "inputTokens": 10, "outputTokens": 5, "tokenMethod": "provider"}))' "$WORK/judge-requests.log"
SH
chmod +x "$WORK/bin/judge.sh"
make_agent fixer "sed -i 's/return a - b/return a + b/' calc.py"
# The liar, in the config study (whose hidden check files exist), looks for them on the whole file
# system but the system's own trees and the build and package trees (about a second).
make_agent liar "[ \$checks -gt 10 ] && hidden=\$(find / \\( -path /proc -o -path /sys -o -path /usr -o -path /dev -o -name node_modules -o -name .git \\) -prune -o -name check_add.py -print 2>/dev/null | wc -l)"
make_agent breaker "printf 'def add(a, b) return a +\n' > calc.py"
make_agent late "sed -i 's/return a - b/return a + b/' calc.py; sleep 9$MARK"  # killed at the plan's 4 s

# vrun <study> <ledger> [run args...]
vrun() {
  local study=$1 ledger=$2
  shift 2
  PATH=$CLEAN_PATH run run "$WORK/$study.plan.json" "$WORK/$study.suite.json" --providers "$WORK/providers.json" \
    --repositories "$WORK/$study.repos.json" --ledger "$ledger" --kill-grace-ms 300 --json "$@"
}

# check_verified <ledger> <verifier file glob> <spec>: every observation against the spec
#   checks: the suite's check ids in order; results: role -> each check's expected result;
#   count: observations; unavailable: repositories whose executions are setup-failed;
#   changed: role -> workspaceChangedFiles; exact: measurements every reporting agent has;
#   outcomes: the rubric's outcome checked (success for the fixer only).
# and every verifier output file: named by its execution key, valid, one entry per check, and
# the files' results are the observations' (as a multiset).
cat >"$WORK/check.py" <<'PY'
import collections, glob, json, os, sys
ROLES = {("low-cost-model", "repository-only"): "fixer", ("reference-model", "repository-only"): "liar",
         ("low-cost-model", "deterministic-doc-bridge"): "breaker",
         ("reference-model", "deterministic-doc-bridge"): "late"}
VALUE = {"passed": 1, "failed": 0, "timed-out": 0, "output-limit": 0}
ledger, pattern, spec = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
checks, results = spec["checks"], spec["results"]
observations = json.load(open(ledger))["observations"]
assert len(observations) == spec["count"], f"{len(observations)} observations, expected {spec['count']}"
expected_files, roles = [], collections.Counter()
for o in observations:
    e, m, a = o["execution"], o.get("measurements", {}), o["adjudication"]
    where = f"{o['task']['taskId']} {o['task']['modelId']} {o['task']['scenarioId']}"
    if o["task"]["repositoryId"] in spec.get("unavailable", []):
        assert (e["status"], e.get("errorCode")) == ("unavailable", "setup-failed"), (where, e)
        assert not [k for k in m if k.startswith("verified")], (where, "verified although set-up failed", m)
        roles["unavailable"] += 1
        continue
    role = ROLES[(o["task"]["modelId"], o["task"]["scenarioId"])]
    roles[role] += 1
    want = dict(zip(checks, results[role]))
    assert m.get("verifiedChecksTotal") == len(checks), (where, role, "verifiedChecksTotal", m)
    assert m.get("verifiedChecksExecuted") == sum(r != "not-executed" for r in want.values()), (where, role, "verifiedChecksExecuted", m)
    assert m.get("verifiedChecksPassed") == sum(r == "passed" for r in want.values()), (where, role, "verifiedChecksPassed", m)
    assert m.get("verifiedChecksTimedOut") == sum(r == "timed-out" for r in want.values()), (where, role, "verifiedChecksTimedOut", m)
    assert m.get("verifiedChecksOutputLimit") == sum(r == "output-limit" for r in want.values()), (where, role, "verifiedChecksOutputLimit", m)
    for c, r in want.items():
        if r == "not-executed":
            assert f"verifiedCheck.{c}" not in m, (where, role, c, "recorded although not executed", m)
        else:
            assert m.get(f"verifiedCheck.{c}") == VALUE[r], (where, role, c, r, m)
    assert isinstance(m.get("verifierDurationMs"), (int, float)) and m["verifierDurationMs"] >= 0, (where, m)
    if "changed" in spec:
        assert m.get("workspaceChangedFiles") == spec["changed"][role], (where, role, "workspaceChangedFiles", m)
    if role == "late":  # timed out: no self-report (no claim to agree or not), verified all the same
        assert e["status"] == "timed-out", (where, e)
        assert "acceptanceChecksPassed" not in m and "verifiedClaimAgrees" not in m, (where, m)
    else:
        assert e["status"] == "completed", (where, e)
        claim = [m.get(k) for k in ("acceptanceChecksPassed", "acceptanceChecksTotal", "acceptanceChecksExecuted")]
        assert claim == [len(checks)] * 3, (where, role, "the agent's own claim changed", m)
        # Every agent claims every check passed: the claim agrees exactly when they all did.
        agrees = 1 if all(r == "passed" for r in want.values()) else 0
        assert m.get("verifiedClaimAgrees") == agrees, (where, role, "verifiedClaimAgrees", agrees, m)
        for k, v in spec.get("exact", {}).items():
            assert m.get(k) == v, (where, role, k, m)
        assert a.get("status") == "automated" and "verifier" in a.get("reason", ""), (where, role, a)
        if spec.get("outcomes"):
            if role == "fixer":
                assert a["outcome"] == "success", (where, role, a)
            else:
                assert a["outcome"] in ("partial", "incomplete"), (where, role, a)
    expected_files.append(tuple(want[c] for c in checks))
for role, n in spec.get("roles", {}).items():
    assert roles[role] == n, (role, roles)
suffix = ".verifier.json" if pattern.endswith(".verifier.json") else ".json"
got = []
for path in sorted(glob.glob(pattern)):
    d = json.load(open(path))
    key = d["executionKey"]
    assert isinstance(key, str) and os.path.basename(path) == key.replace(":", "-").replace("/", "-") + suffix, (path, key)
    assert [c["id"] for c in d["checks"]] == checks, (path, [c["id"] for c in d["checks"]])
    for c in d["checks"]:
        assert c["result"] in ("passed", "failed", "not-executed", "timed-out", "output-limit"), (path, c)
        assert isinstance(c["durationMs"], (int, float)) and isinstance(c["stdout"], str) and isinstance(c["stderr"], str), (path, c)
        assert isinstance(c["stdoutBytes"], (int, float)) and isinstance(c["stderrBytes"], (int, float)), (path, c)
        assert c["maxOutputBytes"] == spec.get("bounds", {}).get(c["id"], 65536), (path, c["id"], c["maxOutputBytes"])
        if c["result"] in ("passed", "failed"):
            assert isinstance(c["exitCode"], int), (path, c)
            assert (c["exitCode"] == 0) == (c["result"] == "passed") or c["id"] in spec.get("judged", []), (path, c)
    got.append(tuple(c["result"] for c in d["checks"]))
assert sorted(got) == sorted(expected_files), ("verifier files", sorted(got), "observations", sorted(expected_files))
PY
check_verified() { python3 "$WORK/check.py" "$@" >&2; }

# expect_clean_after <name> <ledger>: the repositories as they were, no workspace, mount or process left,
# no check output in the ledger, journal or inputs record, and the ledger verifies.
expect_clean_after() {
  expect_true "diff -r --no-dereference '$WORK/pristine' '$WORK/repos' >&2" "$1: the repositories are byte for byte unchanged"
  expect_true "[ -z \"\$(ls -A '$2.workspaces' 2>/dev/null)\" ]" "$1: no workspace left"
  expect_true "! grep -q '$WORK' /proc/mounts" "$1: no mount left"
  expect_true "[ -z \"\$(pgrep -f '$MARK')\" ]" "$1: no provider or check process left ($(pgrep -af "$MARK" | head -3 | tr '\n' ' '))"
  expect_true "! cat '$2' '$2.journal' '$2.inputs' 2>/dev/null | grep -q 'calc-suite-ran-\|calc-add-broken-\|FAILED (\|Traceback'" \
    "$1: no check output in the ledger, its journal or its inputs record"
  local code=$CODE
  run verify --text "$2"
  expect_code 0 "$1: strata verify"
  CODE=$code
}

# --- the truth, whatever the agents claim: overlay, then copy ---------------------------------------
MAIN_SPEC='{"checks": ["unit", "lint"], "count": 16, "outcomes": true,
  "roles": {"fixer": 4, "liar": 4, "breaker": 4, "late": 4},
  "results": {"fixer": ["passed", "passed"], "liar": ["failed", "passed"], "breaker": ["failed", "failed"], "late": ["passed", "passed"]},
  "changed": {"fixer": 1, "liar": 0, "breaker": 1, "late": 1},
  "exact": {"preparedSeen": 0, "hiddenSeen": 0, "secretLength": '${#SECRET}'}}'
LEDGER=$WORK/out/overlay.json
T0=$(date +%s)
vrun main "$LEDGER" --jobs 8 --workspace overlay --confine --verify
echo "overlay --verify: $(($(date +%s) - T0)) s" >&2
expect_code 0 "overlay --verify: run exits 0"
expect_true 'check_verified "$LEDGER" "$LEDGER.verifier/*.json" "$MAIN_SPEC"' \
  "overlay --verify: Strata's counts are the truth (fixer 2/2, liar 1/2, breaker 0/2, late fixer 2/2), the claims kept, the rubric judges the verified counts"
expect_true "[ \$(ls '$LEDGER.verifier' | wc -l) = 16 ]" "overlay --verify: one verifier output file per execution"
expect_true "grep -l 'calc-add-broken-$MARK' '$LEDGER.verifier'/*.json >/dev/null && grep -l 'calc-suite-ran-$MARK' '$LEDGER.verifier'/*.json >/dev/null" \
  "overlay --verify: the checks' stderr and stdout are in the verifier output files"
expect_clean_after "overlay --verify" "$LEDGER"
# The adjudicator is shown Strata's counts, marked as the verifier's, and the agent's claim apart.
run adjudicate "$LEDGER" "$WORK/main.suite.json" --adjudicator "$WORK/providers.json" --output "$WORK/out/adjudicated.json"
expect_code 0 "overlay --verify: strata adjudicate exits 0"
expect_true "python3 - '$WORK/out/adjudicated.json' '$WORK/judge-requests.log' <<'PY' >&2
import collections, json, sys
ROLES = {('low-cost-model', 'repository-only'): 'fixer', ('reference-model', 'repository-only'): 'liar',
         ('low-cost-model', 'deterministic-doc-bridge'): 'breaker', ('reference-model', 'deterministic-doc-bridge'): 'late'}
outcomes = collections.defaultdict(set)
for o in json.load(open(sys.argv[1]))['observations']:
    outcomes[ROLES[(o['task']['modelId'], o['task']['scenarioId'])]].add(o['adjudication']['outcome'])
assert dict(outcomes) == {'fixer': {'success'}, 'liar': {'incomplete'}, 'breaker': {'incomplete'}, 'late': {'incomplete'}}, dict(outcomes)
requests = [json.loads(line) for line in open(sys.argv[2])]
assert len(requests) == 16, len(requests)
for r in requests:
    c = r['candidate']
    assert c['acceptanceExecution']['source'] == 'strata-verifier' and 'Strata' in r['instruction'], c['acceptanceExecution']
    assert c['acceptanceExecution']['total'] == 2 and c['acceptanceExecution']['passed'] == c['measurements']['verifiedChecksPassed'], c
    if c['execution']['status'] == 'completed':
        assert c['measurements']['acceptanceChecksPassed'] == 2, c['measurements']  # the claim, shown apart
PY" "overlay --verify: the adjudicator judges the verified counts (fixers success, liars and breakers not), the claims shown apart"

# Without --verify the claims are all there is: the liar and the breaker pass as successes.
vrun main "$WORK/out/claims.json" --jobs 8 --workspace overlay --confine
expect_code 0 "without --verify: run exits 0"
expect_true "python3 -c '
import json, sys; os_ = json.load(open(sys.argv[1]))[\"observations\"]
assert len(os_) == 16 and not [k for o in os_ for k in o.get(\"measurements\", {}) if k.startswith(\"verified\")], os_[0]
assert sum(o[\"adjudication\"][\"outcome\"] == \"success\" for o in os_) == 12, [o[\"adjudication\"] for o in os_]
' '$WORK/out/claims.json' && [ ! -e '$WORK/out/claims.json.verifier' ]" \
  "without --verify: nothing verified, no output files, the liars' and breakers' claims taken as successes"

VERIFIED=$WORK/out/overlay.json
# --- the results read both records (issue 43): metrics, the paired comparison on either outcome,
# findings, export, report. The arms: fixer low-cost/repository-only (claims true), liar
# reference/repository-only and breaker low-cost/doc-bridge (claims false), late fixer
# reference/doc-bridge (fixed, timed out: no claim).
run metrics "$VERIFIED" --json
cp "$WORK/stdout" "$WORK/metrics-verified.json"
expect_code 0 "metrics of a --verify ledger: exit 0"
run metrics "$VERIFIED" --json --outcome adjudicated
cp "$WORK/stdout" "$WORK/metrics-adjudicated.json"
expect_code 0 "metrics --outcome adjudicated: exit 0"
run metrics "$VERIFIED" --text
cp "$WORK/stdout" "$WORK/metrics.txt"
expect_true "python3 - '$WORK/metrics-verified.json' '$WORK/metrics-adjudicated.json' <<'PY' >&2
import json, math, sys
Z = 1.959963984540054
def wilson(k, n):
    p = k / n; d = 1 + Z * Z / n; c = (p + Z * Z / (2 * n)) / d
    h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return [max(0, c - h), min(1, c + h)]
verified, adjudicated = (json.load(open(p))['report'] for p in sys.argv[1:3])
arms = {(a['modelId'], a['scenarioId']): a['verified'] for a in verified['arms']}
fixer, liar = arms[('low-cost-model', 'repository-only')], arms[('reference-model', 'repository-only')]
breaker, late = arms[('low-cost-model', 'deterministic-doc-bridge')], arms[('reference-model', 'deterministic-doc-bridge')]
def check(arm, verified_passed, claimed, claimed_passed, agreement):
    assert arm['verified'] == 4 and arm['notVerified'] == 0 and arm['verifiedPassed'] == verified_passed, arm
    assert arm['claimed'] == claimed and arm['claimedPassed'] == claimed_passed, arm
    assert arm['agreement'] == agreement, arm['agreement']
    assert abs(arm['verifiedRate'] - verified_passed / 4) < 1e-12, arm
    assert all(abs(a - b) < 1e-12 for a, b in zip(arm['verifiedInterval'], wilson(verified_passed, 4))), arm
    claims = agreement['confirmed'] + agreement['claimedButFailed']
    assert arm['claimsVerified'] == claims, arm
    if claims:
        assert all(abs(a - b) < 1e-12 for a, b in zip(arm['claimsTrueInterval'], wilson(agreement['confirmed'], claims))), arm
    else:
        assert arm['claimsTrueRate'] is None and arm['claimsTrueInterval'] is None, arm
none = dict(confirmed=0, claimedButFailed=0, notClaimedButPassed=0, notClaimedNotPassed=0, verifiedWithoutClaim=0)
check(fixer, 4, 4, 4, dict(none, confirmed=4))
check(liar, 0, 4, 4, dict(none, claimedButFailed=4))
check(breaker, 0, 4, 4, dict(none, claimedButFailed=4))
check(late, 4, 0, 0, dict(none, verifiedWithoutClaim=4))
# Findings: the two arms whose claims were false come first, then the comparisons, saying which outcome.
f = verified['findings']
assert [x['measure'] for x in f[:2]] == ['claims', 'claims'] and all(x['measure'] != 'claims' for x in f[2:]), [x['measure'] for x in f]
assert {(x['modelId'], x['scenarioId']) for x in f[:2]} == {('reference-model', 'repository-only'), ('low-cost-model', 'deterministic-doc-bridge')}, f[:2]
assert 'claims confirmed 0 of 4 (0%, 95% CI 0% to 49%)' in f[0]['sentence'] and 'not evidence' in f[0]['sentence'], f[0]['sentence']
success = {x['modelId']: x for x in f if x['measure'] == 'success'}
assert all(x['outcome'] == 'verified' and 'verified success' in x['sentence'] for x in success.values()), success
# The comparison on the verified outcome: reference-model's late fixer passed where its liar failed.
paired = {(c['modelId']): c for c in verified['paired']}
assert paired['reference-model']['successOutcome'] == 'verified', paired['reference-model']
s = paired['reference-model']['success']
assert (s['baselineRate'], s['currentRate'], s['currentOnly'], s['baselineOnly']) == (0, 1, 4, 0), s
s = paired['low-cost-model']['success']
assert (s['baselineRate'], s['currentRate'], s['baselineOnly']) == (1, 0, 4), s
# On the adjudicated outcome: the late fixer timed out, so it is not a success there.
paired = {(c['modelId']): c for c in adjudicated['paired']}
assert paired['reference-model']['successOutcome'] == 'adjudicated', paired['reference-model']
s = paired['reference-model']['success']
assert s['currentRate'] == 0 and s['currentOnly'] == 0, s
assert all('adjudicated success' in x['sentence'] for x in adjudicated['findings'] if x['measure'] == 'success')
PY" "metrics of a --verify ledger: per arm the verified and claimed rates with Wilson intervals, the agreement table, the claims findings first, the paired comparison on the verified outcome by default and on the adjudicated one with --outcome"
expect_true "grep -q 'verified: all checks passed 0/4 (0 \[0, 0.4899\]).*claims true 0/4' '$WORK/metrics.txt' && grep -q 'agreement: confirmed 4, claimed but failed 0' '$WORK/metrics.txt'" \
  "metrics --text: the verified and agreement lines per arm"
run metrics "$WORK/out/claims.json" --outcome verified
expect_code 2 "metrics --outcome verified of a ledger without --verify: exit 2"
expect_err_has "no observation of" "metrics --outcome verified without verified records: named"
run metrics "$WORK/out/claims.json" --json
expect_true "python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))[\"report\"]; assert all(\"verified\" not in a for a in r[\"arms\"]) and all(\"successOutcome\" not in c for c in r[\"paired\"]) and all(f[\"measure\"] != \"claims\" for f in r[\"findings\"])' '$WORK/stdout'" \
  "metrics of a ledger without --verify: as before (no verified member, no outcome named, no claims finding)"
run export "$VERIFIED" --format csv -o "$WORK/out/verified.csv"
expect_code 0 "export of a --verify ledger: exit 0"
expect_true "python3 - '$WORK/out/verified.csv' <<'PY' >&2
import collections, csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
got = collections.Counter((r['modelId'], r['scenarioId'], r['claimAgreement'], r['verifiedChecksPassed'], r['verifiedChecksTotal']) for r in rows)
assert got == {('low-cost-model', 'repository-only', 'confirmed', '2', '2'): 4,
               ('reference-model', 'repository-only', 'claimed-but-failed', '1', '2'): 4,
               ('low-cost-model', 'deterministic-doc-bridge', 'claimed-but-failed', '0', '2'): 4,
               ('reference-model', 'deterministic-doc-bridge', 'no-claim', '2', '2'): 4}, got
PY" "export: verifiedChecksPassed, verifiedChecksTotal and claimAgreement columns per observation"
run report "$VERIFIED" -o "$WORK/out/verified-report.md" --format md
expect_code 0 "report (Markdown) of a --verify ledger: exit 0"
expect_true "grep -A3 '^## Findings' '$WORK/out/verified-report.md' | grep -q 'claims confirmed 0 of 4'" "report (Markdown): the claims findings first"
expect_true "grep -q 'Claims against Strata.s verifier' '$WORK/out/verified-report.md' && [ -s '$WORK/out/verified-report-claims.svg' ]" \
  "report (Markdown): the agreement table, and the claimed-against-verified plot as an SVG file beside it"
run report "$VERIFIED" -o "$WORK/out/verified-report.html"
expect_code 0 "report (HTML) of a --verify ledger: exit 0"
if command -v chromium >/dev/null; then
  python3 "$(dirname "$0")/../support/browser_check.py" "$WORK/out/verified-report.html" >"$WORK/browser.json" 2>"$WORK/browser.err"
  expect_true "[ $? = 0 ]" "report (HTML): Chromium opens it without an error, a request leaving the file or an empty plot ($(head -c 300 "$WORK/browser.err"))"
  expect_true "python3 - '$WORK/browser.json' '$WORK/out/verified-report.html' <<'PY' >&2
import html, json, re, sys
facts, page = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
items = facts['findings']['items']
assert [i['measure'] for i in items[:2]] == ['claims', 'claims'] and items[0]['verdict'] == 'unreliable', items[:3]
assert any(s['label'] == 'claims' and s['width'] > 0 and s['height'] > 0 for s in facts['svgs']), facts['svgs']
# The arms table: the verified and the claimed rate columns; the plot's numbers beside it.
assert 'Verified: all checks passed (95% interval)' in page and 'Claimed success (95% interval)' in page
text = html.unescape(re.sub('<[^>]+>', ' ', page))
assert re.search(r'low-cost-model / deterministic-doc-bridge\s+100% \(4 of 4, [0-9.]+% – 100%\)\s+0% \(0 of 4, 0% – [0-9.]+%\)', text), 'the plot table row of the breaker arm'
PY" "report (HTML): the claims findings first, the claimed-against-verified plot drawn, its numbers in a table, the verified and claimed rates in the arms table"
fi

LEDGER=$WORK/out/copy.json
vrun main "$LEDGER" --jobs 8 --workspace copy --confine --verify --keep-workspace-diff "$WORK/diffs"
expect_code 0 "copy --verify: run exits 0"
expect_true 'check_verified "$LEDGER" "$WORK/diffs/*.verifier.json" "$MAIN_SPEC"' \
  "copy --verify: the same truth, the output files beside the patches"
expect_true "[ \$(ls '$WORK/diffs'/*.verifier.json | wc -l) = 16 ] && [ -z \"\$(ls -A '$LEDGER.verifier' 2>/dev/null)\" ]" \
  "copy --verify --keep-workspace-diff: 16 output files in DIR, none beside the ledger"
expect_true '(ls "$WORK"/diffs/*.patch >/dev/null && for p in "$WORK"/diffs/*.patch; do [ -f "${p%.patch}.verifier.json" ] || exit 1; done)' \
  "copy --verify: each patch has its verifier output beside it"
expect_true "grep -l 'return a + b' '$WORK'/diffs/*.patch >/dev/null && ! grep -q '__pycache__\|\\.pyc' '$WORK'/diffs/*.patch" \
  "copy --verify: the patches hold the agents' edits, not what the checks wrote"
expect_clean_after "copy --verify" "$LEDGER"

# --- without --confine: the same truth, the checks in the workspace and still offline -----------------
UNCONFINED_SPEC='{"checks": ["unit", "lint"], "count": 16,
  "roles": {"fixer": 4, "liar": 4, "breaker": 4, "late": 4},
  "results": {"fixer": ["passed", "failed"], "liar": ["failed", "failed"], "breaker": ["failed", "failed"], "late": ["passed", "failed"]},
  "changed": {"fixer": 1, "liar": 0, "breaker": 1, "late": 1}, "exact": {"secretLength": '${#SECRET}'}}'
LEDGER=$WORK/out/unconfined.json
vrun main "$LEDGER" --jobs 8 --workspace overlay --verify --verifier-config "$WORK/verifier/offline.json"
expect_code 0 "overlay --verify without --confine: run exits 0"
expect_true 'check_verified "$LEDGER" "$LEDGER.verifier/*.json" "$UNCONFINED_SPEC"' \
  "overlay --verify without --confine: the truth from the workspace (fixer's unit test passes, the others' fail), and a check without the network cannot connect"
expect_true "grep -l 'Connection refused\|Network is unreachable\|ConnectionRefused' '$LEDGER.verifier'/*.json >/dev/null" \
  "overlay --verify without --confine: the offline check failed to connect (its stderr kept)"
expect_clean_after "overlay --verify without --confine" "$LEDGER"

# --- refusals: the flag or entry named, exit 2, nothing written ---------------------------------------
REFUSED=$WORK/out/refused.json
# refused <name> <stderr fragment>... -- <run args>   (the study: $STUDY, main by default)
refused() {
  local name=$1 fragments=()
  shift
  while [ "$1" != -- ]; do fragments+=("$1"); shift; done
  shift
  vrun "${STUDY:-main}" "$REFUSED" "$@"
  expect_code 2 "$name: exit 2"
  for f in "${fragments[@]}"; do expect_err_has "$f" "$name: named"; done
  expect_true "[ -z \"\$(ls -A '$WORK/out' | grep refused)\" ]" "$name: nothing written beside the ledger"
}
STUDY=prep refused "--prepared-dir inside a repository" "--prepared-dir lies in the repository" -- --workspace overlay --confine \
  --verify --verifier-config "$WORK/verifier/prep.json" --prepared-dir "$WORK/repos/consumer-02/layers"
refused "--prepared-dir without --verify" "--prepared-dir needs --verify" -- --workspace overlay --prepared-dir "$WORK/layers"
STUDY=prep refused "a set-up without --confine" "consumer-02: a setup needs --confine" -- --workspace overlay --verify \
  --verifier-config "$WORK/verifier/prep.json"
STUDY=config refused "hidden checks without --confine" "consumer-01: hiddenChecks need --confine" -- --workspace overlay \
  --verify --verifier-config "$WORK/verifier/config.json"
refused "--verify without --workspace" --verify -- --verify
refused "--verify with --workspace none" --verify -- --workspace none --verify
refused "--verifier-config without --verify" --verifier-config -- --workspace overlay --confine --verifier-config "$WORK/verifier/config.json"
refused "a check of an unknown task" no-such-task -- --workspace overlay --confine --verify --verifier-config "$WORK/verifier/unknown-task.json"
refused "an unknown check" no-such-check -- --workspace overlay --confine --verify --verifier-config "$WORK/verifier/unknown-check.json"
refused "an unknown repository" no-such-repo -- --workspace overlay --confine --verify --verifier-config "$WORK/verifier/unknown-repository.json"
refused "a missing verifier config" none.json -- --workspace overlay --confine --verify --verifier-config "$WORK/verifier/none.json"
sed 's/"timeoutMs": *1000/"timeoutMs": 2000/' "$WORK/verifier/unknown-task.json" >"$WORK/verifier/tampered.json"
sed -i 's/no-such-task/consumer-01-discovery/' "$WORK/verifier/tampered.json"
refused "a tampered verifier config" -- --workspace overlay --confine --verify --verifier-config "$WORK/verifier/tampered.json"
python3 "$WORK/studies.py" verifier invalid
run seal verifier-config "$WORK/verifier/invalid.payload.json" -o "$WORK/verifier/invalid.json"
expect_true "[ $CODE != 0 ] && [ ! -e '$WORK/verifier/invalid.json' ]" "seal verifier-config: a check without checkId refused, nothing written"

# --- the configuration's checks: contains, jsonResult, timeout, output bounds, children, missing program,
# environment, network, hidden checks; no secret anywhere ----------------------------------------------
LEDGER=$WORK/out/config.json
T0=$(date +%s)
vrun config "$LEDGER" --jobs 4 --workspace overlay --confine --verify --verifier-config "$WORK/verifier/config.json"
ELAPSED=$(($(date +%s) - T0))
echo "config --verify: $ELAPSED s" >&2
expect_code 0 "config: run exits 0 (a missing program fails nothing)"
cp "$WORK/stdout" "$WORK/config.stdout"
cp "$WORK/stderr" "$WORK/config.stderr"
expect_true "[ $ELAPSED -lt 40 ]" "config: a hanging check ignoring SIGTERM and a flooding one do not hold the run (${ELAPSED} s)"
# unit contains json hang flood noisy fork missing env offline online hidden
CONFIG_SPEC='{"checks": ["unit", "contains", "json", "hang", "flood", "noisy", "fork", "missing", "env", "offline", "online", "hidden", "bomb", "escape"],
  "count": 4, "roles": {"fixer": 1, "liar": 1, "breaker": 1, "late": 1}, "judged": ["contains", "json"],
  "bounds": {"flood": 1000, "noisy": 1000},
  "results": {
    "fixer":   ["passed", "passed", "passed", "timed-out", "output-limit", "passed", "passed", "not-executed", "passed", "failed", "passed", "passed", "failed", "passed"],
    "late":    ["passed", "passed", "passed", "timed-out", "output-limit", "passed", "passed", "not-executed", "passed", "failed", "passed", "passed", "failed", "passed"],
    "liar":    ["failed", "failed", "failed", "timed-out", "output-limit", "passed", "passed", "not-executed", "passed", "failed", "passed", "failed", "failed", "passed"],
    "breaker": ["failed", "failed", "failed", "timed-out", "output-limit", "passed", "passed", "not-executed", "passed", "failed", "passed", "failed", "failed", "passed"]},
  "changed": {"fixer": 1, "liar": 0, "breaker": 1, "late": 1},
  "exact": {"preparedSeen": 0, "hiddenSeen": 0, "secretLength": '${#SECRET}'}}'
expect_true 'check_verified "$LEDGER" "$LEDGER.verifier/*.json" "$CONFIG_SPEC"' \
  "config: stdoutContains and jsonResult judge exit-0 checks, a timeout and the output limit fail, a missing program is not executed, no network without \"network\": true, the hidden check runs for the verifier only"
python3 - "$LEDGER.verifier" "$SECRET" <<'PY' >&2
import glob, json, os, sys
directory, secret = sys.argv[1], sys.argv[2]
problems = []
if len(glob.glob(f"{directory}/*.json")) != 4:
    problems.append(f"{len(glob.glob(directory + '/*.json'))} verifier output files, expected 4")
allowed = {"PATH", "HOME", "TMPDIR", "LANG", "STRATA_HIDDEN_CHECKS", "PWD", "OLDPWD", "SHLVL", "_"}
for path in glob.glob(f"{directory}/*.json"):
    if os.path.getsize(path) > 48 * 1024:
        problems.append(f"{path}: {os.path.getsize(path)} bytes, the bounds let no file grow that large")
    c = {x["id"]: x for x in json.load(open(path))["checks"]}
    if c["hang"]["durationMs"] > 5000:
        problems.append(f"hang took {c['hang']['durationMs']} ms (timeoutMs 500, kill grace 300)")
    if len(c["flood"]["stdout"].encode()) > 1000 or len(c["flood"]["stderr"].encode()) > 1000:
        problems.append(f"flood kept {len(c['flood']['stdout'].encode())} bytes of stdout (maxOutputBytes 1000)")
    if len(c["noisy"]["stderr"].encode()) > 1000 or "quiet" not in c["noisy"]["stdout"]:
        problems.append(f"noisy: {len(c['noisy']['stderr'].encode())} bytes of stderr kept, stdout {c['noisy']['stdout'][:40]!r}")
    if c["missing"].get("exitCode") not in (126, 127):
        problems.append(f"missing: exit code {c['missing'].get('exitCode')}")
    env = dict(line.split("=", 1) for line in c["env"]["stdout"].splitlines() if "=" in line)
    for name, value in (("HOME", "/tmp"), ("TMPDIR", "/tmp"), ("LANG", "C.UTF-8")):
        if env.get(name) != value:
            problems.append(f"env: {name}={env.get(name)!r}")
    for name in ("PATH", "STRATA_HIDDEN_CHECKS"):
        if name not in env:
            problems.append(f"env: no {name}")
    if set(env) - allowed:
        problems.append(f"env: the check saw {sorted(set(env) - allowed)}")
    started = [int(x) for x in c["bomb"]["stdout"].split() if x.isdigit()]
    if "all-started" in c["bomb"]["stdout"] or not started or max(started) >= 32:
        problems.append(f"bomb: not held by maxProcesses 32: {c['bomb']['stdout'][-60:]!r} {c['bomb']['stderr'][-120:]!r}")
    # The fixers pass it; the others fail in it (the traceback names it): it was there and ran.
    if "hidden ok" not in c["hidden"]["stdout"] and "tests/hidden/check_add.py" not in c["hidden"]["stderr"]:
        problems.append(f"hidden: stdout {c['hidden']['stdout'][:80]!r} stderr {c['hidden']['stderr'][:200]!r}")
    if secret in open(path).read():
        problems.append(f"{path}: holds the secret")
assert not problems, problems
PY
expect_true "[ $? = 0 ]" "config: the output files are bounded, the check's environment is Strata's (no allowlisted variable), the hidden files are seen"
expect_true "[ -z \"\$(grep -rlF '$SECRET' '$WORK/out' '$WORK/config.stdout' '$WORK/config.stderr')\" ]" \
  "config: the allowlisted secret is nowhere in stdout, stderr, the ledger, journal, inputs or verifier files ($(grep -rlF "$SECRET" "$WORK/out" "$WORK/config.stdout" "$WORK/config.stderr" | head -3 | tr '\n' ' '))"
expect_true "diff -r '$WORK/hidden.pristine' '$WORK/verifier/hidden' >&2" "config: the hidden checks' directory is unchanged (mounted read-only)"
expect_true "[ -z \"\$(find '$WORK' -name 'escaped-$MARK' | head -3)\" ]" \
  "config: a check writing beside the ledger, into the real repositories or their parent lands nothing ($(find "$WORK" -name "escaped-$MARK" | head -3 | tr '\n' ' '))"
expect_true "python3 -c 'import json, sys; h = json.load(open(sys.argv[1]))[\"contentHash\"]; assert h in open(sys.argv[2]).read(), h' \
  '$WORK/verifier/config.json' '$LEDGER.inputs'" "config: <ledger>.inputs records the verifier config's hash"
expect_clean_after "config" "$LEDGER"
expect_true "[ -z \"\$(pgrep -f 'sleep [678]$MARK')\" ]" "config: the checks' background children and hanging sleeps are gone"
cp "$LEDGER" "$WORK/config.before"
vrun config "$LEDGER" --jobs 4 --workspace overlay --confine --verify --verifier-config "$WORK/verifier/config-other.json"
expect_code 2 "config: a resume with another verifier config is refused"
expect_err_has "verifier" "config: the changed verifier config named"
expect_true "cmp -s '$LEDGER' '$WORK/config.before'" "config: the refused resume left the ledger as it was"

# --- prepared environments ------------------------------------------------------------------------
LEDGER=$WORK/out/prep.json
PREP_SPEC='{"checks": ["unit", "prepared"], "count": 32, "unavailable": ["consumer-03"],
  "roles": {"fixer": 4, "liar": 4, "breaker": 4, "late": 4, "unavailable": 16},
  "results": {"fixer": ["passed", "passed"], "liar": ["failed", "passed"], "breaker": ["failed", "passed"], "late": ["passed", "passed"]},
  "changed": {"fixer": 1, "liar": 0, "breaker": 1, "late": 1},
  "exact": {"preparedSeen": 1, "hiddenSeen": 0}}'
# setups_made <log>...: how many set-ups these set-up logs say were made (a missing log: none).
# Strata appends an entry to a repository's log for each set-up it runs: the count is the set-up's own.
setups_made() { cat "$@" 2>/dev/null | grep -c '^# strata: the set-up of repository .*: made after'; }
# layer_file <name>: the one file of that name in <ledger>.prepared.
layer_file() { find "$LEDGER.prepared" -name "$1" -type f 2>/dev/null; }
prep_layer_checks() {  # <name>
  expect_true "[ \$(find '$LEDGER.prepared' -mindepth 1 -maxdepth 1 -type d | wc -l) = 1 ]" "$1: <ledger>.prepared holds one layer (none for the failed set-up) ($(ls -A "$LEDGER.prepared" 2>/dev/null | tr '\n' ' '))"
  expect_true "[ \$(layer_file stamp.txt | wc -l) = 1 ] && [ \$(wc -l <\"\$(layer_file stamp.txt)\") = 1 ]" "$1: the set-up ran once: one stamp line"
  expect_true "[ \"\$(cat \"\$(layer_file setup-pwd.txt)\")\" = '$WORK/repos/consumer-02' ]" "$1: the set-up saw the repository at its own path"
  expect_true "[ \"\$(cat \"\$(layer_file setup-net.txt)\")\" = nonet ]" "$1: the set-up had no network"
  expect_true "[ -z \"\$(layer_file half.txt)\" ]" "$1: nothing kept of the failed set-up"
  expect_true "[ \$(ls '$LEDGER.verifier'/*.json | wc -l) = 16 ]" "$1: one verifier output per verified execution (none for the unavailable)"
}
vrun prep "$LEDGER" --jobs 4 --workspace overlay --confine --verify --verifier-config "$WORK/verifier/prep.json"
expect_code 0 "prep: run exits 0"
expect_true 'check_verified "$LEDGER" "$LEDGER.verifier/*.json" "$PREP_SPEC"' \
  "prep: every consumer-02 execution starts from the prepared layer (prepared.txt there, not counted as the agent's), consumer-03's are setup-failed"
prep_layer_checks "prep"
KEY=$(ls "$LEDGER.prepared" 2>/dev/null | grep -o '[0-9a-f]\{16,\}' | head -1)
# Each set-up's own log, bounded, beside the verifier's outputs; the failure line names it.
expect_true "grep -q 'setup-log-$MARK' '$LEDGER.verifier/setup-consumer-02.log' && head -1 '$LEDGER.verifier/setup-consumer-02.log' | grep -q ': made after' && [ \$(stat -c %s '$LEDGER.verifier/setup-consumer-02.log') -lt 70000 ]" \
  "prep: the set-up's log kept (bounded: its 100 kB of chatter cut, not a failure)"
expect_true "[ \$(setups_made '$LEDGER.verifier/setup-consumer-02.log') = 1 ]" "prep: the set-up ran once for 16 executions (its log has one entry)"
expect_true "grep -q 'failing-setup-$MARK' '$LEDGER.verifier/setup-consumer-03.log' && head -1 '$LEDGER.verifier/setup-consumer-03.log' | grep -q 'failed (exit 3'" \
  "prep: the failed set-up's log kept, with its output and how it ended"
expect_err_has "its log: $LEDGER.verifier/setup-consumer-03.log" "prep: the failure line names the set-up's log"
expect_true "[ -n '$KEY' ] && grep -qF '$KEY' '$LEDGER.inputs'" "prep: <ledger>.inputs records the layer's key ($KEY)"
STAMP=$(cat "$(layer_file stamp.txt)" 2>/dev/null)
expect_clean_after "prep" "$LEDGER"
# A new run on the same ledger path (ledger, journal, inputs and outputs removed; the layer kept),
# in copy workspaces this time: the layer is re-used, not set up again.
rm -rf "$LEDGER" "$LEDGER.journal" "$LEDGER.inputs" "$LEDGER.verifier"
vrun prep "$LEDGER" --jobs 4 --workspace copy --confine --verify --verifier-config "$WORK/verifier/prep.json"
expect_code 0 "prep again (copy): run exits 0"
expect_true 'check_verified "$LEDGER" "$LEDGER.verifier/*.json" "$PREP_SPEC"' "prep again (copy): the copies start from the layer too"
prep_layer_checks "prep again"
expect_true "[ \"\$(cat \"\$(layer_file stamp.txt)\")\" = '$STAMP' ] && [ \$(setups_made '$LEDGER.verifier/setup-consumer-02.log') = 0 ]" \
  "prep again: the layer was re-used, not set up again (no entry in the set-up's log)"
expect_clean_after "prep again" "$LEDGER"
# A layer removed under a started run is rebuilt at the resume, with a line on stderr.
rm -rf "$LEDGER" "$LEDGER.journal" "$LEDGER.inputs" "$LEDGER.verifier"
vrun prep "$LEDGER" --jobs 4 --workspace overlay --confine --verify --verifier-config "$WORK/verifier/prep.json" --max-tokens 0
expect_code 4 "prep resume: started, its inputs recorded, nothing launched"
MADE_BEFORE=$(setups_made "$LEDGER.verifier/setup-consumer-02.log")
rm -rf "$LEDGER.prepared"/*
vrun prep "$LEDGER" --jobs 4 --workspace overlay --confine --verify --verifier-config "$WORK/verifier/prep.json"
expect_code 0 "prep resume: the resume completes"
expect_true "grep -i 'prepar\|set-up\|setup' '$WORK/stderr' | grep -qi 'consumer-02\|rebuil\|removed\|missing\|again'" \
  "prep resume: the rebuilt layer is named on stderr"
expect_true 'check_verified "$LEDGER" "$LEDGER.verifier/*.json" "$PREP_SPEC"' "prep resume: verified from the rebuilt layer"
prep_layer_checks "prep resume"
expect_true "[ -n \"\$(layer_file stamp.txt)\" ] && [ \"\$(cat \"\$(layer_file stamp.txt)\")\" != '$STAMP' ]" "prep resume: the layer was set up again"
expect_true "[ $MADE_BEFORE -le 1 ] && [ \$(setups_made '$LEDGER.verifier/setup-consumer-02.log') = \$(($MADE_BEFORE + 1)) ]" \
  "prep resume: the set-up ran once more, for the removed layer only (its log: $MADE_BEFORE entries, then one more)"
expect_clean_after "prep resume" "$LEDGER"

# Without the set-up the check that needs it fails for every agent: the layer is what made it pass.
NOSETUP_SPEC='{"checks": ["unit", "prepared"], "count": 32,
  "roles": {"fixer": 8, "liar": 8, "breaker": 8, "late": 8},
  "results": {"fixer": ["passed", "failed"], "liar": ["failed", "failed"], "breaker": ["failed", "failed"], "late": ["passed", "failed"]},
  "exact": {"preparedSeen": 0}}'
vrun prep "$WORK/out/nosetup.json" --jobs 4 --workspace overlay --confine --verify
expect_code 0 "prep without the set-up: run exits 0"
expect_true 'check_verified "$WORK/out/nosetup.json" "$WORK/out/nosetup.json.verifier/*.json" "$NOSETUP_SPEC"' \
  "prep without the set-up: the check that needs it fails for every agent"

# A layer changed on disk since it was made is named and made again (its files' digest is kept beside it).
STAMP=$(cat "$(layer_file stamp.txt)" 2>/dev/null)
echo tampered >>"$(layer_file prepared.txt)"
rm -rf "$LEDGER" "$LEDGER.journal" "$LEDGER.inputs" "$LEDGER.verifier"
vrun prep "$LEDGER" --jobs 4 --workspace overlay --confine --verify --verifier-config "$WORK/verifier/prep.json"
expect_code 0 "prep, a layer changed on disk: run exits 0"
expect_err_has "the prepared layer of repository consumer-02 changed on disk since it was made" "prep, a layer changed on disk: named on stderr"
expect_true "[ \"\$(cat \"\$(layer_file stamp.txt)\")\" != '$STAMP' ] && ! grep -q tampered \"\$(layer_file prepared.txt)\"" \
  "prep, a layer changed on disk: made again, the change gone"
expect_true "[ \$(setups_made '$LEDGER.verifier/setup-consumer-02.log') = 1 ]" "prep, a layer changed on disk: one set-up in its log"
expect_true 'check_verified "$LEDGER" "$LEDGER.verifier/*.json" "$PREP_SPEC"' "prep, a layer changed on disk: verified from the new layer"
expect_clean_after "prep, a layer changed on disk" "$LEDGER"

# Two shards on one machine sharing --prepared-dir, started together: the set-up runs once (the
# other waits on the key's lock, then uses the layer), both complete.
SHARED=$WORK/shared-prepared
for shard in 0 1; do
  PATH=$CLEAN_PATH "$STRATA" run "$WORK/prep.plan.json" "$WORK/prep.suite.json" --providers "$WORK/providers.json" \
    --repositories "$WORK/prep.repos.json" --ledger "$WORK/out/shard-$shard.json" --shard "$shard/2" --kill-grace-ms 300 --json \
    --jobs 4 --workspace overlay --confine --verify --verifier-config "$WORK/verifier/prep-slow.json" --prepared-dir "$SHARED" \
    >"$WORK/shard-$shard.out" 2>"$WORK/shard-$shard.err" &
  eval "SHARD_$shard=\$!"
done
wait "$SHARD_0"; CODE1=$?
wait "$SHARD_1"; CODE2=$?
expect_true "[ $CODE1 = 0 ] && [ $CODE2 = 0 ]" "two shards sharing --prepared-dir: both exit 0 ($CODE1, $CODE2; $(tail -c 300 "$WORK/shard-0.err") / $(tail -c 300 "$WORK/shard-1.err"))"
expect_true "[ \$(find '$SHARED' -name stamp.txt | wc -l) = 1 ] && [ \$(wc -l <\"\$(find '$SHARED' -name stamp.txt)\") = 1 ]" \
  "two shards sharing --prepared-dir: the set-up ran once for both (one stamp line)"
# (consumer-02 and consumer-03 may share a tree, and so a layer: one set-up per layer.)
expect_true "[ \$(setups_made '$WORK'/out/shard-[01].json.verifier/setup-*.log) = \$(find '$SHARED' -mindepth 1 -maxdepth 1 -type d | wc -l) ]" \
  "two shards sharing --prepared-dir: each layer set up once by the two (their set-up logs hold one entry per layer between them)"
expect_true "python3 -c '
import json, sys
keys = [json.dumps(o[\"task\"], sort_keys=True) for path in sys.argv[1:] for o in json.load(open(path))[\"observations\"]]
assert len(keys) == 32 and len(set(keys)) == 32, len(keys)
' '$WORK/out/shard-0.json' '$WORK/out/shard-1.json'" "two shards: their observations together are the study's 32, each once"
expect_true "[ ! -e '$WORK/out/shard-0.json.prepared' ] && [ ! -e '$WORK/out/shard-1.json.prepared' ]" "two shards: nothing prepared beside their ledgers"

# A disk that fills during the set-up: that repository's executions are unavailable (setup-failed),
# nothing half made is kept, the run goes on and completes.
TINY=$WORK/tiny
mkdir -p "$TINY"
if mount -t tmpfs -o size=256k tmpfs "$TINY" 2>/dev/null; then
  LEDGER=$WORK/out/full.json
  vrun prep "$LEDGER" --jobs 4 --workspace overlay --confine --verify --verifier-config "$WORK/verifier/prep-big.json" --prepared-dir "$TINY"
  expect_code 0 "a disk full during the set-up: the run completes"
  expect_err_has "the set-up of repository consumer-02 failed" "a disk full during the set-up: named on stderr"
  expect_err_has "the set-up of repository consumer-03 failed (timed out after 500 ms" "a set-up past its setupTimeoutMs: named on stderr"
  expect_true "python3 -c '
import json, sys
obs = json.load(open(sys.argv[1]))[\"observations\"]
assert len(obs) == 32 and all((o[\"execution\"][\"status\"], o[\"execution\"].get(\"errorCode\")) == (\"unavailable\", \"setup-failed\") for o in obs), obs[0][\"execution\"]
 ' '$LEDGER'" "a disk full (consumer-02) and a timeout (consumer-03) during the set-up: every execution of both recorded unavailable (setup-failed)"
  expect_true "[ -z \"\$(pgrep -f 'sleep 5$MARK')\" ]" "a set-up past its setupTimeoutMs: killed with its group"
  expect_true "[ -z \"\$(find '$TINY' -mindepth 1 -type d)\" ]" "a disk full during the set-up: no layer and nothing half made kept ($(ls -A "$TINY" | tr '\n' ' '))"
  umount "$TINY"
fi

kill "$LISTENER" 2>/dev/null
wait "$LISTENER" 2>/dev/null
echo "run_verify: $(($(date +%s) - STARTED)) s" >&2
finish
