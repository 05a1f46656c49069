#!/usr/bin/python3
"""The trajectories `strata run/adjudicate --keep-trajectories DIR` kept, against their ledger.

Usage: check_trajectories.py <strata> <ledger> <dir> <schema> [--judged] [--min-steps N]

- `strata trajectory DIR --list --ledger LEDGER` names, for every trajectory in DIR, its
  observation: each observation has exactly one (measurement trajectoryKept 1), none is without
  its observation;
- every file validates against the ATIF schema (schemas/atif-trajectory.schema.json);
- an execution's totals are its observation's tokens;
- with --judged, the ledger is an adjudicated one and each judged observation also has its
  judge's trajectory.
Prints what is wrong, exits 1 when anything is.
"""
import glob, json, os, subprocess, sys
from jsonschema import Draft202012Validator

strata, ledger_path, directory, schema_path = sys.argv[1:5]
judged = "--judged" in sys.argv
min_steps = int(sys.argv[sys.argv.index("--min-steps") + 1]) if "--min-steps" in sys.argv else 2
problems = []
validator = Draft202012Validator(json.load(open(schema_path)))
observations = json.load(open(ledger_path))["observations"]
listing = json.loads(subprocess.run([strata, "trajectory", directory, "--list", "--ledger", ledger_path],
                                    check=True, capture_output=True, text=True).stdout)
for kind in ("execution", "judge") if judged else ("execution",):
    entries = [e for e in listing["trajectories"] if e["kind"] == kind]
    orphans = [e["executionKey"] for e in entries if e.get("observation") is None]
    if orphans: problems.append(f"{kind} trajectories without an observation: {orphans}")
    if len(entries) != len(observations): problems.append(f"{len(entries)} {kind} trajectories for {len(observations)} observations")
    for e in entries:
        if e.get("steps") is None or e["steps"] < min_steps: problems.append(f"{e['executionKey']}: {e.get('steps')} steps")
        o = e.get("observation")
        if kind == "execution" and o and (e.get("promptTokens"), e.get("completionTokens")) != (o.get("inputTokens"), o.get("outputTokens")):
            problems.append(f"{e['executionKey']}: totals {e.get('promptTokens')}/{e.get('completionTokens')}, observation {o.get('inputTokens')}/{o.get('outputTokens')}")
if any(o.get("measurements", {}).get("trajectoryKept") != 1 for o in observations):
    problems.append("an observation without trajectoryKept 1")
files = glob.glob(os.path.join(directory, "*.json"))
for path in files:
    for error in validator.iter_errors(json.load(open(path))):
        problems.append(f"{os.path.basename(path)}: {error.json_path}: {error.message[:200]}")
if not files: problems.append("no trajectory files")
print("; ".join(problems[:10]))
sys.exit(1 if problems else 0)
