#!/usr/bin/env bash
# Exhaustion (issue "Reliability and security", item 4; `ulimit -n 64` with --jobs 100 is in
# run_faults_test.sh):
# 1. Providers that fork 500 children each (four executions at once: 2,000 children), holding
#    stdout or not, then hanging, ignoring SIGTERM, answering, or leaving a background forker
#    behind: each run ends within the attempt deadline plus the kill grace (and slack), records
#    the right status, and no child survives it.
# 2. A loopback HTTP listener that accepts every connection and never answers: two endpoint
#    studies of 512 executions at once (--jobs 512, maxConcurrency 1024) hold 1,024 connections
#    open; every execution ends as timed-out (errorCode timeout) within budget.maxRuntimeMs plus
#    slack, and the runs exit 0. Then an endpoint adjudication of those 1,024 observations at
#    --jobs 1024 (one process, 1,024 connections): every judgement times out and is recorded as
#    pending, with a message. Every strata call runs under `timeout`: if that fires, it is a hang.
#    These phases have no wall-clock bound of their own (one of deadline + 15 s failed under
#    ASan on a busy CI machine: 21 s for the adjudication): that the calls ran side by side is
#    shown by the listener (at least 1,000 connections open at once, or accepted), and HANG_S
#    bounds them causally too: 1,024 calls that each stay open for their 10 s deadline cannot
#    end within 120 s unless at least 26 were open at once on average.
# Timing: the checks hold on a loaded machine (2 busy cores) too. Lower bounds are causal (a
# timed-out attempt cannot end before its deadline); a recorded durationMs is bounded by the wall
# time of the run that recorded it (causal) and by its deadline plus slack (generous); deadlines
# are far above what the work needs even on a loaded machine; waits are bounded polls, not sleeps.
# Usage: exhaustion_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
CODE=0            # for fail() of lib.sh, before the first `run`
# Attempts of the providers that hang (budget.maxRuntimeMs): each of the four must have forked
# all 500 children before this deadline strikes ("forked 500" is checked). Four at once took
# 3.5-9 s on two busy cores (stress-ng --cpu 2 and a compiler), so the former 2,000 failed there
# (SIGTERM cut the forking short). These runs last the whole deadline: 30 s is about three times
# the slowest forking seen, no more.
DEADLINE_MS=30000
# Attempts of the providers that answer: a deadline forking 500 children cannot reach on any
# machine this runs on, so `completed` (not `timed-out`) proves the run ended the attempt when
# the provider answered, not when the budget ran out. These runs end when the provider answers.
ANSWER_DEADLINE_MS=60000
GRACE_MS=300      # --kill-grace-ms
CALL_MS=10000     # endpoint calls and judgements: long enough that 1,024 connections opened under ASan on a busy machine all overlap (3 s saw 854)
# On top of a deadline for a whole run: start-up, 1,000 connections or 2,000 processes to reap.
# Generous (it was 6,000, of which up to 2 s were used with stress-ng on both cores, more with
# other tests beside): it catches a run that waits for what it should have killed (such a run
# waits until HANG_S), not a slow machine.
SLACK_MS=15000
SURVIVOR_WAIT_S=30  # how long the killed children of a run may take to die (a bounded poll)
HANG_S=120        # `timeout` for any strata call

# ms_since <start ns>
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
# strata under `timeout` (exit 124 when it fires).
TIMED_STRATA=$WORK/timed-strata
printf '#!/bin/sh\nexec timeout -k 5 %s %s "$@"\n' "$HANG_S" "$STRATA" >"$TIMED_STRATA"
chmod +x "$TIMED_STRATA"

