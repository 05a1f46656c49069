#!/usr/bin/env bash
# `run_done` through `strata usage log` on an empty project log and on one of 100,000 events,
# side by side in one run (usage-lifecycle issue 18, part 2: at most 50 ms more).
#
# The long log is one run (bench-long-0001) of 100,000 rows in the writer's own format, in the
# project log and in its global mirror file: 25,000 resources acquired and released (so the
# run's resource state holds 25,000 ids), 2,500 test runs of 4 cases, and 19 progress events; all
# closed, so run_done is accepted. Each sample is a run_done with a new --detail (a new event
# that the writer must look up, gate, append, mirror and index). Reported: the first write on
# the long log (no state index yet: the full read that builds it), then the median, p90 and max
# of n samples on each log. Usage: scripts/bench/event-log.sh [build-dir] [n]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
n=${2:-30}
T=$(mktemp -d)
[ -n "${BENCH_KEEP:-}" ] && echo "fixture kept in $T" || trap 'rm -rf "$T"' EXIT
mkdir -p "$T/empty/specs" "$T/long/specs" "$T/long/home/runs/2026-08"

python3 - "$T/long" <<'PY'
import json, sys, uuid
base = sys.argv[1]
specs, home = base + "/specs", base + "/home"
run = "bench-long-0001"
common = {"workflow": "cm-qa", "runtime": "codex", "project": "bench"}
def row(i, event, phase=None, **data):
    r = {"schema_version": 1, "run_id": run, "at": "2026-08-06T10:00:00+00:00", **common,
         "event": event, "detail": f"bench event {i}"}
    r = {k: r[k] for k in ("schema_version", "run_id", "at", "workflow", "event", "runtime", "project", "detail")}
    if phase: r["phase"] = phase
    r["specs_path"] = specs
    r.update(data)
    hashed = {k: v for k, v in r.items() if k != "at"}
    canonical = json.dumps(hashed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    r["event_id"] = str(uuid.uuid5(uuid.NAMESPACE_URL, canonical))
    return json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n"
lines = [row(0, "run_start", "start")]
i = 1
resource = test = 0
while len(lines) < 1 + 20 * 4999:  # whole cycles, then progress rows up to 100,000
    k = (len(lines) - 1) % 20  # row 0 is run_start
    if k < 10:  # five resources a cycle, acquired then released
        rid = f"vm-{resource + k // 2}"
        if k % 2 == 0:
            lines.append(row(i, "resource", "acquired", resource_id=rid, resource_kind="vm", cleanup_required=True))
        else:
            lines.append(row(i, "resource", "released", resource_id=rid, resource_kind="vm"))
    elif k == 10:
        lines.append(row(i, "test_run", "start"))
    elif k in (11, 13, 15, 17):
        lines.append(row(i, "test_run", "case_start", case_id=f"C-{k}"))
    elif k in (12, 14, 16, 18):
        lines.append(row(i, "test_run", "case_complete", case_id=f"C-{k - 1}"))
    else:
        lines.append(row(i, "test_run", "complete"))
    if k == 19:
        resource += 5
    i += 1
while len(lines) < 100_000:
    lines.append(row(i, "progress", "execute"))
    i += 1
text = "".join(lines)
open(specs + "/运行日志.jsonl", "w", encoding="utf-8").write(text)
open(home + "/runs/2026-08/" + run + ".jsonl", "w", encoding="utf-8").write(text)
index = {"schema_version": 1, "at": "2026-08-06T10:00:00+00:00", "run_id": run, "status": "running", **common,
         "project_path": None, "specs_path": specs, "log_file": "runs/2026-08/" + run + ".jsonl"}
open(home + "/index.jsonl", "w", encoding="utf-8").write(json.dumps(index, separators=(",", ":")) + "\n")
PY
chmod 700 "$T/long/home" "$T/long/home/runs" "$T/long/home/runs/2026-08"

now() { date +%s%N; }
# write <fixture> <run id> <detail>: one run_done; prints its wall time in microseconds.
write() {
  local t
  t=$(now)
  CM_WORKFLOW_LOG_HOME="$T/$1/home" "$build/strata" usage log --workflow cm-qa --event run_done --runtime codex \
    --project bench --specs-dir "$T/$1/specs" --run-id "$2" --at 2026-08-06T11:00:00+00:00 --detail "$3" >"$T/out" \
    || { cat "$T/out"; exit 1; }
  echo $((($(now) - t) / 1000))
}
stats() {  # stats <label> <microseconds...>
  local label=$1
  shift
  printf '%s\n' "$@" | sort -n | awk -v label="$label" '{ v[NR] = $1 } END {
    printf "%-34s median %6.1f ms   p90 %6.1f ms   max %6.1f ms   (n=%d)\n", label, v[int((NR + 1) / 2)] / 1000, v[int(NR * 0.9 + 0.5)] / 1000, v[NR] / 1000, NR }'
}

lines=$(wc -l <"$T/long/specs/运行日志.jsonl")
bytes=$(stat -c %s "$T/long/specs/运行日志.jsonl")
echo "long log: $lines events, $((bytes / 1024 / 1024)) MiB (project log and mirror file alike)"
first=$(write long bench-long-0001 "first write")
printf '%-34s %6.1f ms\n' "first write on the long log" "$(awk -v u="$first" 'BEGIN { print u / 1000 }')"
empty=() long=()
for i in $(seq "$n"); do  # alternating, so both see the same machine load
  empty+=("$(write empty bench-empty-0001 "sample $i")")
  long+=("$(write long bench-long-0001 "sample $i")")
done
stats "run_done, empty project log" "${empty[@]}"
stats "run_done, 100,000-event project log" "${long[@]}"
ls -la "$T/long/specs" | awk '/strata-index/ { printf "state index beside the project log: %d KiB\n", $5 / 1024 }'
