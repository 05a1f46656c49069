#!/usr/bin/env bash
# Workspace benchmark (issue 26): what `strata run --workspace copy|overlay [--confine]` adds per
# execution over `--workspace none`, on a small repository and on a generated large one.
# Usage: scripts/bench/workspace.sh [build-dir=build] [executions=40]
#   ROUNDS=n (default 3) rounds, the modes alternating; medians are reported.
#   LARGE_COPY_EXECUTIONS=k (default 3), LARGE_COPY_ROUNDS=r (default 1): copy on the large
#     repository copies the whole tree once per execution (about half a minute a GiB on ext4
#     without reflink), so it runs k executions in r rounds instead of the full grid.
#   LARGE_FILES (default 100000) files of LARGE_BYTES/LARGE_FILES bytes (LARGE_BYTES default 1 GiB),
#     100 to a directory.
#   KEEP_BENCH_DIR=1 keeps the temporary directory for a closer look.
#
# What one measurement is: one `strata run --jobs 1` of the example study (examples/study: its
# provider config with build/strata-example-provider, its suite and plan) on a fresh ledger, with
# the plan's pairwise sampleSize set to the executions wanted, one attempt per execution.
# A suite holds exactly 4 tasks per repository, so a pairwise plan samples at most 16 executions
# per repository: the suite is grown to P = ceil(executions / 16) repository ids that all have the
# same root (the repository under test).
#
# Per-execution and per-run costs are told apart. With a workspace, every run first pins each
# repository's tree in <ledger>.inputs: not a git checkout here, so it reads and hashes every file
# (seconds for 1 GiB, once per distinct root), a per-run cost that wall/N would spread over the
# executions. At --jobs 1 the executions run one after another, so the time between two
# consecutive observations' observedAt (set as each execution ends) is what one execution costs in
# a steady run: making its workspace, launching, the provider, reading its changes, recording it
# (the previous workspace's removal overlaps it). The median of those gaps is the per-execution
# figure ("cycle"); the fixed cost per run is the wall left over, wall - N x cycle. "Added" is a
# mode's cycle minus that of none on the same repository: the issue's target is overlay adding at
# most 10 ms per execution whatever the repository's size.
# Copy on the large repository runs only shard 0/S of the plan (about k executions, k - 1 gaps).
#
# Every run is checked: all executions completed, and with a workspace each observation reports
# workspaceChangedFiles 0 (the provider writes nothing). The repositories and every ledger live in
# one temporary directory, so workspaces are made on the repository's own file system.
set -euo pipefail

cd "$(dirname "$0")/../.."  # repo root
build=${1:-build}
executions=${2:-40}
rounds=${ROUNDS:-3}
copy_k=${LARGE_COPY_EXECUTIONS:-3}
copy_rounds=${LARGE_COPY_ROUNDS:-1}
large_files=${LARGE_FILES:-100000}
large_bytes=${LARGE_BYTES:-1073741824}
for binary in strata strata-workspace-exec strata-example-provider; do
  [ -x "$build/$binary" ] || { echo "not found: $build/$binary (build it first)" >&2; exit 1; }
done
for tool in python3 bwrap /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done
# Pairwise sampling takes multiples of 4 (2 models x 2 scenarios).
executions=$(( (executions + 3) / 4 * 4 ))
[ "$executions" -ge 4 ] || executions=4
repos=$(( (executions + 15) / 16 ))
copy_shards=$(( (executions + copy_k - 1) / copy_k ))  # shard 0 of these holds about k executions

T=$(mktemp -d "${TMPDIR:-/tmp}/strata-workspace-bench.XXXXXX")
[ -n "${KEEP_BENCH_DIR:-}" ] || trap 'rm -rf "$T"' EXIT
# Private copies, so a rebuild in the middle of the benchmark cannot swap them; strata looks for
# strata-workspace-exec beside itself.
# The provider sits with the study's artifacts: --confine gives the provider a private /tmp and
# binds its program back only from a directory it hides (the artifacts' is one); a program
# elsewhere under /tmp is not bound back ("bwrap: execvp ...: No such file or directory").
mkdir -p "$T/bin" "$T/study" "$T/repos" "$T/res"
cp -p "$build/strata" "$build/strata-workspace-exec" "$T/bin/"  # -p: the report gives the copy's build time
cp "$build/strata-example-provider" "$T/study/"
tree=$(git describe --always --dirty 2>/dev/null || echo unknown)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
strata=$T/bin/strata

log() { echo "[bench] $*" >&2; }
now_ns() { date +%s%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }  # calc <format> <awk expression>