# --- 1. providers forking 500 children -------------------------------------------------------------
# forker <children> <hold|detach> <hang|ignore-term|answer|background> <log>: forks that many
# children that sleep forever (holding the provider's stdout, or with stdio on /dev/null), logs
# "<pid> forked <n>", then hangs, hangs ignoring SIGTERM (the children inherit that), answers {}
# and exits 0, or (background) answers at once while a child of it does the forking. Its children
# are copies of it, so `pgrep -f $WORK/bin/forker` finds every one.
mkdir -p "$WORK/bin"
cat >"$WORK/forker.c" <<'C'
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void fork_children(int count, int detach, const char* log) {
  int forked = 0;
  for (; forked < count; forked++) {
    pid_t pid = fork();
    if (pid < 0) break;
    if (pid == 0) {
      if (detach) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0), dup2(null, 1), dup2(null, 2);
      }
      for (;;) pause();
    }
  }
  char line[64];
  int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644), n = snprintf(line, sizeof line, "%d forked %d\n", getpid(), forked);
  if (fd >= 0 && write(fd, line, n) != n) _exit(3);
}
int main(int argc, char** argv) {
  if (argc < 5) return 2;
  const int count = atoi(argv[1]), detach = strcmp(argv[2], "detach") == 0;
  const char* then = argv[3];
  char request[4096];
  while (read(0, request, sizeof request) > 0) {
  }
  if (strcmp(then, "background") == 0) {
    if (fork() == 0) {
      fork_children(count, detach, argv[4]);
      for (;;) pause();
    }
    puts("{}");
    return 0;
  }
  if (strcmp(then, "ignore-term") == 0) signal(SIGTERM, SIG_IGN);
  fork_children(count, detach, argv[4]);
  if (strcmp(then, "answer") == 0) {
    puts("{}");
    return 0;
  }
  for (;;) pause();
}
C
cc -O2 -o "$WORK/bin/forker" "$WORK/forker.c" || { echo "FAIL: cannot compile the forker" >&2; exit 1; }

fixture_repositories  # the fixture suite's six repositories

# survivors: live (non-zombie) forker processes. One ps for all (one per pid took seconds for
# 2,000 of them on a loaded machine).
survivors() {
  ps -eo pid=,stat=,args= | awk -v forker="$WORK/bin/forker" '$3 == forker && $2 !~ /^Z/ { print $1 }'
}
kill_survivors() { local pid; for pid in $(survivors); do kill -KILL "$pid" 2>/dev/null; done; }
trap 'kill_survivors; [ -n "${LISTENER_PID:-}" ] && kill "$LISTENER_PID" 2>/dev/null; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT

# forks <name> <hold|detach> <then> <deadline ms> <expected execution fields as JSON>
#   <how many "forked 500" lines>
forks() {
  local name=$1 hold=$2 then=$3 deadline=$4 expected=$5 logged=$6 start elapsed left waited
  python3 - "$WORK" "$FIX" "$name" "$hold" "$then" "$deadline" <<'PY'
import json, sys
work, fix, name, hold, then, deadline = sys.argv[1:7]
plan = json.load(open(f"{fix}/run-plan-v1.json"))
for k in ("contentHash", "contentHashAlgo"):
    plan.pop(k)
# one task x 2 models x 2 scenarios: 4 executions
plan["sampling"] = {"strategy": "pairwise-task-strata", "sampleSize": 4,
                    "scenarioIds": ["repository-only", "deterministic-doc-bridge"]}
plan["budget"] = {"maxTokens": 400000, "maxRuntimeMs": int(deadline), "maxOutputBytes": 256000, "maxAttempts": 1}
plan["runId"] = f"forks-{name}"
json.dump(plan, open(f"{work}/{name}.plan.payload.json", "w"))
json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1",
           "providers": [{"modelId": m, "scenarioIds": [s], "command": f"{work}/bin/forker",
                          "args": ["500", hold, then, f"{work}/{name}.forked"], "providerNetwork": False,
                          "maxInputBytes": 1000000, "maxOutputBytes": 10000}
                         for m in ["low-cost-model", "reference-model"]
                         for s in ["repository-only", "deterministic-doc-bridge", "registry-assisted"]]},
          open(f"{work}/{name}.providers.payload.json", "w"))
