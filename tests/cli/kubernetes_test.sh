#!/usr/bin/env bash
# The Kubernetes example (examples/kubernetes/) without a cluster: the manifests, and their pods
# simulated with the real binary.
#   - every manifest parses (python3's yaml) and has the fields the example promises: the shard Job
#     is an Indexed Job (completionMode Indexed, completions = STRATA_SHARD_COUNT, parallelism <=
#     completions, a per-index retry limit, restartPolicy Never), runs `strata run ... --shard
#     auto` with a per-index ledger on a volume backed by the ReadWriteMany claim, the study from
#     the ConfigMap, the provider's credentials from a Secret under names the example provider
#     config allowlists, requests and limits; every $(VAR) in its args is one Kubernetes expands;
#     the merge Job merges the shard ledgers 0..N-1 in order from the same claim with --plan,
#     --suite and --require-complete; the README creates the ConfigMap and the Secret they name;
#   - `--shard auto` refuses what is missing or inconsistent (an index without a count, an index
#     >= the count, non-numeric values, no engine, two engines): exit 2, one line, no ledger;
#   - the pods: the shard Job's own command line, run for every index k of its N with the pod's
#     environment (JOB_COMPLETION_INDEX=k, STRATA_SHARD_COUNT=N) on the sealed example study, with
#     the claim as a directory and the ConfigMap laid out as the kubelet does (symlinks through
#     ..data), runs exactly the executions at selection positions
#     k, k+N, ... of a single unsharded run; a pod stopped part-way (a budget) is retried with the
#     same command and resumes; a merge before every shard is complete writes nothing; the merge
#     Job's command then writes the single run's observations in its order (apart from timing
#     fields), and the merged ledger verifies.
# Usage: kubernetes_test.sh <strata binary> <example provider binary> [fixtures dir, unused]
STRATA=$(realpath "$1")
PROVIDER=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
K8S=$(realpath "$(dirname "$0")/../../examples/kubernetes")

if ! python3 -c 'import yaml' 2>/dev/null; then
  echo "FAIL: python3 cannot import yaml; scripts/setup.sh installs it (Debian package python3-yaml)" >&2
  exit 1
fi

# expect_line <line> <name>: stdout has exactly that line.
expect_line() { checks=$((checks + 1)); grep -qxF -- "$1" "$WORK/stdout" || fail "$2: stdout lacks the line '$1'"; }

# checks_from <label> <command...>: runs a checker that prints "ok <what>" or "FAIL <what>" lines,
# and counts them; the checker failing is a failure too.
checks_from() {
  local line label=$1
  shift
  "$@" >"$WORK/checks" 2>"$WORK/checks.err"
  local status=$?
  while IFS= read -r line; do
    checks=$((checks + 1))
    case $line in
      ok\ *) ;;
      *) failures=$((failures + 1)); echo "FAIL: ${line#FAIL }" >&2 ;;
    esac
  done <"$WORK/checks"
  checks=$((checks + 1))
  if [ "$status" != 0 ]; then
    failures=$((failures + 1))
    echo "FAIL: the $label checker exited $status: $(tail -n 3 "$WORK/checks.err")" >&2
  fi
}

# --- the manifests ------------------------------------------------------------------------
# Reads every manifest, checks the fields, and writes what the pods need: each pod's argv in
# $WORK/pod-shard-<k>.argv and $WORK/pod-merge.argv (Kubernetes' $(VAR) expansion applied, the
# image's `strata` replaced by the binary under test, every mount path mapped to a directory
# standing for its volume, the claim or the ConfigMap, shared by both Jobs as on a cluster), and in
# $WORK/pods.sh the shard count N, the pods' environments, the study files' and ledgers' paths.
checks_from manifest python3 - "$K8S" "$WORK" "$STRATA" <<'PY'
import glob, json, os, re, shlex, sys
import yaml

k8s, work, strata = sys.argv[1:4]