# --- repositories ------------------------------------------------------------------------------
# small: 20 files of 1-3 KiB in 4 directories, like a tiny project.
python3 - "$T/repos/small" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(20):
    directory = f"{root}/dir{i % 4}"
    os.makedirs(directory, exist_ok=True)
    with open(f"{directory}/file{i:02d}.txt", "w") as out:
        out.write(f"line {i}\n" * (150 + 100 * (i % 3)))
PY
# large: LARGE_FILES files of LARGE_BYTES in total. Slices of one 16 MiB random buffer at a
# different offset per file: incompressible, distinct, and the kernel's file creation is the cost.
log "generating the large repository: $large_files files, $large_bytes bytes ..."
gen_start=$(now_ns)
python3 - "$T/repos/large" "$large_files" "$large_bytes" <<'PY'
import os, sys
root, files, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
size = total // files
pool = os.urandom(16 << 20)
for n in range(files):
    if n % 100 == 0:
        directory = f"{root}/d{n // 100:04d}"
        os.makedirs(directory)
    at = (n * 7919) % (len(pool) - size)
    with open(f"{directory}/f{n % 100:03d}.bin", "wb") as out:
        out.write(pool[at:at + size])
PY
gen_ns=$(( $(now_ns) - gen_start ))
# Written back before measuring, so no run pays for the generator's dirty pages.
sync_start=$(now_ns)
sync
sync_ns=$(( $(now_ns) - sync_start ))
large_size=$(du -sb "$T/repos/large" | cut -f1)
log "generated in $(calc %.1f "$gen_ns / 1e9") s (+ $(calc %.1f "$sync_ns / 1e9") s sync), $large_size bytes on disk"

# --- study artifacts ---------------------------------------------------------------------------
# The example study grown to $repos repository ids; one repository config per repository under
# test (every id rooted there); the example providers running the copied example provider.
python3 - "$T" "$(realpath examples/study)" "$repos" "$executions" <<'PY'
import json, sys
T, examples, count, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
suite = json.load(open(f"{examples}/task-suite.payload.json"))
ids = [f"consumer-{i:02d}" for i in range(1, count + 1)]
tasks = []
for i in ids:
    tasks += [json.loads(json.dumps(t).replace("consumer-01", i)) for t in suite["tasks"]]
suite.update(population=ids, tasks=tasks, maxRuns=1000)
json.dump(suite, open(f"{T}/study/suite.payload.json", "w"))
providers = json.load(open(f"{examples}/provider-config.payload.json"))
for p in providers["providers"] + [providers["adjudicator"]]:
    p["command"] = f"{T}/study/strata-example-provider"
json.dump(providers, open(f"{T}/study/providers.payload.json", "w"))
for name in ("small", "large"):
    json.dump({"type": "controlled-study-repository-config", "schemaVersion": 1, "configVersion": "bench",
               "repositories": [{"id": i, "root": f"{T}/repos/{name}"} for i in ids]},
              open(f"{T}/study/repos-{name}.payload.json", "w"))
plan = json.load(open(f"{examples}/run-plan.payload.json"))
plan["taskIds"] = [t["id"] for t in tasks]
plan["sampling"]["sampleSize"] = size
plan["budget"].update(maxAttempts=1, maxRuntimeMs=60000)  # one attempt = one execution; slack on a busy machine
plan["runId"] = "workspace-bench"
json.dump(plan, open(f"{T}/study/plan.payload.json", "w"))
PY
"$strata" seal task-suite "$T/study/suite.payload.json" -o "$T/study/suite.json" >/dev/null
"$strata" seal provider-config "$T/study/providers.payload.json" -o "$T/study/providers.json" >/dev/null
for name in small large; do
  "$strata" seal repository-config "$T/study/repos-$name.payload.json" -o "$T/study/repos-$name.json" >/dev/null
done
python3 - "$T/study/plan.payload.json" "$T/study/suite.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
plan["taskSuiteHash"] = json.load(open(sys.argv[2]))["contentHash"]
json.dump(plan, open(sys.argv[1], "w"))
PY
"$strata" seal run-plan "$T/study/plan.payload.json" -o "$T/study/plan.json" >/dev/null

