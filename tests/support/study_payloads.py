"""Study payloads the CLI tests and benchmarks build from the doc-bridge fixtures.

Imported by the inline Python of tests/cli/*.sh (tests/cli/lib.sh puts this folder on
PYTHONPATH) and scripts/bench/run.sh, so that the 128-task suite, the repository config and the
six provider entries are made one way everywhere.
"""
import hashlib
import json
import os

MODELS = ["low-cost-model", "reference-model"]
SCENARIOS = ["repository-only", "deterministic-doc-bridge", "registry-assisted"]
FIXTURE_REPOSITORIES = [f"consumer-0{i}" for i in range(1, 7)]


def unsealed(path):
    """The artifact at `path` without its seal (contentHash, contentHashAlgo), to edit and re-seal."""
    artifact = json.load(open(path))
    for k in ("contentHash", "contentHashAlgo"):
        artifact.pop(k, None)
    return artifact


def grown_tasks(suite, repositories=32):
    """(repository ids, tasks) of `suite` grown to `repositories` repositories: consumer-07.. copy
    the tasks of consumer-01..06 in turn (32 repositories x 4 tasks = 128, the most a suite holds)."""
    ids = [f"consumer-{i:02d}" for i in range(1, repositories + 1)]
    by_repository = {}
    for t in suite["tasks"]:
        by_repository.setdefault(t["repositoryId"], []).append(t)
    tasks = []
    for n, repository in enumerate(ids):
        source = f"consumer-{n % 6 + 1:02d}"
        tasks += [json.loads(json.dumps(t).replace(source, repository)) for t in by_repository[source]]
    return ids, tasks


def write_repository_config(roots, ids, out):
    """An empty directory under `roots` for each repository id, and their config payload at `out`."""
    for i in ids:
        os.makedirs(f"{roots}/{i}", exist_ok=True)
    json.dump({"type": "controlled-study-repository-config", "schemaVersion": 1, "configVersion": "v1",
               "repositories": [{"id": i, "root": f"{roots}/{i}"} for i in ids]},
              open(out, "w"))


def provider_entries(command, args=(), **members):
    """One CLI provider entry per (model, scenario) running `command`; `members` add or replace."""
    entries = []
    for m in MODELS:
        for s in SCENARIOS:
            entry = {"modelId": m, "scenarioIds": [s], "command": command, "args": list(args),
                     "providerNetwork": False, "maxInputBytes": 1000000, "maxOutputBytes": 10000}
            entry.update(members)
            entries.append(entry)
    return entries


def write_provider_config(entries, out):
    json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1",
               "providers": entries}, open(out, "w"))


def grown_pairwise_study(fix, max_runtime_ms, repositories=32):
    """(suite, plan, repository ids): the fixture suite grown to 128 tasks and a plan over all of
    them with pairwise sampling of repository-only and deterministic-doc-bridge (4 x 128 = 512
    executions), one attempt of at most `max_runtime_ms`; the caller sets the plan's runId and
    its taskSuiteHash once the suite is sealed."""
    suite, plan = unsealed(f"{fix}/task-suite-v1.json"), unsealed(f"{fix}/run-plan-v1.json")
    ids, tasks = grown_tasks(suite, repositories)
    suite.update(population=ids, tasks=tasks, maxRuns=1000)
    plan["taskIds"] = [t["id"] for t in tasks]
    plan["sampling"] = {"strategy": "pairwise-task-strata", "sampleSize": 4 * len(tasks),
                        "scenarioIds": ["repository-only", "deterministic-doc-bridge"]}
    plan["budget"] = {"maxTokens": 400000, "maxRuntimeMs": max_runtime_ms, "maxOutputBytes": 256000, "maxAttempts": 1}
    return suite, plan, ids


def execution_key(task):
    """An observation's execution key (docs/METRICS.md, executionKey): SHA-256 of the canonical JSON
    of its task's six key fields, as Strata names its trajectory, patch and verifier output."""
    fields = {k: task[k] for k in ("taskId", "repositoryId", "scenarioId", "modelId", "replicate", "variantId")}
    return hashlib.sha256(json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