def check(ok, what):
    print(("ok " if ok else "FAIL ") + what)
    return ok

docs = []
for path in sorted(glob.glob(f"{k8s}/*.yaml") + glob.glob(f"{k8s}/*.yml")):
    name = os.path.basename(path)
    try:
        loaded = [d for d in yaml.safe_load_all(open(path)) if d is not None]
    except yaml.YAMLError as e:
        check(False, f"{name} parses as YAML: " + " ".join(str(e).split()))
        continue
    check(bool(loaded), f"{name} holds a manifest")
    for d in loaded:
        check(isinstance(d, dict) and d.get("apiVersion") and d.get("kind") and (d.get("metadata") or {}).get("name"),
              f"{name}: every document has apiVersion, kind and metadata.name")
        docs.append((name, d))

jobs = [(n, d) for n, d in docs if d.get("kind") == "Job"]
indexed = [(n, d) for n, d in jobs if d["spec"].get("completionMode") == "Indexed"]
others = [(n, d) for n, d in jobs if d["spec"].get("completionMode") != "Indexed"]
claims = {d["metadata"]["name"]: d for n, d in docs if d.get("kind") == "PersistentVolumeClaim"}
if not (check(len(indexed) == 1, "one Indexed Job (the shards)") and check(len(others) == 1, "one other Job (the merge)")
        and check(len(claims) >= 1, "a PersistentVolumeClaim")):
    sys.exit(0)
shard_file, shard = indexed[0]
merge_file, merge = others[0]
for claim_name, claim in claims.items():
    check("ReadWriteMany" in claim["spec"].get("accessModes", []), f"claim {claim_name} is ReadWriteMany")
    check(bool(claim["spec"].get("resources", {}).get("requests", {}).get("storage")), f"claim {claim_name} requests storage")

spec = shard["spec"]
n = spec.get("completions")
check(isinstance(n, int) and n >= 1, f"{shard_file}: completions is a positive integer ({n!r})")
check(isinstance(spec.get("parallelism"), int) and 1 <= spec["parallelism"] <= (n or 0),
      f"{shard_file}: 1 <= parallelism <= completions ({spec.get('parallelism')!r})")
check(isinstance(spec.get("backoffLimitPerIndex", spec.get("backoffLimit")), int),
      f"{shard_file}: a retry limit (backoffLimitPerIndex or backoffLimit)")
if "backoffLimitPerIndex" in spec or "podFailurePolicy" in spec:
    check(spec["template"]["spec"].get("restartPolicy") == "Never",
          f"{shard_file}: restartPolicy Never (required by backoffLimitPerIndex and podFailurePolicy)")
check(merge["spec"]["template"]["spec"].get("restartPolicy") in ("Never", "OnFailure"), f"{merge_file}: a Job restartPolicy")


def container_of(name, job):
    cs = job["spec"]["template"]["spec"]["containers"]
    check(len(cs) == 1, f"{name}: one container")
    return cs[0]


