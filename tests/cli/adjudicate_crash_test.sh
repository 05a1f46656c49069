#!/usr/bin/env bash
# `strata adjudicate` crash safety (spec §4.4, the <output>.adjudication-journal checkpoint):
# adjudication of a 2,000-observation ledger at --jobs 16 is SIGKILLed at 5 random moments while
# judgements are in flight, re-run with the same arguments after each kill, then run to the end.
# The judge (a C program compiled here) appends one fixed-width line per call, naming the
# observation it was asked about, to a counter file (O_APPEND). After each kill the journal is
# read: what it records was durably judged and must never be requested again; a judgement that
# was in flight when the kill landed was never recorded, so asking for it again is allowed.
# At the end: exit 0, the output verifies, every selected observation carries exactly its own
# judgement, and every unselected observation is byte-identical to the input.
#
# Usage: adjudicate_crash_test.sh <strata binary> <fixtures dir> [observations=2000] [seed]
#   The seed (default: fresh, printed; or $STRATA_CRASH_SEED) fixes each round's random draws:
#   the share of the remaining work after which it kills and the extra delay. Timing still varies
#   from run to run, so a seed reproduces the kill schedule, not the exact interleaving.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SOURCE_BINARY=$(realpath "$1")
FIX=$(realpath "$2")
COUNT=${3:-2000}
SEED=${4:-${STRATA_CRASH_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}}
. "$(dirname "$0")/lib.sh"
KILLS=5
JOBS=16
JUDGE_SLEEP_US=3000  # the judge answers after 3-6 ms, so a run holds ~16 judgements in flight

echo "adjudicate crash test: $COUNT observations, $KILLS kills, seed $SEED" \
  "(re-run: $0 <strata> <fixtures> $COUNT $SEED)"
case $COUNT in '' | *[!0-9]*) echo "FAIL: observations must be a number, got '$COUNT'" >&2; exit 1 ;; esac
[ "$COUNT" -ge 200 ] || { echo "FAIL: need at least 200 observations, got $COUNT" >&2; exit 1; }

# A private copy of the binary: a rebuild during the test cannot swap it.
cp "$SOURCE_BINARY" "$WORK/strata"
STRATA=$WORK/strata
"$STRATA" --help >/dev/null 2>&1 || { echo "FAIL: $SOURCE_BINARY does not run (being rebuilt?)" >&2; exit 1; }
mkdir -p "$WORK/bin"

# --- the ledger --------------------------------------------------------------------------------
# scripts/bench/make-ledger.mjs writes COUNT valid sealed observations of one run; every 10th is
# moved to another run (re-sealed here, then checked by `strata verify`), so that --run-id,
# --offset and --limit leave unselected observations at the start, in between and at the end.
node "$ROOT/scripts/bench/make-ledger.mjs" "$COUNT" "$WORK/generated.json" || { echo "FAIL: make-ledger.mjs" >&2; exit 1; }
node --input-type=module - "$WORK/generated.json" "$WORK/ledger.json" <<'JS' || { echo "FAIL: re-sealing the ledger" >&2; exit 1; }
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
const [input, output] = process.argv.slice(2);
// sha256-normalized-v1 exactly as make-ledger.mjs computes it (spec §2).
const canonical = (v) =>
  Array.isArray(v) ? v.map(canonical)
  : v !== null && typeof v === "object"
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]))
    : v;
const seal = (payload) => {
  const { contentHash: _omit, ...rest } = payload;
  payload.contentHash = createHash("sha256").update(JSON.stringify(canonical(rest)), "utf8").digest("hex");
  return payload;
};
const ledger = JSON.parse(readFileSync(input, "utf8"));
ledger.observations.forEach((o, i) => { if (i % 10 === 9) { o.runId = "crash-test-other-run"; seal(o); } });
writeFileSync(output, JSON.stringify(seal(ledger), null, 2) + "\n");
JS
run verify "$WORK/ledger.json"
expect_code 0 "the generated ledger verifies"
[ "$CODE" = 0 ] || { finish; exit 1; }
LEDGER_SUM=$(sha256sum <"$WORK/ledger.json")
RUN_ID=$(python3 -c "import json; print(json.load(open('$WORK/ledger.json'))['observations'][0]['runId'])")
MAIN=$((COUNT - COUNT / 10))            # observations of RUN_ID
OFFSET=$((COUNT / 40))                  # skipped at the start of RUN_ID's observations
LIMIT=$((MAIN - 2 * OFFSET))            # so OFFSET of RUN_ID's observations stay unselected at the end