PY
  "$STRATA" seal run-plan "$WORK/$name.plan.payload.json" -o "$WORK/$name.plan.json" >/dev/null
  "$STRATA" seal provider-config "$WORK/$name.providers.payload.json" -o "$WORK/$name.providers.json" >/dev/null
  start=$(date +%s%N)
  STRATA=$TIMED_STRATA run run "$WORK/$name.plan.json" "$FIX/task-suite-v1.json" \
    --providers "$WORK/$name.providers.json" --repositories "$WORK/repos.json" --ledger "$WORK/$name.ledger.json" \
    --jobs 4 --kill-grace-ms "$GRACE_MS" --json
  elapsed=$(ms_since "$start")
  expect_true "[ $CODE != 124 ]" "$name: strata hung (timeout ${HANG_S} s fired)"
  expect_code 0 "$name: the run exits 0"
  expect_err_empty "$name: nothing on stderr"
  expect_true "[ $elapsed -lt $((deadline + GRACE_MS + SLACK_MS)) ]" \
    "$name: the run took $elapsed ms (deadline $deadline + grace $GRACE_MS + slack $SLACK_MS)"
  expect_true "python3 -c '
import json
s = json.load(open(\"$WORK/stdout\"))[\"summary\"]
assert (s[\"status\"], s[\"planned\"], s[\"executed\"]) == (\"completed\", 4, 4), s
'" "$name: summary completed 4/4"
  # durationMs: within the expected bounds, and (causally) no longer than the run that recorded it.
  expect_true "python3 - '$WORK/$name.ledger.json' '$expected' '$elapsed' <<'PY'
import json, sys
expected = json.loads(sys.argv[2])
low, high = expected.pop(\"durationMs\")
high = min(high, int(sys.argv[3]))
observations = json.load(open(sys.argv[1]))[\"observations\"]
assert len(observations) == 4, len(observations)
for o in observations:
    e = o[\"execution\"]
    duration = e[\"durationMs\"]
    assert low <= duration <= high, f\"durationMs {duration} outside [{low}, {high}]\"
    for k, want in expected.items():
        got = e.get(k, \"<absent>\")
        assert got == want, f\"execution.{k} = {got!r}, expected {want!r} in {e}\"
PY" "$name: observations"
  run verify --text "$WORK/$name.ledger.json"
  expect_code 0 "$name: strata verify"
  # Each provider that got to fork says how many children it made (none is killed mid-loop
  # except the background forker's, which the group kill may cut short).
  touch "$WORK/$name.forked"
  expect_true "[ \"\$(grep -c ' forked 500\$' '$WORK/$name.forked')\" -ge $logged ]" \
    "$name: $logged provider(s) forked all 500 children ($(tr '\n' ';' <"$WORK/$name.forked"))"
  # A killed child is gone when the kernel next runs it, which on a loaded machine is a while
  # after the group kill (it was a fixed 0.3 s): wait until none is left, at most
  # SURVIVOR_WAIT_S. A child that was not killed sleeps forever, so it is still there then.
  start=$(date +%s%N)
  while left=$(survivors) && [ -n "$left" ] && [ "$(ms_since "$start")" -lt $((SURVIVOR_WAIT_S * 1000)) ]; do
    sleep 0.05
  done
  waited=$(ms_since "$start")
  checks=$((checks + 1))
  if [ -n "$left" ]; then
    failures=$((failures + 1))
    echo "FAIL: $name: $(echo $left | wc -w) child process(es) survived the run (still alive after ${SURVIVOR_WAIT_S} s)" >&2
    kill_survivors
  fi
  echo "$name: ${elapsed} ms; children gone ${waited} ms after; $(tr '\n' ' ' <"$WORK/$name.forked")"
}

# A timed-out attempt ends no earlier than its deadline (causal); its upper bound is generous, and
# the run's own wall time (see forks). A completed one ended before its deadline (the answering
# one, which forking cannot reach: with the old 2,000 ms deadline the bound was 1,999 ms, and
# forking made it 2,337 ms on a loaded machine).
TIMED_OUT="{\"status\": \"timed-out\", \"exitCode\": null, \"signal\": \"SIGTERM\", \"errorCode\": \"timeout\", \"durationMs\": [$((DEADLINE_MS - 50)), $((DEADLINE_MS + GRACE_MS + SLACK_MS))]}"
COMPLETED="{\"status\": \"completed\", \"exitCode\": 0, \"signal\": null, \"durationMs\": [0, $((ANSWER_DEADLINE_MS - 1))]}"
# 500 children holding stdout, the provider hangs: timed out, the whole group goes.
forks hold-hang hold hang "$DEADLINE_MS" "$TIMED_OUT" 4
# The same with SIGTERM ignored by all 501: SIGKILL after the grace.
forks hold-ignore-term hold ignore-term "$DEADLINE_MS" "$TIMED_OUT" 4
# 500 children holding stdout, the provider answers and exits: completed, the children go.
forks hold-answer hold answer "$ANSWER_DEADLINE_MS" "$COMPLETED" 4
# 500 children not holding any pipe: completed, and they still do not outlive the attempt.
forks detach-answer detach answer "$ANSWER_DEADLINE_MS" "$COMPLETED" 4
# The provider answers at once while a background child of it is still forking.
forks background hold background "$ANSWER_DEADLINE_MS" "$COMPLETED" 0

# --- 2. a listener that accepts and never answers -------------------------------------------------
HARD_FILES=$(ulimit -Hn)
[ "$HARD_FILES" = unlimited ] && HARD_FILES=1048576
cat >"$WORK/silent_listener.py" <<'PY'
# silent_listener.py <stats file>: accepts every connection on 127.0.0.1, reads what is sent and
# never answers. Prints its port; keeps {"accepted", "open", "max_open", "closed", "accept_errors"}
# in the stats file (rewritten every 50 ms).
import json, os, resource, selectors, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", 0))
server.listen(4096)
server.setblocking(False)
print(server.getsockname()[1], flush=True)
selector = selectors.DefaultSelector()
selector.register(server, selectors.EVENT_READ)
stats = {"accepted": 0, "open": 0, "max_open": 0, "closed": 0, "accept_errors": 0}
written = 0
while True:
    for key, _ in selector.select(0.05):
        if key.fileobj is server:
            while True:
                try:
                    conn, _ = server.accept()
                except BlockingIOError:
                    break
                except OSError:
                    stats["accept_errors"] += 1
                    break
                conn.setblocking(False)
                selector.register(conn, selectors.EVENT_READ)
                stats["accepted"] += 1
                stats["open"] += 1
                stats["max_open"] = max(stats["max_open"], stats["open"])
        else:
            try:
                data = key.fileobj.recv(65536)
            except OSError:
                data = b""
            if not data:
                selector.unregister(key.fileobj)
                key.fileobj.close()
                stats["open"] -= 1
                stats["closed"] += 1
    if time.monotonic() - written > 0.05:
        with open(sys.argv[1] + ".tmp", "w") as f:
            json.dump(stats, f)
        os.replace(sys.argv[1] + ".tmp", sys.argv[1])
        written = time.monotonic()
PY
python3 "$WORK/silent_listener.py" "$WORK/listener.stats" >"$WORK/listener.port" &
LISTENER_PID=$!
# A bounded poll (a Python start-up on a loaded machine can take seconds): at most 30 s.
for _ in $(seq 300); do [ -s "$WORK/listener.port" ] && break; sleep 0.1; done
LISTENER_PORT=$(cat "$WORK/listener.port")
expect_true "[ -n '$LISTENER_PORT' ]" "the silent listener printed its port within 30 s"
stat_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$WORK/listener.stats" "$1"; }

# A suite of 128 tasks (32 repositories: consumer-07..32 copy the tasks of consumer-01..06), the
# most a suite may hold, so a pairwise plan has 4 x 128 = 512 executions; two plans (runs a, b),
# and endpoint providers and an endpoint adjudicator on the listener (maxConcurrency 1024).
python3 - "$WORK" "$FIX/run-plan-v1.json" "$FIX/task-suite-v1.json" "$CALL_MS" <<'PY'
import json, sys
from study_payloads import grown_tasks, unsealed, write_repository_config
work, plan_path, suite_path, call_ms = sys.argv[1:5]
suite, plan = unsealed(suite_path), unsealed(plan_path)
ids, tasks = grown_tasks(suite)
for t in tasks:  # the suite's limit (the judge's deadline) bounds every task's
    t["budget"]["maxRuntimeMs"] = int(call_ms)
suite.update(population=ids, tasks=tasks, maxRuns=1000, maxRuntimeMsPerTask=int(call_ms))
json.dump(suite, open(f"{work}/big-suite.payload.json", "w"))
plan["taskIds"] = [t["id"] for t in tasks]
plan["sampling"] = {"strategy": "pairwise-task-strata", "sampleSize": 4 * len(tasks),
                    "scenarioIds": ["repository-only", "deterministic-doc-bridge"]}
plan["budget"] = {"maxTokens": 400000, "maxRuntimeMs": int(call_ms), "maxOutputBytes": 256000, "maxAttempts": 1}
for run in "ab":
    plan["runId"] = f"silent-{run}"
    json.dump(plan, open(f"{work}/silent-{run}.plan.payload.json", "w"))
write_repository_config(f"{work}/big-repos", ids, f"{work}/big-repos.payload.json")
endpoint = {"protocol": "openai-chat-completions", "baseUrlEnv": "SILENT_BASE_URL", "apiKeyEnv": "SILENT_API_KEY",
            "model": "silent-model", "maxConcurrency": 1024}
json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1",
           "providers": [{"modelId": m, "scenarioIds": ["repository-only", "deterministic-doc-bridge", "registry-assisted"],
                          "providerNetwork": True, "maxInputBytes": 1000000, "maxOutputBytes": 10000, "endpoint": endpoint}
                         for m in ["low-cost-model", "reference-model"]],
           "adjudicator": {"id": "silent-judge", "modelId": "reference-model", "providerNetwork": True,
                           "maxInputBytes": 1000000, "maxOutputBytes": 10000, "endpoint": endpoint}},
          open(f"{work}/silent.providers.payload.json", "w"))
PY
"$STRATA" seal task-suite "$WORK/big-suite.payload.json" -o "$WORK/big-suite.json" >/dev/null
SUITE_HASH=$(python3 -c "import json; print(json.load(open('$WORK/big-suite.json'))['contentHash'])")
for r in a b; do
  sed -i "s/\"taskSuiteHash\": \"[0-9a-f]*\"/\"taskSuiteHash\": \"$SUITE_HASH\"/" "$WORK/silent-$r.plan.payload.json"
  "$STRATA" seal run-plan "$WORK/silent-$r.plan.payload.json" -o "$WORK/silent-$r.plan.json" >/dev/null
done
"$STRATA" seal repository-config "$WORK/big-repos.payload.json" -o "$WORK/big-repos.json" >/dev/null
"$STRATA" seal provider-config "$WORK/silent.providers.payload.json" -o "$WORK/silent.providers.json" >/dev/null
export SILENT_BASE_URL=http://127.0.0.1:$LISTENER_PORT/v1 SILENT_API_KEY=sk-silent-test

# all_observations <ledger> <count> <python condition on o>: every one of <count> observations meets it.
all_observations() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
path, count, condition = sys.argv[1], int(sys.argv[2]), sys.argv[3]
observations = json.load(open(path))["observations"]
assert len(observations) == count, f"{len(observations)} observations, expected {count}"
bad = [o for o in observations if not eval(f"({condition})")]
assert not bad, f"{len(bad)} observation(s) fail {condition}; the first: {json.dumps(bad[0])[:600]}"
PY
}

MAX_S=$(((CALL_MS + SLACK_MS) / 1000))
if [ "$HARD_FILES" -lt 8000 ]; then
  echo "NOTE: the open-file hard limit ($HARD_FILES) is too small for 1,024 connections; strata lowers --jobs" \
    "and the connection counts are not asserted" >&2
fi
start=$(date +%s%N)
STUDY_PIDS=()
for r in a b; do
  (
    s=$(date +%s%N)
    "$TIMED_STRATA" run "$WORK/silent-$r.plan.json" "$WORK/big-suite.json" --providers "$WORK/silent.providers.json" \
      --repositories "$WORK/big-repos.json" --ledger "$WORK/silent-$r.ledger.json" --jobs 512 --text \
      >"$WORK/silent-$r.stdout" 2>"$WORK/silent-$r.stderr"
    echo "$? $(ms_since "$s")" >"$WORK/silent-$r.result"
  ) &
  STUDY_PIDS+=($!)
done
wait "${STUDY_PIDS[@]}"
echo "two silent-endpoint studies of 512 executions: $(ms_since "$start") ms; listener: $(cat "$WORK/listener.stats")"
for r in a b; do
  read -r code elapsed <"$WORK/silent-$r.result"
  CODE=$code
  cp "$WORK/silent-$r.stdout" "$WORK/stdout"
  cp "$WORK/silent-$r.stderr" "$WORK/stderr"
  expect_true "[ $code != 124 ]" "silent $r: strata hung (timeout ${HANG_S} s fired)"
  expect_code 0 "silent $r: the run exits 0"
  expect_out_has "Executed: 512" "silent $r: every execution ended"
  expect_err_empty "silent $r: nothing on stderr"
  # durationMs: no earlier than the deadline (causal), and no longer than the run (causal) or
  # the deadline plus slack.
  expect_true "all_observations '$WORK/silent-$r.ledger.json' 512 '
o[\"execution\"][\"status\"] == \"timed-out\" and o[\"execution\"][\"errorCode\"] == \"timeout\"
and $((CALL_MS - 50)) <= o[\"execution\"][\"durationMs\"] <= min($((CALL_MS + SLACK_MS)), $elapsed)'" \
    "silent $r: every execution timed-out (errorCode timeout) after about $CALL_MS ms, within the run's $elapsed ms"
  run verify --text "$WORK/silent-$r.ledger.json"
  expect_code 0 "silent $r: strata verify"
done
if [ "$HARD_FILES" -ge 8000 ]; then
  expect_true "[ $(stat_of max_open) -ge 1000 ]" "the listener held at least 1,000 connections at once ($(stat_of max_open))"
fi

# One ledger of both runs' 1,024 observations, judged by the endpoint adjudicator at --jobs 1024.
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
observations = [o for r in "ab" for o in json.load(open(f"{work}/silent-{r}.ledger.json"))["observations"]]
json.dump({"type": "controlled-study-observation-ledger", "schemaVersion": 1, "ledgerVersion": "v1",
           "observations": observations}, open(f"{work}/both.payload.json", "w"))
PY
"$STRATA" seal ledger "$WORK/both.payload.json" -o "$WORK/both.json" >/dev/null
accepted_before=$(stat_of accepted)
start=$(date +%s%N)
STRATA=$TIMED_STRATA run adjudicate "$WORK/both.json" "$WORK/big-suite.json" \
  --adjudicator "$WORK/silent.providers.json" --output "$WORK/judged.json" --jobs 1024 --text
elapsed=$(ms_since "$start")
echo "silent-endpoint adjudication of 1,024 observations: $elapsed ms; listener: $(cat "$WORK/listener.stats")"
expect_true "[ $CODE != 124 ]" "adjudication: strata hung (timeout ${HANG_S} s fired)"
expect_code 0 "adjudication: exits 0"
expect_err_empty "adjudication: nothing on stderr"
expect_out_has "Adjudicated observations: 1024" "adjudication: the output holds every observation"
expect_true "all_observations '$WORK/judged.json' 1024 'o[\"adjudication\"][\"status\"] == \"pending\"
and o[\"adjudication\"][\"reason\"] == \"Independent adjudicator timed-out.\"'" \
  "adjudication: every timed-out judgement is recorded as pending, reason 'Independent adjudicator timed-out.'"
run verify --text "$WORK/judged.json"
expect_code 0 "adjudication: strata verify"
if [ "$HARD_FILES" -ge 8000 ]; then
  expect_true "[ $(($(stat_of accepted) - accepted_before)) -ge 1000 ]" \
    "the adjudication opened at least 1,000 connections ($(($(stat_of accepted) - accepted_before)))"
fi

finish