def expand(text, env):
    """Kubernetes' $(VAR) expansion of command and args: $$ is a literal $, $(NAME) of a defined
    variable is its value, anything else stays as written."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$"); i += 2
        elif text.startswith("$(", i) and ")" in text[i:]:
            end = text.index(")", i)
            name = text[i + 2:end]
            if name in env:
                out.append(env[name]); i = end + 1
            else:
                out.append(text[i:end + 1]); i = end + 1
        else:
            out.append(text[i]); i += 1
    return "".join(out)


def volumes_of(name, job, container):
    """mount path -> (kind, source name) of each mounted volume."""
    volumes = {v["name"]: v for v in job["spec"]["template"]["spec"].get("volumes", [])}
    mounts = {}
    for m in container.get("volumeMounts", []):
        v = volumes.get(m["name"])
        if not check(v is not None, f"{name}: mount {m['mountPath']} has a volume"):
            continue
        if "persistentVolumeClaim" in v:
            mounts[m["mountPath"].rstrip("/")] = ("claim", v["persistentVolumeClaim"]["claimName"])
        elif "configMap" in v:
            mounts[m["mountPath"].rstrip("/")] = ("configmap", v["configMap"]["name"])
        else:
            mounts[m["mountPath"].rstrip("/")] = ("other", m["name"])
    return mounts


def mapped(path, mounts):
    """The directory standing for the volume a path lies on, or None when it is on no volume."""
    for mount, (kind, source) in mounts.items():
        if path.startswith(mount + "/"):
            return f"{work}/{kind}-{source}{path[len(mount):]}", kind, source
    return None, None, None


def local_argv(argv, mounts):
    return [strata] + [mapped(a, mounts)[0] or a for a in argv[1:]]


def check_resources(name, container):
    r = container.get("resources", {})
    for part in ("requests", "limits"):
        check(all(r.get(part, {}).get(k) for k in ("cpu", "memory")), f"{name}: resources.{part} has cpu and memory")


# The shard container.
shard_c = container_of(shard_file, shard)
check_resources(shard_file, shard_c)
env_list = shard_c.get("env", [])
env = {e["name"]: e for e in env_list}
count = env.get("STRATA_SHARD_COUNT", {}).get("value")
check(count is not None and count == str(n), f"{shard_file}: env STRATA_SHARD_COUNT ({count!r}) equals completions ({n!r})")
if "JOB_COMPLETION_INDEX" in env:
    ref = env["JOB_COMPLETION_INDEX"].get("valueFrom", {}).get("fieldRef", {}).get("fieldPath", "")
    check(ref in ("metadata.annotations['batch.kubernetes.io/job-completion-index']",
                  "metadata.labels['batch.kubernetes.io/job-completion-index']"),
          f"{shard_file}: a declared JOB_COMPLETION_INDEX comes from the completion index ({ref!r})")

secrets = [e for e in env_list if "secretKeyRef" in e.get("valueFrom", {})]
check(bool(secrets), f"{shard_file}: the provider's credentials come from a Secret (secretKeyRef)")
check(all(not re.search(r"KEY|TOKEN|SECRET|PASSWORD", e["name"]) or "valueFrom" in e for e in env_list),
      f"{shard_file}: no credential written as a literal value")
providers = json.load(open(f"{k8s}/provider-config.payload.json"))
entries = providers["providers"] + ([providers["adjudicator"]] if "adjudicator" in providers else [])
for e in secrets:
    check(all(e["name"] in p.get("envAllowlist", []) for p in entries),
          f"{shard_file}: secret variable {e['name']} is in every envAllowlist of provider-config.payload.json")
    check(e["valueFrom"]["secretKeyRef"].get("name") and e["valueFrom"]["secretKeyRef"].get("key"),
          f"{shard_file}: secret variable {e['name']} names its Secret and key")

# What Kubernetes expands in args: the variables declared in env, and JOB_COMPLETION_INDEX, which
# the Job controller adds to every container of an Indexed Job.
raw = shard_c.get("command", []) + shard_c.get("args", [])
declared = set(env) | {"JOB_COMPLETION_INDEX"}
for ref in sorted({m for a in raw for m in re.findall(r"(?<!\$)\$\(([^)]*)\)", a)}):
    check(ref in declared, f"{shard_file}: $({ref}) in args is a variable Kubernetes expands")
check(os.path.basename(raw[0]) == "strata" and raw[1:2] == ["run"], f"{shard_file}: the command is strata run ({raw[:2]})")
check(all("$(" not in a or "JOB_COMPLETION_INDEX" in a for a in raw), f"{shard_file}: no other variable in args")
flag = lambda argv, name: argv[argv.index(name) + 1] if name in argv[:-1] else None
check(flag(raw, "--shard") == "auto", f"{shard_file}: --shard auto")
ledger_pattern = flag(raw, "--ledger") or ""
check("$(JOB_COMPLETION_INDEX)" in ledger_pattern, f"{shard_file}: a ledger per index ({ledger_pattern!r})")

shard_mounts = volumes_of(shard_file, shard, shard_c)
_, kind, source = mapped(ledger_pattern, shard_mounts)
check(kind == "claim" and source in claims, f"{shard_file}: the ledger is on the claim's volume ({kind}, {source})")
positional = [a for i, a in enumerate(raw[2:], 2) if not a.startswith("-") and not raw[i - 1].startswith("-")]
study = {"plan": positional[0] if positional else None, "suite": positional[1] if len(positional) > 1 else None,
         "providers": flag(raw, "--providers"), "repositories": flag(raw, "--repositories")}
study_sources = set()
for what, path in study.items():
    local, kind, source = mapped(path or "", shard_mounts)
    check(kind == "configmap", f"{shard_file}: the {what} file is in the study ConfigMap ({path})")
    study_sources.add(source)

# The merge container.
merge_c = container_of(merge_file, merge)
check_resources(merge_file, merge_c)
mraw = merge_c.get("command", []) + merge_c.get("args", [])
check(os.path.basename(mraw[0]) == "strata" and mraw[1:3] == ["ledger", "merge"], f"{merge_file}: the command is strata ledger merge")
check("--require-complete" in mraw, f"{merge_file}: --require-complete")
check(flag(mraw, "--plan") == study["plan"] and flag(mraw, "--suite") == study["suite"],
      f"{merge_file}: --plan and --suite are the shards' plan and suite")
inputs = []
for a in mraw[3:]:
    if a.startswith("-"):
        break
    inputs.append(a)
shard_ledgers = [ledger_pattern.replace("$(JOB_COMPLETION_INDEX)", str(k)) for k in range(n or 0)]
check(inputs == shard_ledgers, f"{merge_file}: the inputs are the shard ledgers 0..N-1 in order ({inputs})")
output = flag(mraw, "-o") or flag(mraw, "--output")
check(output is not None and output not in inputs, f"{merge_file}: -o is not an input ({output})")
merge_mounts = volumes_of(merge_file, merge, merge_c)
ledger_claim = mapped(ledger_pattern, shard_mounts)[2]
for path in inputs + [output or ""]:
    check(mapped(path, merge_mounts)[1:] == ("claim", ledger_claim), f"{merge_file}: {path} is on the shards' claim")
for path in (flag(mraw, "--plan"), flag(mraw, "--suite")):
    check(mapped(path or "", merge_mounts)[0] == mapped(path or "", shard_mounts)[0],
          f"{merge_file}: {path} is in the shards' study ConfigMap")

# The README tells how to create the ConfigMap and the Secret the Jobs use, under those names.
readme = open(f"{k8s}/README.md").read()
for source in study_sources:
    check(f"create configmap {source}" in readme, f"README.md creates the ConfigMap {source}")
for e in secrets:
    ref = e["valueFrom"]["secretKeyRef"]
    check(f"create secret generic {ref['name']}" in readme and ref["key"] in readme,
          f"README.md creates the Secret {ref['name']} with {ref['key']}")

pod_env = {e["name"]: e["value"] for e in env_list if "value" in e}
pod_env.update({e["name"]: "not-a-real-key" for e in secrets})
pod_env.pop("JOB_COMPLETION_INDEX", None)
merge_env = {e["name"]: e["value"] for e in merge_c.get("env", []) if "value" in e}
for k in range(n or 0):
    argv = local_argv([expand(a, {**pod_env, "JOB_COMPLETION_INDEX": str(k)}) for a in raw], shard_mounts)
    open(f"{work}/pod-shard-{k}.argv", "w").write("".join(a + "\0" for a in argv))
open(f"{work}/pod-merge.argv", "w").write("".join(a + "\0" for a in local_argv(mraw, merge_mounts)))
q = shlex.quote
array = lambda values: "(" + " ".join(q(v) for v in values) + ")"
with open(f"{work}/pods.sh", "w") as out:
    out.write(f"N={n}\n")
    for what, path in study.items():
        out.write(f"STUDY_{what.upper()}={q(mapped(path or '', shard_mounts)[0] or '')}\n")
    out.write(f"LEDGER_PATHS={array(mapped(p, shard_mounts)[0] for p in shard_ledgers)}\n")
    out.write(f"MERGED={q(mapped(output or '', merge_mounts)[0] or '')}\n")
    out.write(f"POD_ENV={array(f'{k}={v}' for k, v in pod_env.items())}\n")
    out.write(f"MERGE_ENV={array(f'{k}={v}' for k, v in merge_env.items())}\n")
PY
[ -s "$WORK/pods.sh" ] || { echo "FAIL: the manifests gave no pods to simulate" >&2; finish; exit 1; }
. "$WORK/pods.sh"

# The example provider config seals (strata checks its shape and the allowlist names).
run seal provider-config "$K8S/provider-config.payload.json" -o "$WORK/k8s-providers.json"
expect_code 0 "the Kubernetes provider config seals"
run seal repository-config "$K8S/repository-config.payload.json" -o "$WORK/k8s-repositories.json"
expect_code 0 "the Kubernetes repository config seals"

# pod <env...> [-- <extra args...>]: runs the pod command line $ARGV (a file of NUL-terminated
# arguments) as a pod would: with only the given environment (the container's: "${POD_ENV[@]}",
# the manifest's env with a dummy value for the Secret's key) and PATH, HOME, TMPDIR; no variable
# of this shell (no SLURM_* of a CI runner).
pod() {
  local -a argv extra_env=() extra_args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do extra_env+=("$1"); shift; done
  [ "${1:-}" = -- ] && { shift; extra_args=("$@"); }
  mapfile -d '' argv <"$ARGV"
  env -i PATH="$PATH" HOME="${HOME:-/tmp}" TMPDIR="${TMPDIR:-/tmp}" "${extra_env[@]}" "${argv[@]}" "${extra_args[@]}" \
    >"$WORK/stdout" 2>"$WORK/stderr"
  CODE=$?
  OUT=$(cat "$WORK/stdout")
  ERR=$(cat "$WORK/stderr")
}

# --- the study on the volumes --------------------------------------------------------------
make_example_study "$PROVIDER" k8s
# A ConfigMap volume as the kubelet lays it out: the files in a timestamped directory, ..data a
# symlink to it, and each key a symlink through ..data.
configmap_file() { # configmap_file <source> <path in the volume>
  local dir=${2%/*}
  mkdir -p "$dir/..2026_01_01_00_00_00.000000001"
  [ -e "$dir/..data" ] || ln -s ..2026_01_01_00_00_00.000000001 "$dir/..data"
  cp "$1" "$dir/..data/${2##*/}"
  ln -s "..data/${2##*/}" "$2"
}
configmap_file "$WORK/plan-k8s.json" "$STUDY_PLAN"
configmap_file "$WORK/suite.json" "$STUDY_SUITE"
configmap_file "$WORK/providers.json" "$STUDY_PROVIDERS"
configmap_file "$WORK/repos.json" "$STUDY_REPOSITORIES"
LEDGERS=$(dirname "${LEDGER_PATHS[0]}")
mkdir -p "$LEDGERS"

# The reference: one unsharded run of the same study.
SINGLE=$WORK/single.json
study_run k8s "$SINGLE"; expect_code 0 "the single run"
TOTAL=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["observations"]))' "$SINGLE")
expect_true "[ '$TOTAL' -ge '$N' ]" "the example study has at least N=$N executions (it has $TOTAL)"

# --- --shard auto refuses what is missing or inconsistent -----------------------------------
ARGV=$WORK/pod-shard-0.argv
refuse() { # refuse <name> <stderr fragment> <env...>
  local name=$1 fragment=$2
  shift 2
  pod "$@"
  expect_code 2 "$name"
  expect_err_has "$fragment" "$name"
  expect_err_lines 1 "$name"
  expect_out_empty "$name"
  expect_true "[ -z \"\$(ls -A '$LEDGERS')\" ]" "$name: no ledger written"
}
refuse "an index without a count" STRATA_SHARD_COUNT JOB_COMPLETION_INDEX=0
refuse "index = count" JOB_COMPLETION_INDEX JOB_COMPLETION_INDEX="$N" STRATA_SHARD_COUNT="$N"
refuse "index > count" JOB_COMPLETION_INDEX JOB_COMPLETION_INDEX=$((N + 3)) STRATA_SHARD_COUNT="$N"
refuse "a non-numeric index" JOB_COMPLETION_INDEX JOB_COMPLETION_INDEX=one STRATA_SHARD_COUNT="$N"
refuse "a negative index" JOB_COMPLETION_INDEX JOB_COMPLETION_INDEX=-1 STRATA_SHARD_COUNT="$N"
refuse "an empty index" JOB_COMPLETION_INDEX JOB_COMPLETION_INDEX= STRATA_SHARD_COUNT="$N"
refuse "a non-numeric count" STRATA_SHARD_COUNT JOB_COMPLETION_INDEX=0 STRATA_SHARD_COUNT=four
refuse "a count with trailing text" STRATA_SHARD_COUNT JOB_COMPLETION_INDEX=0 STRATA_SHARD_COUNT="${N}x"
refuse "a zero count" STRATA_SHARD_COUNT JOB_COMPLETION_INDEX=0 STRATA_SHARD_COUNT=0
refuse "no engine at all (never a silent shard 0 of 1)" JOB_COMPLETION_INDEX
refuse "Kubernetes and Slurm at once" SLURM_ARRAY_TASK_ID JOB_COMPLETION_INDEX=0 STRATA_SHARD_COUNT="$N" \
  SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=$((N - 1)) SLURM_ARRAY_TASK_COUNT="$N"

# --- the pods -------------------------------------------------------------------------------
# Index 1 first: a pod that stops part-way (here a budget that lets one execution start: its
# plan's worst case, every attempt at budget.maxTokens) and is then retried with the Job's command.
WORST=$(python3 -c 'import json, sys; b = json.load(open(sys.argv[1]))["budget"]; print(b["maxTokens"] * b["maxAttempts"])' \
  "$WORK/plan-k8s.json")
PARTIAL=$((N > 1 ? 1 : 0))
ARGV=$WORK/pod-shard-$PARTIAL.argv
pod JOB_COMPLETION_INDEX="$PARTIAL" "${POD_ENV[@]}" -- --max-tokens "$WORST"
expect_code 4 "pod $PARTIAL stopped by its budget"
SHARE=$(( (TOTAL - PARTIAL + N - 1) / N ))
DONE=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["observations"]))' "${LEDGER_PATHS[$PARTIAL]}" 2>/dev/null)
expect_true "[ '${DONE:-0}' -ge 1 ] && [ '${DONE:-0}' -lt '$SHARE' ]" "pod $PARTIAL recorded part of its $SHARE executions (${DONE:-0})"

# The other pods.
for k in $(seq 0 $((N - 1))); do
  [ "$k" = "$PARTIAL" ] && continue
  ARGV=$WORK/pod-shard-$k.argv
  pod JOB_COMPLETION_INDEX="$k" "${POD_ENV[@]}"
  expect_code 0 "pod $k"
  expect_line "Executed: $(( (TOTAL - k + N - 1) / N ))" "pod $k runs its share"
done

# A merge while a shard is incomplete refuses (--require-complete) and writes nothing.
ARGV=$WORK/pod-merge.argv
pod "${MERGE_ENV[@]}"
expect_code 2 "a merge while shard $PARTIAL is incomplete"
expect_file_absent "$MERGED" "a merge while shard $PARTIAL is incomplete"
expect_true "[ -z \"\$(ls -A '$LEDGERS' | grep -v '^shard-')\" ]" "the refused merge left no file on the claim"

# The retried pod of the stopped index: the Job's own command, resuming from its ledger.
ARGV=$WORK/pod-shard-$PARTIAL.argv
pod JOB_COMPLETION_INDEX="$PARTIAL" "${POD_ENV[@]}"
expect_code 0 "pod $PARTIAL retried"
expect_line "Skipped: ${DONE:-0}" "the retried pod $PARTIAL skips what it had recorded"
expect_line "Executed: $((SHARE - ${DONE:-0}))" "the retried pod $PARTIAL runs the rest of its share"
# A pod started again after its index completed (Kubernetes may, rarely) runs nothing.
pod JOB_COMPLETION_INDEX="$PARTIAL" "${POD_ENV[@]}"
expect_code 0 "pod $PARTIAL once more"
expect_line "Executed: 0" "pod $PARTIAL once more runs nothing"

# Each shard holds exactly the executions at selection positions k, k+N, ... of the single run,
# with the same observations apart from timing.
COMPARE='
import json, re, sys
def timeless(o):
    o = json.loads(json.dumps(o))
    for k in ("observedAt", "contentHash"):
        o.pop(k, None)
    o.get("execution", {}).pop("durationMs", None)
    o["measurements"] = {k: v for k, v in o.get("measurements", {}).items() if not re.search(r"(?i)duration|Ms$", k)}
    return o
def key(o):
    return (o["runId"], json.dumps(o["task"], sort_keys=True))
def observations(path):
    try:
        return json.load(open(path))["observations"]
    except (OSError, ValueError, KeyError) as e:
        print(f"FAIL {path} is a ledger: {e}")
        return []
'
checks_from shard python3 -c "$COMPARE"'
single = observations(sys.argv[1])
n = int(sys.argv[2])
for k, path in enumerate(sys.argv[3:]):
    shard = observations(path)
    want = single[k::n]
    print(("ok " if [key(o) for o in shard] == [key(o) for o in want] else "FAIL ")
          + f"shard {k} holds the executions at positions {k}, {k}+{n}, ... ({len(shard)} of {len(single)})")
    print(("ok " if [timeless(o) for o in shard] == [timeless(o) for o in want] else "FAIL ")
          + f"shard {k}: the observations equal the single run'"'"'s apart from timing")
' "$SINGLE" "$N" "${LEDGER_PATHS[@]}"

# --- the merge Job ----------------------------------------------------------------------------
ARGV=$WORK/pod-merge.argv
pod "${MERGE_ENV[@]}"
expect_code 0 "the merge pod"
expect_true "[ -s '$MERGED' ]" "the merge pod wrote the merged ledger"
checks_from merge python3 -c "$COMPARE"'
single, merged = observations(sys.argv[1]), observations(sys.argv[2])
print(("ok " if [key(o) for o in merged] == [key(o) for o in single] else "FAIL ")
      + f"the merged ledger has the single run'"'"'s executions in its order ({len(merged)} of {len(single)})")
print(("ok " if [timeless(o) for o in merged] == [timeless(o) for o in single] else "FAIL ")
      + "the merged observations equal the single run'"'"'s apart from timing")
shards = {}
for path in sys.argv[3:]:
    for o in observations(path):
        shards[key(o)] = o
print(("ok " if all(shards.get(key(o)) == o for o in merged) else "FAIL ")
      + "every merged observation is its shard'"'"'s, field for field")
' "$SINGLE" "$MERGED" "${LEDGER_PATHS[@]}"
run verify --text "$MERGED"; expect_code 0 "the merged ledger verifies"

finish
