#!/usr/bin/env bash
# Trajectory benchmark (issue 45): what keeping trajectories costs, side by side in one run.
#  (a) The adapter on the captured streams (tests/unit/streams/, each agent's real stream): N runs
#      of `strata provider <agent>` around an agent that replays the stream, without a trajectory,
#      with the channel of --keep-trajectories, and with --trajectory FILE, alternating run by run.
#      The adapter's own cost is the CPU time of its process (not the agent's); the trajectory's
#      is what it adds to it.
#  (b) A 100 MiB event stream (the fake agent's `huge` scenario) read by `strata provider claude`
#      with and without --trajectory: the normaliser's cost on a stream far past its 4 MiB bound.
#  (c) `strata run` of the example study (16 executions, --jobs 4) with a provider that writes a
#      trajectory, with and without --keep-trajectories: the channel, the read, the check and the
#      durable write per execution.
# Usage: scripts/bench/trajectories.sh [build-dir=build] [runs=100]
#   ROUNDS=n (default 3) rounds of (b) and (c), the commands alternating; medians are reported.
#   (a) needs perf (linux-perf): CPU time, not wall time, since a few hundred microseconds are
#   lost in the wall time's noise of process starts on a busy machine.
set -euo pipefail
cd "$(dirname "$0")/../.."  # repo root
build=${1:-build}
runs=${2:-100}
rounds=${ROUNDS:-3}
[ -x "$build/strata" ] || { echo "strata binary not found: $build/strata (build it first)" >&2; exit 1; }
command -v perf >/dev/null || { echo "missing tool: perf (apt-get install linux-perf)" >&2; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/strata-trajectories-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
cp "$build/strata" "$T/strata"  # a rebuild during the benchmark cannot swap the binary
strata=$T/strata
log() { echo "[bench] $*" >&2; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
seconds_since() { awk -v s="$1" -v e="$(date +%s%N)" 'BEGIN { printf "%.3f\n", (e - s) / 1e9 }'; }

declare -A stream=([claude]=claude-2.1.328-foreground-subagent.jsonl [codex]=codex-0.169.0-command.jsonl
                   [gemini]=gemini-0.61.0-subagent.jsonl [opencode]=opencode-1.18.33-subagent.jsonl)
agents=(claude codex gemini opencode)
for agent in "${agents[@]}"; do  # an agent that replays its captured stream as fast as the pipe takes it
  printf '#!/bin/sh\ncat >/dev/null\nexec cat "%s"\n' "$(realpath "tests/unit/streams/${stream[$agent]}")" >"$T/replay-$agent"
  chmod +x "$T/replay-$agent"
done
echo '{"protocol":"doc-bridge.study-provider.v1","task":{"taskId":"t"},"objective":"o"}' >"$T/request.json"

cpu() {  # cpu <name> <command...>: the CPU ms of the strata process itself (perf stat -i: not its agent), appended to $T/<name>
  local name=$1
  shift
  perf stat -x, -i -e task-clock -o "$T/perf" "$@" <"$T/request.json" >/dev/null 2>&1 || true
  grep task-clock "$T/perf" | cut -d, -f1 >>"$T/$name"
}
log "(a) $runs executions per variant on the captured streams, the variants alternating run by run"
for _ in $(seq "$runs"); do
  for agent in "${agents[@]}"; do
    cpu "a-without-$agent" env "$strata" provider "$agent" --agent-command "$T/replay-$agent"
    cpu "a-with-$agent" env STRATA_TRAJECTORY_FILE="$T/t-$agent.json" "$strata" provider "$agent" --agent-command "$T/replay-$agent"
    cpu "a-file-$agent" env "$strata" provider "$agent" --agent-command "$T/replay-$agent" --trajectory "$T/f-$agent.json"
  done
done
for agent in "${agents[@]}"; do
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); assert len(t["steps"]) > 1' "$T/t-$agent.json" ||
    { echo "no trajectory from $agent" >&2; exit 1; }
done

log "(b) a 100 MiB stream, $rounds rounds"
FAKE_AGENT_SCENARIO=huge FAKE_AGENT_HUGE_MB=100 python3 tests/support/fake_agent.py --as-claude -p --output-format stream-json \
  --verbose --json-schema '{}' </dev/null >"$T/huge.jsonl" 2>/dev/null
printf '#!/bin/sh\ncat >/dev/null\nexec cat "%s"\n' "$T/huge.jsonl" >"$T/replay-huge"
chmod +x "$T/replay-huge"
measure() {  # measure <name> <command...>: "seconds kib" of one run appended to $T/<name>
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$T/time" "$@" <"$T/request.json" >/dev/null 2>&1 || true
  cat "$T/time" >>"$T/$name"
}
for round in $(seq "$rounds"); do
  measure b-without "$strata" provider claude --agent-command "$T/replay-huge"
  measure b-with "$strata" provider claude --agent-command "$T/replay-huge" --trajectory "$T/t-huge.json"
done
huge_kept=$(stat -c %s "$T/t-huge.json")

log "(c) strata run, 16 executions, $rounds rounds"
examples=$(realpath examples/study)
cat >"$T/provider" <<SH
#!/usr/bin/env bash
response=\$("$(realpath "$build/strata-example-provider")" "\$@")
[ -n "\${STRATA_TRAJECTORY_FILE:-}" ] && cp "$T/t-claude.json" "\$STRATA_TRAJECTORY_FILE"
printf '%s\n' "\$response"
SH
chmod +x "$T/provider"
python3 - "$examples" "$T" <<'PY'
import json, sys
examples, t = sys.argv[1:3]
config = json.load(open(f"{examples}/provider-config.payload.json"))
for p in config["providers"]: p["command"] = f"{t}/provider"
json.dump(config, open(f"{t}/providers.payload.json", "w"))
repos = json.load(open(f"{examples}/repository-config.payload.json"))
for r in repos["repositories"]: r["root"] = f"{examples}/repository"
json.dump(repos, open(f"{t}/repos.payload.json", "w"))
PY
"$strata" seal provider-config "$T/providers.payload.json" -o "$T/providers.json" >/dev/null
"$strata" seal repository-config "$T/repos.payload.json" -o "$T/repos.json" >/dev/null
"$strata" seal task-suite "$examples/task-suite.payload.json" -o "$T/suite.json" >/dev/null
"$strata" seal run-plan "$examples/run-plan.payload.json" -o "$T/plan.json" >/dev/null
study() {  # study <name> [run args]: wall seconds of one run of the study into a fresh ledger
  local name=$1 start
  shift
  rm -rf "$T/ledger"* "$T/kept"
  start=$(date +%s%N)
  "$strata" run "$T/plan.json" "$T/suite.json" --providers "$T/providers.json" --repositories "$T/repos.json" \
    --ledger "$T/ledger.json" --jobs 4 "$@" >/dev/null 2>&1
  seconds_since "$start" >>"$T/$name"
}
for round in $(seq "$rounds"); do
  study c-without
  study c-with --keep-trajectories "$T/kept"
done
[ "$(ls "$T/kept" | wc -l)" = 16 ] || { echo "(c) kept $(ls "$T/kept" | wc -l) trajectories, not 16" >&2; exit 1; }

echo
echo "(a) the adapter's own CPU per execution on the captured streams (median of $runs, ms; perf stat -i: the strata process,"
echo "    not the agent it runs): alone, with the channel of --keep-trajectories (STRATA_TRAJECTORY_FILE, no fsync), with --trajectory FILE"
printf '%-9s %9s %9s %9s %15s %12s\n' agent "adapter" "channel" "FILE" "channel share" "FILE share"
for agent in "${agents[@]}"; do
  w=$(median $(cat "$T/a-without-$agent")) t=$(median $(cat "$T/a-with-$agent")) f=$(median $(cat "$T/a-file-$agent"))
  awk -v w="$w" -v t="$t" -v f="$f" -v name="$agent" 'BEGIN {
    printf "%-9s %9.2f %9.2f %9.2f %14.1f%% %11.1f%%\n", name, w, t, f, (t - w) / w * 100, (f - w) / w * 100 }'
done
echo
echo "(b) a 100 MiB Claude Code stream (median of $rounds; wall s / peak RSS MiB); the trajectory kept: $huge_kept bytes"
col() { median $(awk -v f="$2" '{ print $f }' "$T/$1"); }
printf 'without --trajectory %8s / %6.1f\nwith --trajectory    %8s / %6.1f\n' "$(col b-without 1)" "$(awk -v k="$(col b-without 2)" 'BEGIN{print k/1024}')" \
  "$(col b-with 1)" "$(awk -v k="$(col b-with 2)" 'BEGIN{print k/1024}')"
echo
echo "(c) strata run of 16 executions, --jobs 4 (median of $rounds; wall s)"
w=$(median $(cat "$T/c-without")) k=$(median $(cat "$T/c-with"))
awk -v w="$w" -v k="$k" 'BEGIN { printf "without %.3f, with --keep-trajectories %.3f: %+.2f ms per execution\n", w, k, (k - w) * 1000 / 16 }'
