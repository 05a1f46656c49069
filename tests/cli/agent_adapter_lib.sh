# Shared by the agent adapter tests (provider_codex_test.sh, provider_claude_test.sh): the fake
# agent on PATH as $FLAVOUR, a provider request with sentinels, and helpers that run
# `strata provider $FLAVOUR` on it. Source after lib.sh with FLAVOUR set.
FAKE=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../support/fake_agent.py")
mkdir -p "$WORK/bin" "$WORK/repo" "$WORK/tmp" "$WORK/record"
ln -s "$FAKE" "$WORK/bin/$FLAVOUR"
export PATH="$WORK/bin:$PATH" TMPDIR="$WORK/tmp"
python3 - "$WORK/request.json" <<'PY'
import json, sys
request = {"protocol": "doc-bridge.study-provider.v1", "response": "Return one JSON object matching the output schema.",
           "task": {"taskId": "consumer-01-discovery", "repositoryId": "consumer-01", "category": "discovery",
                    "scenarioId": "repository-only", "modelId": "reference-model", "replicate": 0, "variantId": "variant-a",
                    "difficulty": "easy"},
           "objective": "SENTINEL-OBJECTIVE find where the program starts",
           "initialContext": "The repository is a small C++ program.",
           "expectedOutcome": "SENTINEL-OUTCOME the entry point file",
           "evidenceRequirements": [{"id": "entrypoint-evidence", "description": "the file and line", "source": "repository"}],
           "acceptanceChecks": [{"id": "check-1", "command": "test -f src/main.cpp", "expected": "exit 0"}],
           "allowedTools": ["read", "search"], "forbiddenActions": ["network", "write"]}
open(sys.argv[1], "w").write(json.dumps(request, separators=(",", ":")))
PY
# provider <scenario> [strata provider $FLAVOUR args...]: runs it in $WORK/repo with the request on stdin
provider() {
  local scenario=$1
  shift
  (cd "$WORK/repo" && FAKE_AGENT_SCENARIO=$scenario FAKE_AGENT_RECORD="$WORK/record" \
    "$STRATA" provider $ADAPTER --model test-model "$@" <"${REQUEST:-$WORK/request.json}" >"$WORK/stdout" 2>"$WORK/stderr")
  CODE=$?
  OUT=$(cat "$WORK/stdout")
  ERR=$(cat "$WORK/stderr")
}
ADAPTER=$FLAVOUR
# refused <scenario> <stderr fragment> [args...]: exit 1, nothing on stdout, one line saying why
refused() {
  local scenario=$1 fragment=$2
  shift 2
  provider "$scenario" "$@"
  expect_code 1 "$scenario: exit 1"
  expect_out_empty "$scenario: nothing on stdout"
  expect_err_lines 1 "$scenario: one line on stderr"
  expect_err_has "$fragment" "$scenario: says why"
}
# the stream the fake writes for a scenario, as the adapter would have read it
fake_stream() {  # fake_stream <scenario> <out> [agent args...]
  local scenario=$1 out=$2
  shift 2
  (cd "$WORK/repo" && FAKE_AGENT_SCENARIO=$scenario "$WORK/bin/$FLAVOUR" "$@" <"$WORK/request.json" >"$out" 2>/dev/null)
}
alive() {  # alive <pid>: running, not a zombie waiting to be reaped
  local state
  state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}
gone_within() {  # gone_within <pid> <seconds>: a SIGKILLed process is gone once the kernel runs it
  local tries=$(($2 * 20))
  while alive "$1"; do
    tries=$((tries - 1))
    [ "$tries" -gt 0 ] || return 1
    sleep 0.05
  done
}
# the bounds every adapter keeps: time, an agent that ignores SIGTERM and leaves a grandchild,
# 100 MB of events read as they arrive, the stream limit, one line too long
check_bounds() {
  refused hang "the agent did not finish within 1500 ms and was stopped" --timeout-ms 1500 --kill-grace-ms 300
  rm -f "$WORK/record/grandchild.pid"
  refused ignore-term "the agent did not finish within 1500 ms and was stopped" --timeout-ms 1500 --kill-grace-ms 300
  local grandchild
  grandchild=$(cat "$WORK/record/grandchild.pid" 2>/dev/null || echo none)
  expect_true "[ '$grandchild' != none ] && gone_within '$grandchild' 30" "the grandchild that ignored SIGTERM was killed with the group"
  # 100 MB in the release stage; under the sanitizers 25 MB shows the same streaming at a quarter
  # of the CPU (the fake writes and the instrumented reader parses every byte).
  local huge_mb=100
  sanitized_build "$STRATA" && huge_mb=25
  FAKE_AGENT_HUGE_MB=$huge_mb provider huge
  expect_code 0 "$huge_mb MB of events, read as they arrive"
  expect_true "python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r[\"taskOutcome\"] != \"success\" or r[\"toolCalls\"] < 1)' '$WORK/stdout'" \
    "the answer after $huge_mb MB of events"
  FAKE_AGENT_HUGE_MB=20 refused huge "the agent's event stream passed 10000000 bytes and the agent was stopped" --stream-limit 10000000
  printf '#!/usr/bin/env bash\ncat >/dev/null\nhead -c 20000000 /dev/zero | tr "\\\\0" "{"\necho\n' >"$WORK/one-long-line"
  chmod +x "$WORK/one-long-line"
  refused normal "line 1 of the event stream is longer than Strata reads" --agent-command "$WORK/one-long-line"
}