# --- the judge ---------------------------------------------------------------------------------
# The request is anonymised (§4.2), but candidate.execution.durationMs of make-ledger.mjs is unique
# per observation (15000 + i*2654435761 mod 165000, and 165000 is prime to that factor); the
# analysis below checks that uniqueness before relying on it. The judge reads the whole request,
# appends "<durationMs>\n" (12 digits, so the count of calls is the file size / 13; -1 when
# stdin was cut short by a kill), sleeps, and answers with the value as a measurement, so the
# output shows that each observation got its own judgement.
cat >"$WORK/judge.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char** argv) {
  if (argc < 3) return 2;
  size_t cap = 1 << 16, len = 0;
  char* buf = malloc(cap + 1);
  ssize_t n;
  while (buf && (n = read(0, buf + len, cap - len)) > 0)
    if ((len += (size_t)n) == cap) buf = realloc(buf, (cap *= 2) + 1);
  if (!buf) return 2;
  buf[len] = 0;
  long long duration = -1;
  const char* key = "\"durationMs\":";
  for (char* p = strstr(buf, key); p; p = strstr(p + 1, key)) duration = atoll(p + strlen(key));  // the last one
  char line[32];
  int w = snprintf(line, sizeof line, "%012lld\n", duration);
  int fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || w != 13 || write(fd, line, 13) != 13) return 3;
  close(fd);
  if (duration < 0) return 4;
  long sleep_us = atol(argv[2]);
  usleep((useconds_t)(sleep_us + getpid() % (sleep_us + 1)));
  static const char* outcomes[] = {"success", "partial", "incorrect", "incomplete", "blocked"};
  printf("{\"outcome\":\"%s\",\"confidence\":0.75,\"reasonCodes\":[\"crash-test\"],\"inputTokens\":%lld,"
         "\"outputTokens\":7,\"tokenMethod\":\"provider\",\"measurements\":{\"judgeSawDurationMs\":%lld}}\n",
         outcomes[duration % 5], duration % 1000, duration);
  return fflush(stdout) == 0 ? 0 : 5;
}
C
cc -O2 -o "$WORK/bin/judge" "$WORK/judge.c" || { echo "FAIL: cannot compile the judge" >&2; exit 1; }
COUNTER=$WORK/judge.calls
: >"$COUNTER"

python3 - "$WORK" "$COUNTER" "$JUDGE_SLEEP_US" <<'PY'
import json, sys
work, counter, sleep_us = sys.argv[1:4]
json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1",
           "providers": [{"modelId": "low-cost-model", "scenarioIds": ["repository-only"], "command": "true",
                          "providerNetwork": False, "maxInputBytes": 1000, "maxOutputBytes": 1000}],
           "adjudicator": {"id": "crash-judge", "modelId": "reference-model", "command": f"{work}/bin/judge",
                           "args": [counter, sleep_us], "providerNetwork": False,
                           "maxInputBytes": 1000000, "maxOutputBytes": 10000,
                           "pricing": {"currency": "USD", "inputPerMillionUsd": 2, "cachedInputPerMillionUsd": 1,
                                       "outputPerMillionUsd": 4}}},
          open(f"{work}/judge.payload.json", "w"))
PY
"$STRATA" seal provider-config "$WORK/judge.payload.json" -o "$WORK/judge.json" >/dev/null