# --- one measured run --------------------------------------------------------------------------
# measure <result name> <repository> <mode> [strata run args...]: one `strata run --jobs 1` on a
# fresh ledger under /usr/bin/time; checks it and appends
# "<wall s> <executions> <peak RSS KiB> <trees pinned> <median provider durationMs> <median cycle ms>"
# to $T/res/<name>.
measure() {
  local name=$1 repo=$2 mode=$3 start end
  shift 3
  rm -rf "$T/run" && mkdir "$T/run"
  local workspace=(--workspace "${mode%+confine}")
  [ "$mode" = "${mode%+confine}" ] || workspace+=(--confine)
  start=$(now_ns)
  /usr/bin/time -f %M -o "$T/rss" "$strata" run "$T/study/plan.json" "$T/study/suite.json" \
    --providers "$T/study/providers.json" --repositories "$T/study/repos-$repo.json" \
    --ledger "$T/run/ledger.json" --jobs 1 --text "${workspace[@]}" "$@" >"$T/out" 2>"$T/err" ||
    { echo "bench: $name: strata run failed: $(cat "$T/err")" >&2; exit 1; }
  end=$(now_ns)
  # Outside the timing: what the run did, read from its ledger and <ledger>.inputs.
  python3 - "$T/run/ledger.json" "$mode" "$name" <<'PY' >"$T/facts" || exit 1
import json, statistics, sys
from datetime import datetime
ledger, mode, name = sys.argv[1:4]
observations = json.load(open(ledger))["observations"]
bad = [o["execution"]["status"] for o in observations if o["execution"]["status"] != "completed"]
if bad:
    sys.exit(f"bench: {name}: {len(bad)} execution(s) did not complete: {sorted(set(bad))}")
if mode != "none":
    changed = [o.get("measurements", {}).get("workspaceChangedFiles") for o in observations]
    if any(c != 0 for c in changed):
        sys.exit(f"bench: {name}: workspaceChangedFiles not all 0: {sorted(set(map(str, changed)))}")
runs = json.load(open(ledger + ".inputs"))["runs"]
trees = len(set(next(iter(runs.values())).get("workspace", {}).get("trees", {}).values()))  # distinct trees: each read once
ends = sorted(datetime.fromisoformat(o["observedAt"].replace("Z", "+00:00")) for o in observations)
gaps = [(b - a).total_seconds() * 1000 for a, b in zip(ends, ends[1:])]
print(len(observations), trees, statistics.median(o["execution"]["durationMs"] for o in observations),
      statistics.median(gaps))
PY
  read -r ran trees duration cycle <"$T/facts"
  echo "$(calc %.3f "($end - $start) / 1e9") $ran $(tail -n 1 "$T/rss") $trees $duration $cycle" >>"$T/res/$name"
  rm -rf "$T/run"  # the ledger and <ledger>.workspaces (copy leaves none behind; checked by the tests)
}

modes=(none copy overlay overlay+confine copy+confine)
# field <result name> <column>: the median over the rounds of one column of $T/res/<name>.
# shellcheck disable=SC2046  # the values, split on purpose
field() { median $(awk -v c="$2" '{ print $c }' "$T/res/$1"); }

log "$executions executions per run ($repos repository ids, one root); $rounds rounds"
for round in $(seq "$rounds"); do
  order=("${modes[@]}")
  # Every other round the other way round, so a drift in the machine's load hits every mode.
  [ $((round % 2)) = 1 ] || order=("${order[4]}" "${order[3]}" "${order[2]}" "${order[1]}" "${order[0]}")
  for repo in small large; do
    for mode in "${order[@]}"; do
      case $repo/$mode in large/copy*) continue ;; esac  # below, with fewer executions
      log "round $round: $repo, $mode"
      measure "$repo-$mode" "$repo" "$mode"
    done
  done
done

# Copy on the large repository: last, after a sync, so the 1 GiB copies' write-back cannot slow
# the other measurements.
sync
for round in $(seq "$copy_rounds"); do
  for mode in copy copy+confine; do
    log "large copy round $round: $mode, shard 0/$copy_shards (about $copy_k executions)"
    measure "large-$mode" large "$mode" --shard "0/$copy_shards"
  done
done

# Where an isolated execution's time goes, apart from strata: each wrapper launched alone around
# /bin/true, 30 times from Python (medians); a bare launch of /bin/true is the floor.
log "launching the wrappers alone"
python3 - "$T" >"$T/launch" <<'PY'
import os, shutil, statistics, subprocess, sys, time
T = sys.argv[1]
launcher, lower, w = f"{T}/bin/strata-workspace-exec", f"{T}/repos/small", f"{T}/launch-dir"
def fresh():  # overlay needs an empty upper and work directory each time, as strata makes them
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(f"{w}/upper")
    os.makedirs(f"{w}/work")
bwrap = [shutil.which("bwrap"), "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--ro-bind", "/", "/",
         "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--bind", lower, lower, "--chdir", lower, "--"]
