#!/usr/bin/env bash
# Trajectory benchmark (issue 45): what keeping trajectories costs, side by side in one run.
#  (a) The adapter on the captured streams (tests/unit/streams/, each agent's real stream): N runs
#      of `strata provider <agent>` around an agent that replays the stream, with and without
#      --trajectory, beside the replaying agent alone. The adapter's own overhead is (adapter -
#      agent alone); the trajectory's is (with - without), as a share of it.
#  (b) A 100 MiB event stream (the fake agent's `huge` scenario) read by `strata provider claude`
#      with and without --trajectory: the normaliser's cost on a stream far past its 4 MiB bound.
#  (c) `strata run` of the example study (16 executions, --jobs 4) with a provider that writes a
#      trajectory, with and without --keep-trajectories: the channel, the read, the check and the
#      durable write per execution.
# Usage: scripts/bench/trajectories.sh [build-dir=build] [runs=100]
#   ROUNDS=n (default 3) rounds, the commands alternating; medians are reported.
set -euo pipefail
cd "$(dirname "$0")/../.."  # repo root
build=${1:-build}
runs=${2:-100}
rounds=${ROUNDS:-3}
[ -x "$build/strata" ] || { echo "strata binary not found: $build/strata (build it first)" >&2; exit 1; }

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

loop() {  # loop <name> <command...>: wall seconds of $runs runs, appended to $T/<name> (exit status ignored:
  local name=$1 start   # a captured stream's answer need not fit this request)
  shift
  start=$(date +%s%N)
  for _ in $(seq "$runs"); do "$@" <"$T/request.json" >/dev/null 2>&1 || true; done
  seconds_since "$start" >>"$T/$name"
}
log "(a) $runs executions per command on the captured streams, $rounds rounds"
for round in $(seq "$rounds"); do
  for agent in "${agents[@]}"; do
    loop "a-agent-$agent" "$T/replay-$agent"
    loop "a-without-$agent" "$strata" provider "$agent" --agent-command "$T/replay-$agent"
    loop "a-with-$agent" "$strata" provider "$agent" --agent-command "$T/replay-$agent" --trajectory "$T/t-$agent.json"
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
echo "(a) $runs executions of a replaying agent (median of $rounds; ms per execution)"
printf '%-9s %12s %16s %16s %18s %16s\n' agent "agent alone" "adapter" "adapter+traj." "adapter overhead" "trajectory share"
for agent in "${agents[@]}"; do
  a=$(median $(cat "$T/a-agent-$agent")) w=$(median $(cat "$T/a-without-$agent")) t=$(median $(cat "$T/a-with-$agent"))
  awk -v a="$a" -v w="$w" -v t="$t" -v n="$runs" -v name="$agent" 'BEGIN {
    printf "%-9s %12.2f %16.2f %16.2f %18.2f %15.1f%%\n", name, a * 1000 / n, w * 1000 / n, t * 1000 / n, (w - a) * 1000 / n, (t - w) / (w - a) * 100 }'
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