OUTPUT=$WORK/out/adjudicated.json
JOURNAL=$OUTPUT.adjudication-journal
ARGS=(adjudicate "$WORK/ledger.json" "$FIX/task-suite-v1.json" --adjudicator "$WORK/judge.json" --output "$OUTPUT"
  --run-id "$RUN_ID" --offset "$OFFSET" --limit "$LIMIT" --jobs "$JOBS" --text)

# Judges orphaned by a SIGKILLed strata lead their own process groups; they end on their own
# within milliseconds (EOF on stdin, or SIGPIPE on answering). judge_pids lists them by the path
# of this test's private judge binary.
judge_pids() { pgrep -f "^$WORK/bin/judge " || true; }
kill_leftovers() {
  local pid
  for pid in $(judge_pids); do kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null; done
}
trap 'kill_leftovers; rm -rf "$WORK"' EXIT
wait_for_orphans() {  # until no judge of this test runs; a judge that outlives 10 s is a hang
  local i
  for i in $(seq 200); do
    [ -z "$(judge_pids)" ] && return 0
    sleep 0.05
  done
  checks=$((checks + 1))
  failures=$((failures + 1))
  echo "FAIL: judges still running 10 s after the kill: $(judge_pids | tr '\n' ' ')" >&2
  kill_leftovers
}

# --- the crash loop ----------------------------------------------------------------------------
# Each round starts strata, waits until the judge has been called a random number of times
# (1 .. a sixth of what is left), then a random 0-15 ms more, then until a judge call of this run
# is not yet in the journal, and SIGKILLs it: the kill lands while judgements are in flight,
# never after the end. Then the orphans end, and the counter size
# and the journal are snapshotted for the analysis.
cat >"$WORK/kill_round.py" <<'PY'
# kill_round.py <round> <seed> <counter> <journal> <selected> <stdout> <stderr> -- <command...>
# Exit 0 when strata was SIGKILLed mid-run, 1 when it ended by itself (or hung).
import os, random, signal, subprocess, sys, time
rnd, seed, counter, journal, selected, out, err = sys.argv[1:8]
command = sys.argv[sys.argv.index("--") + 1:]
rng = random.Random(f"{seed}/{rnd}")
base = os.path.getsize(counter) // 13
def calls():
    return os.path.getsize(counter) // 13 - base
seen_bytes, lines = 0, 0
def recorded():  # lines in the journal now, read incrementally
    global seen_bytes, lines
    try:
        with open(journal, "rb") as f:
            if os.fstat(f.fileno()).st_size < seen_bytes:  # a torn tail was cut off: count again
                seen_bytes, lines = 0, 0
            f.seek(seen_bytes)
            data = f.read()
    except FileNotFoundError:
        return 0
    seen_bytes += len(data)
    lines += data.count(b"\n")
    return lines