cases = [
    ("`/bin/true` (a process launch on this machine)", ["/bin/true"]),
    ("`unshare --mount --pid --fork /bin/true` (the kernel's namespaces, no strata)", ["unshare", "--mount", "--pid", "--fork", "/bin/true"]),
    ("`strata-workspace-exec --view` (PID namespace: copy's launcher)", [launcher, "--view", lower, "--", "/bin/true"]),
    ("`strata-workspace-exec --overlay` (mount and PID namespaces, the overlay mount)",
     [launcher, "--overlay", lower, f"{w}/upper", f"{w}/work", "--view", lower, "--", "/bin/true"]),
    ("`bwrap` with strata's confinement arguments", bwrap + ["/bin/true"]),
    ("`strata-workspace-exec --overlay` + `bwrap` (overlay --confine)",
     [launcher, "--overlay", lower, f"{w}/upper", f"{w}/work", "--view", w, "--"] + bwrap + ["/bin/true"]),
]
for label, command in cases:
    times = []
    for _ in range(30):
        fresh()
        start = time.perf_counter_ns()
        subprocess.run(command, check=True, stdin=subprocess.DEVNULL)
        times.append((time.perf_counter_ns() - start) / 1e6)
    print(f"| {label} | {statistics.median(times):.1f} |")
PY

# --- report ------------------------------------------------------------------------------------
mib() { calc %.1f "$1 / 1024"; }
rows=()
for repo in small large; do
  none_cycle=$(field "$repo-none" 6)
  for mode in "${modes[@]}"; do
    label="\`${mode%+confine}\`"
    [ "$mode" = "${mode%+confine}" ] || label="\`${mode%+confine} --confine\`"
    r=$repo-$mode
    n=$(field "$r" 2) wall=$(field "$r" 1) cycle=$(field "$r" 6)
    mark=""
    case $repo/$mode in large/copy*) mark="*" ;; esac
    rows+=("| $repo | $label | $n$mark | $wall | $(calc %.1f "$wall * 1000 / $n") | $(calc %.1f "$cycle") | $(calc %+.1f "$cycle - $none_cycle") | $(calc %.2f "$wall - $n * $cycle / 1000") | $(field "$r" 4) | $(calc %.1f "$(field "$r" 5)") | $(mib "$(field "$r" 3)") | $(awk '{ printf "%s/%s ", $1, $6 }' "$T/res/$r")|")
  done
done

added() { calc %.1f "$(field "$1-$2" 6) - $(field "$1-none" 6)"; }
echo "# strata run --workspace benchmark"
echo
echo "strata: $build/strata as copied at the start (built $(date -r "$strata" '+%F %T'), tree $tree); $(nproc) cores, $(findmnt -no FSTYPE -T "$T") at $T, kernel $(uname -r), $(bwrap --version)"
echo "Load average at the start: $load_start; before the report: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "Repositories: small = 20 files, $(du -sb "$T/repos/small" | cut -f1) bytes; large = $large_files files in $((large_files / 100)) directories, $large_bytes bytes of content ($large_size on disk), generated in $(calc %.1f "$gen_ns / 1e9") s (python3, slices of one 16 MiB os.urandom buffer) + $(calc %.1f "$sync_ns / 1e9") s sync."
echo "Each run: \`strata run --jobs 1\`, the example study (strata-example-provider), pairwise sampleSize $executions over $repos repository ids rooted in the repository under test, a fresh ledger in the same temporary directory. Medians of $rounds rounds, the modes in alternating order."
echo
echo "| Repository | Mode | Executions | Wall per run (s) | ms per execution (wall/N) | Cycle ms per execution (median gap) | Added ms per execution vs none | Fixed s per run (wall − N × cycle) | Trees read per run | Provider process median ms (durationMs) | Peak RSS (MiB) | All rounds: wall s / cycle ms |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
printf '%s\n' "${rows[@]}"
echo
echo "\* copy on the large repository: only \`--shard 0/$copy_shards\` of the plan ($(field large-copy 2) executions, so $(( $(field large-copy 2) - 1 )) gaps), $copy_rounds round(s) (LARGE_COPY_EXECUTIONS, LARGE_COPY_ROUNDS): each execution copies the whole tree."
echo
echo "Cycle = median time between consecutive observations' observedAt (--jobs 1: one execution after another). Fixed = wall − N × cycle: start-up, pre-flight probes, the first execution's share, and with a workspace each distinct tree's pin (a SHA-256 of every file, the repository not being a git checkout)."
echo "Provider process = the ledger's execution.durationMs: the launched process from start to exit, so with a workspace the launcher (namespaces, overlay mount) and bwrap are in it; the rest of the cycle is strata's own (workspace made, changes read, observation recorded). Peak RSS: /usr/bin/time -f %M of \`strata run\` (the largest of strata and the children it waited for)."
echo
echo "Target (issue 26): overlay adds at most 10 ms per execution whatever the size. Overlay added: small $(added small overlay) ms, large $(added large overlay) ms; with --confine: small $(added small overlay+confine) ms, large $(added large overlay+confine) ms."
echo
echo "Where the time goes: each wrapper launched alone around /bin/true (median of 30 launches from Python, ms):"
echo
echo "| Launch | ms |"
echo "|---|---:|"
cat "$T/launch"
echo
echo "Load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
