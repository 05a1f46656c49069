#!/usr/bin/env bash
# Agent adapter benchmark (issue 16): what `strata provider codex|claude` costs on top of the agent.
#  (a) Reading a large event stream: a replaying agent writes a 100 MiB stream (the fake agent's
#      `huge` scenario, generated once); `strata provider codex` and `strata provider claude` read
#      it as it arrives, beside `cat` of the same file (the pipe floor) and a buffering reader in
#      Node (scripts/bench/buffered-reader.mjs: all of stdout kept, then split and parsed, as a
#      simple adapter does). Wall time and peak RSS.
#  (b) Overhead per execution: N runs of the adapter around a replaying agent that writes the
#      normal stream, against N runs of that agent alone.
#  (c) With the real agent CLIs (issue 25): `scripts/bench/agents.sh --real [build-dir] [runs]` runs
#      scripts/bench/agents-real.sh: the adapter's overhead per execution over each real agent
#      against the scripted model server, side by side with the agent run bare.
# Usage: scripts/bench/agents.sh [build-dir=build] [stream-MiB=100] [runs=100]
#   ROUNDS=n (default 3) rounds, the commands alternating; medians are reported.
set -euo pipefail
if [ "${1:-}" = --real ]; then shift; exec bash "$(dirname "$0")/agents-real.sh" "$@"; fi

cd "$(dirname "$0")/../.."  # repo root
build=${1:-build}
mib_size=${2:-100}
runs=${3:-100}
rounds=${ROUNDS:-3}
[ -x "$build/strata" ] || { echo "strata binary not found: $build/strata (build it first)" >&2; exit 1; }
for tool in node python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/strata-agents-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
cp "$build/strata" "$T/strata"  # a rebuild during the benchmark cannot swap the binary
strata=$T/strata
fake=$(realpath tests/support/fake_agent.py)
reader=$(realpath scripts/bench/buffered-reader.mjs)

log() { echo "[bench] $*" >&2; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

log "generating the streams ($mib_size MiB each) ..."
for agent in codex claude; do
  args=(exec --json -); [ $agent = claude ] && args=(-p --output-format stream-json --verbose --json-schema '{}')
  FAKE_AGENT_SCENARIO=huge FAKE_AGENT_HUGE_MB=$mib_size python3 "$fake" --as-$agent "${args[@]}" </dev/null >"$T/$agent-huge.jsonl" 2>/dev/null
  FAKE_AGENT_SCENARIO=normal python3 "$fake" --as-$agent "${args[@]}" </dev/null >"$T/$agent-normal.jsonl" 2>/dev/null
  for kind in huge normal; do  # an agent that replays the stream, as fast as the pipe takes it
    printf '#!/bin/sh\ncat >/dev/null\nexec cat "%s"\n' "$T/$agent-$kind.jsonl" >"$T/replay-$agent-$kind"
    chmod +x "$T/replay-$agent-$kind"
  done
done
echo '{"protocol":"doc-bridge.study-provider.v1","task":{"taskId":"t"},"objective":"o"}' >"$T/request.json"

measure() {  # measure <name> <command...>: appends "seconds kib" of one run to $T/<name>
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$T/time" "$@" <"$T/request.json" >"$T/out" 2>/dev/null || { echo "$name failed" >&2; exit 1; }
  cat "$T/time" >>"$T/$name"
}

log "(a) $mib_size MiB streams, $rounds rounds"
for round in $(seq "$rounds"); do
  for agent in codex claude; do
    measure "a-cat-$agent" cat "$T/$agent-huge.jsonl"
    measure "a-node-$agent" sh -c "node '$reader' <'$T/$agent-huge.jsonl'"
    measure "a-strata-$agent" "$strata" provider "$agent" --agent-command "$T/replay-$agent-huge"
    grep -q '"taskOutcome"' "$T/out" || { echo "strata provider $agent gave no answer" >&2; exit 1; }
  done
done

log "(b) $runs executions per command, $rounds rounds"
loop() {  # loop <name> <command...>: wall seconds of $runs runs, appended to $T/<name>
  local name=$1 start end
  shift
  start=$(date +%s%N)
  for _ in $(seq "$runs"); do "$@" <"$T/request.json" >/dev/null 2>&1 || { echo "$name failed" >&2; exit 1; }; done
  end=$(date +%s%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", (e - s) / 1e9 }' >>"$T/$name"
}
for round in $(seq "$rounds"); do
  for agent in codex claude; do
    loop "b-agent-$agent" "$T/replay-$agent-normal"
    loop "b-strata-$agent" "$strata" provider "$agent" --agent-command "$T/replay-$agent-normal"
  done
done

echo
echo "(a) reading a $mib_size MiB event stream (median of $rounds; wall s / peak RSS MiB)"
printf '%-8s %18s %22s %22s %12s\n' agent "cat (pipe floor)" "node, buffered" "strata provider" "strata/node"
for agent in codex claude; do
  col() { median $(awk -v f="$2" '{ print $f }' "$T/$1-$agent"); }
  s_cat=$(col a-cat 1) s_node=$(col a-node 1) s_strata=$(col a-strata 1)
  m_node=$(col a-node 2) m_strata=$(col a-strata 2) m_cat=$(col a-cat 2)
  printf '%-8s %9s / %5.1f %12s / %6.1f %12s / %6.1f %12s\n' "$agent" "$s_cat" "$(awk -v k="$m_cat" 'BEGIN{print k/1024}')" \
    "$s_node" "$(awk -v k="$m_node" 'BEGIN{print k/1024}')" "$s_strata" "$(awk -v k="$m_strata" 'BEGIN{print k/1024}')" \
    "$(ratio "$s_strata" "$s_node")"
done
echo
echo "(b) $runs executions of a replaying agent with the normal stream (median of $rounds; s for all $runs)"
printf '%-8s %12s %18s %22s\n' agent "agent alone" "strata provider" "overhead ms/execution"
for agent in codex claude; do
  a=$(median $(cat "$T/b-agent-$agent")) s=$(median $(cat "$T/b-strata-$agent"))
  printf '%-8s %12s %18s %22s\n' "$agent" "$a" "$s" "$(awk -v a="$a" -v s="$s" -v n="$runs" 'BEGIN { printf "%.2f", (s - a) * 1000 / n }')"
done