at_start = recorded()
left = max(1, int(selected) - at_start)
share = rng.random()  # the seed fixes the draws; how far the earlier rounds got is timing
target = 1 + int(share * (left // 6))
extra = rng.uniform(0, 0.015)
with open(out, "wb") as o, open(err, "wb") as e:
    proc = subprocess.Popen(command, stdout=o, stderr=e)
deadline = time.monotonic() + 120
def hang(what):
    print(f"round {rnd}: {what} within 120 s (hang?)", file=sys.stderr)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    sys.exit(1)
while calls() < target and proc.poll() is None:
    if time.monotonic() > deadline:
        hang(f"fewer than {target} judge calls")
    time.sleep(0.001)
time.sleep(extra)
# Kill only while some judge call of this run is not yet recorded (i.e. in flight).
while calls() <= recorded() - at_start and proc.poll() is None:
    if time.monotonic() > deadline:
        hang("no judgement in flight")
    time.sleep(0.0005)
seen = calls()
proc.send_signal(signal.SIGKILL)  # a no-op if it already ended
code = proc.wait()
print(f"round {rnd}: {left} left, kill after {target} judge calls ({share:.3f} of a sixth) + {extra * 1000:.1f} ms"
      f" ({seen} calls seen)")
if code != -signal.SIGKILL:
    print(f"round {rnd}: strata ended by itself (exit {code}) before the kill: {open(err).read()[:300]}", file=sys.stderr)
    sys.exit(1)
PY
start_ns=$(date +%s%N)
for round in $(seq "$KILLS"); do
  python3 "$WORK/kill_round.py" "$round" "$SEED" "$COUNTER" "$JOURNAL" "$LIMIT" "$WORK/round-$round.out" \
    "$WORK/round-$round.err" -- "$STRATA" "${ARGS[@]}"
  CODE=$?
  expect_code 0 "round $round: strata killed mid-run"
  wait_for_orphans
  stat -c %s "$COUNTER" >"$WORK/calls-at-kill-$round"
  cp "$JOURNAL" "$WORK/journal-at-kill-$round" 2>/dev/null || : >"$WORK/journal-at-kill-$round"
done

run "${ARGS[@]}"
expect_code 0 "final run completes"
expect_out_has "Adjudicated observations: $COUNT" "final run text"
end_ns=$(date +%s%N)
echo "crash loop and final run: $(awk -v n=$((end_ns - start_ns)) 'BEGIN { printf "%.1f", n / 1e9 }') s"
run verify --text "$OUTPUT"
expect_code 0 "strata verify on the output"

# --- analysis ----------------------------------------------------------------------------------
cat >"$WORK/analyse.py" <<'PY'
import json, sys
work, output, counter, kills, run_id, offset, limit = sys.argv[1:8]
kills, offset, limit = int(kills), int(offset), int(limit)
errors = []
def check(ok, message):
    if not ok:
        errors.append(message)

ledger_text = open(f'{work}/ledger.json', encoding='utf-8').read()
output_text = open(output, encoding='utf-8').read()
source = json.loads(ledger_text)['observations']
result = json.loads(output_text)['observations']

# Spec §4.4 selection, walked independently.
selected, skipped = [], 0
for i, o in enumerate(source):
    if o['runId'] != run_id:
        continue
    if skipped < offset:
        skipped += 1
        continue
    if len(selected) >= limit:
        continue
    selected.append(i)
chosen = set(selected)
check(len(selected) == limit, f'{len(selected)} selected, expected {limit}')
by_duration = {source[i]['execution']['durationMs']: i for i in selected}
check(len(by_duration) == len(selected), 'durationMs does not identify the selected observations')
by_hash = {source[i]['contentHash']: i for i in selected}

# The counter: one observation index per judge call (None: request cut short by a kill).
def calls():
    data = open(counter, 'rb').read()
    check(len(data) % 13 == 0, 'torn counter line')
    values = [int(data[k:k + 13]) for k in range(0, len(data) - len(data) % 13, 13)]
    return [None if v < 0 else by_duration.get(v, -1) for v in values]
every = calls()
check(-1 not in every, 'the judge was asked about an unselected or unknown observation')

# Journal snapshots: the valid prefix of complete lines, as strata reads it.
def recorded(path):
    got = []
    for line in open(path, 'rb').read().split(b'\n')[:-1]:
        try:
            entry = json.loads(line)
        except ValueError:
            break
        got.append(by_hash.get(entry.get('source'), -1))
    check(-1 not in got, f'{path}: a journal entry names no selected observation')
    check(len(got) == len(set(got)), f'{path}: an observation is recorded twice')
    return set(got)
cut = [0] + [int(open(f'{work}/calls-at-kill-{k}').read()) // 13 for k in range(1, kills + 1)] + [len(every)]
journal = [set()] + [recorded(f'{work}/journal-at-kill-{k}') for k in range(1, kills + 1)]

rejudged = 0
for k in range(1, kills + 2):  # segment k = the judge calls of run k (run kills + 1 is the final one)
    segment = every[cut[k - 1]:cut[k]]
    identified = [i for i in segment if i is not None]
    before = journal[k - 1]
    again = sorted(set(identified) & before)
    check(not again, f'run {k}: {len(again)} observation(s) recorded before run {k} were requested again, '
                     f'e.g. durationMs {[source[i]["execution"]["durationMs"] for i in again[:5]]}')
    check(len(identified) == len(set(identified)), f'run {k}: an observation was requested twice in one run')
    rejudged += len(set(identified) & set(every[:cut[k - 1]]))
    if k <= kills:
        now = journal[k]
        check(before <= now, f'kill {k}: a recorded judgement disappeared from the journal')
        check(now <= set(every[:cut[k]]), f'kill {k}: the journal records a judgement the judge never made')
        check(len(now) < len(selected), f'kill {k} landed after every judgement was recorded')
        in_flight = len(segment) - len(now - before)
        check(in_flight >= 1, f'kill {k}: no judgement was in flight')
        print(f'kill {k}: run made {len(segment)} judge calls, {len(now - before)} recorded, {in_flight} in flight '
              f'({segment.count(None)} of them before their request was fully written); journal holds {len(now)}/{len(selected)}')
    else:
        check(None not in segment, 'final run: a request was cut short')
        missing = chosen - before - set(identified)
        check(not missing, f'final run: {len(missing)} observation(s) never judged')
        print(f'final run: {len(identified)} judge calls, {len(before)} reused from the journal')
print(f'{len(every)} judge calls for {len(selected)} observations; {rejudged} in-flight judgement(s) repeated')

# The output: same observations in the same places; unselected ones byte-identical (spec §4.4),
# selected ones carry exactly their own judgement (the judge echoes the durationMs it saw).
def blocks(text):
    lines = text.split('\n')
    start = lines.index('  "observations": [') + 1
    found, current = [], None
    for line in lines[start:]:
        if current is None:
            if line in ('  ]', '  ],'):
                break
            check(line == '    {', f'unexpected ledger layout: {line[:60]}')
            current = [line]
        else:
            current.append(line.rstrip(',') if line in ('    }', '    },') else line)
            if line in ('    }', '    },'):
                found.append('\n'.join(current))
                current = None
    return found
a, b = blocks(ledger_text), blocks(output_text)
check(len(a) == len(source) and len(b) == len(result) == len(source), 'observation count changed')
same = [i for i in range(len(source)) if i not in chosen and a[i] == b[i]]
check(len(same) == len(source) - len(selected), f'{len(source) - len(selected) - len(same)} unselected observation(s) not byte-identical')
outcomes = ['success', 'partial', 'incorrect', 'incomplete', 'blocked']
for i in selected:
    o, r = source[i], result[i]
    adj, m = r['adjudication'], r['measurements']
    duration = o['execution']['durationMs']
    for key in ('observedAt', 'runId', 'task', 'execution', 'model', 'scenario', 'evidenceIds'):
        check(r.get(key) == o.get(key), f'observation {i}: {key} changed')
    check(adj.get('status') == 'automated' and adj.get('actor') == 'crash-judge' and adj.get('method') == 'independent-rubric-v1'
          and adj.get('outcome') == outcomes[duration % 5], f'observation {i}: adjudication {adj}')
    check(m.get('judgeSawDurationMs') == duration, f'observation {i} carries the judgement of another one')
    check(m.get('adjudicatorInputTokens') == duration % 1000 and 'adjudicatorLatencyMs' in m, f'observation {i}: measurements')
    check(r['contentHash'] != o['contentHash'], f'observation {i} was not re-sealed')
for e in errors[:20]:
    print('  ' + e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
expect_true "python3 '$WORK/analyse.py' '$WORK' '$OUTPUT' '$COUNTER' '$KILLS' '$RUN_ID' '$OFFSET' '$LIMIT'" \
  "journal, judge calls and output agree: nothing recorded was requested again, each selected observation carries its own judgement"

expect_true "[ \"\$(sha256sum <'$WORK/ledger.json')\" = '$LEDGER_SUM' ]" "the input ledger is never modified"
kill_leftovers
finish
