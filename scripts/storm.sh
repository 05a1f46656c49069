#!/usr/bin/env bash
# A thousand kills (issue 28, part 3): scripts/storm.sh <iterations> [build-dir=build]
# Not in CI: the test command's share is tests/cli/crash_loop_test.sh (150 kills). See --help.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/storm.sh <iterations> [build-dir=build]
       scripts/storm.sh --help

SIGKILLs Strata <iterations> times and resumes it with the same command after every kill,
checking after each kill and at the end of each study that nothing was lost or recorded twice.
An iteration is one kill. The kills cycle through three kinds of victims:

  process     `strata run` of the example study (examples/study: 16 executions, 4 tasks x 2
              models x 2 scenarios) with the example provider (strata-example-provider), each
              call answered after 0-20 ms
  endpoint    `strata run` of the same study with every provider an OpenAI-compatible endpoint:
              the test HTTPS server (strata-test-server) on loopback, answering after 20 ms
  adjudicate  `strata adjudicate` of one run of a two-run ledger (16 observations selected, 16
              not) with the example judge, each call answered after 0-20 ms

All at --jobs 2. Where a run is killed is chosen on observed progress, not on a clock (as
tests/cli/crash_loop_test.sh does): with probability 1/3 a run is left to end by itself (that
ends the study); else, with r executions (judgements) not yet recorded, k is drawn uniformly in
0..r and the run is SIGKILLed as soon as its journal (<ledger>.journal, or
<output>.adjudication-journal) holds k complete lines more than at launch, polled every 1 ms.
k = 0 kills in start-up (0-30 ms after launch, or at the first new line); k = r kills in the
fold (0-30 ms after the last line, or when the fold is seen to empty the journal).

After every kill: the ledger (as readers see it, an append undo record honoured) plus the
journal's complete lines hold each execution at most once, nothing recorded before the run is
lost or changed, earlier studies in the same ledger are intact, `strata verify` passes (for an
adjudication: the checkpoint holds each judgement at most once and keeps every earlier one).
When a study completes: exit 0, every planned execution recorded exactly once and completed,
`strata verify` passes, the journal is empty; the provider (judge) was never asked for an
execution (observation) recorded before the run that asked; an adjudication's output holds each
selected observation judged exactly once and every unselected one unchanged. Then a new study
starts; five studies share a ledger (later ones are appended in place).

Prints one progress line per 5% of the iterations and a summary. Exit 0 when every check held;
1 on any loss, duplicate, verify failure or other failed check: the storm stops at the first
one and keeps its work directory (named on stderr; its storm.log has every run). KEEP_WORK=1
keeps it always. STORM_SEED=<n> fixes the kill schedule (timing still varies).

Needs <build-dir>/strata, <build-dir>/strata-example-provider and
<build-dir>/tests/strata-test-server (cmake --build <build-dir> --target strata
strata-example-provider strata-test-server), cc, python3 and curl.
EOF
}

case ${1:-} in
  -h | --help) usage; exit 0 ;;
  '' | *[!0-9]*) usage >&2; exit 1 ;;
esac
ITERATIONS=$1
BUILD=${2:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
for binary in "$BUILD/strata" "$BUILD/strata-example-provider" "$BUILD/tests/strata-test-server"; do
  [ -x "$binary" ] || { echo "storm: $binary not found (build it first: see --help)" >&2; exit 1; }
done
for tool in cc python3 curl pgrep; do
  command -v "$tool" >/dev/null || { echo "storm: missing tool: $tool" >&2; exit 1; }
done
SEED=${STORM_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
SERVER=$(realpath "$BUILD/tests/strata-test-server")
EXAMPLES=$ROOT/examples/study

# The tests' helpers: $WORK, the python3 and PYTHONPATH setup, make_example_study,
# start_test_server, control/fault and endpoint_study.
. "$ROOT/tests/cli/lib.sh"
set -euo pipefail
cp "$BUILD/strata" "$WORK/strata"  # private copies: a rebuild during the storm cannot swap them
STRATA=$WORK/strata
mkdir -p "$WORK/bin" "$WORK/calls.log.requests" "$WORK/process" "$WORK/endpoint" "$WORK/adjudicate"
cp "$BUILD/strata-example-provider" "$WORK/bin/strata-example-provider"

kill_leftovers() {
  local pid
  for pid in $(pgrep -f "^$WORK/bin/" || true); do
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  done
}
cleanup() {
  local status=$?
  kill_leftovers
  exec 3>&- || true  # the test server ends when its control pipe closes
  [ -z "${SERVER_PID:-}" ] || wait "$SERVER_PID" 2>/dev/null || true
  if [ "$status" -eq 0 ] && [ -z "${KEEP_WORK:-}" ]; then
    rm -rf "$WORK"
  else
    echo "storm: work directory kept: $WORK (storm.log: every run and check)" >&2
  fi
}
trap cleanup EXIT

# --- the provider and the judge ----------------------------------------------------------------
# storm-log <call log> <max delay ms> <program> [args...]: reads the whole request, keeps a copy
# as <call log>.requests/<FNV-1a>.json (the first time), appends "<$STORM_RUN> <FNV-1a>" to the
# call log (one O_APPEND write), sleeps 0..max ms and execs the program with the same request on
# its stdin. The configs allow STORM_RUN through, so a call is counted for the run that made it.
cat >"$WORK/storm-log.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char** argv) {
  if (argc < 4) return 2;
  size_t cap = 1 << 16, len = 0;
  char* buf = malloc(cap);
  ssize_t n;
  while (buf && (n = read(0, buf + len, cap - len)) > 0)
    if ((len += (size_t)n) == cap) buf = realloc(buf, cap *= 2);
  if (!buf) return 2;
  uint64_t hash = 1469598103934665603ULL;
  for (size_t i = 0; i < len; i++) hash = (hash ^ (unsigned char)buf[i]) * 1099511628211ULL;
  char path[4096], line[256];
  snprintf(path, sizeof path, "%s.requests/%016llx.json", argv[1], (unsigned long long)hash);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) {
    if (write(fd, buf, len) != (ssize_t)len) return 3;
    close(fd);
  }
  const char* tag = getenv("STORM_RUN");
  const int w = snprintf(line, sizeof line, "%s %016llx\n", tag ? tag : "-", (unsigned long long)hash);
  fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || w <= 0 || write(fd, line, (size_t)w) != w) return 3;
  close(fd);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  srand((unsigned)(now.tv_nsec ^ getpid()));
  usleep((useconds_t)(rand() % (atol(argv[2]) + 1)) * 1000);
  fd = memfd_create("request", MFD_CLOEXEC);
  if (fd < 0 || write(fd, buf, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0 || dup2(fd, 0) != 0) return 4;
  execv(argv[3], argv + 3);
  return 5;
}
C
cc -O2 -o "$WORK/bin/storm-log" "$WORK/storm-log.c"

# --- the studies ---------------------------------------------------------------------------------
# The example study (suite, repository config, providers with an absolute command), then the
# providers and judge through storm-log: process/judge calls go to calls.log.
make_example_study "$WORK/bin/strata-example-provider"
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
config = json.load(open(f"{work}/providers.payload.json"))
for entry in config["providers"] + [config["adjudicator"]]:  # make_example_study leaves the judge's command
    entry["args"] = [f"{work}/calls.log", "20", f"{work}/bin/strata-example-provider"] + entry.get("args", [])
    entry["command"] = f"{work}/bin/storm-log"
    entry["envAllowlist"] = ["STORM_RUN"]
json.dump(config, open(f"{work}/process.payload.json", "w"))
PY
"$STRATA" seal provider-config "$WORK/process.payload.json" -o "$WORK/process.json" >/dev/null
# The endpoint study: the same entries calling the test server, at most 2 in flight each.
endpoint_study "$WORK/process.payload.json" "$WORK/endpoint.payload.json" maxConcurrency=2 envAllowlist=
"$STRATA" seal provider-config "$WORK/endpoint.payload.json" -o "$WORK/endpoint.json" >/dev/null
start_test_server "$SERVER"
trap cleanup EXIT  # start_test_server sets its own
control POST reply --data-binary '{"taskOutcome":"partial","evidenceQuality":"medium","safetyOutcome":"safe","evidenceIds":[],"inputTokens":1,"outputTokens":1,"tokenMethod":"estimate"}' >/dev/null
fault delay:20
export STUDY_BASE_URL=https://127.0.0.1:$PORT/v1 STUDY_API_KEY=sk-storm-test

# --- the driver ----------------------------------------------------------------------------------
cat >"$WORK/storm.py" <<'PY'
# storm.py <iterations> <seed> <work> <strata> <examples dir>
import collections, json, os, random, signal, subprocess, sys, time

iterations, seed, work, strata_path, examples = sys.argv[1:6]
iterations, JOBS = int(iterations), "2"
rng = random.Random(seed)
SIX = ("taskId", "repositoryId", "scenarioId", "modelId", "replicate", "variantId")
ALLOWED_STDERR = ("dropped an incomplete last line", "dropped an invalid line", "undid an append cut short")
HANG = 120  # seconds: a run that takes longer (or a provider that outlives its strata by 10 s) is a hang
STARTUP = 0.03  # a start-up kill lands within this after launch, a fold kill after the last line
END_BY_ITSELF = 1 / 3  # the share of runs left to end by themselves (each ends its study)
POLL = 0.001
PROGRESS = max(1, iterations // 20)
log = open(f"{work}/storm.log", "a", buffering=1)
started = time.monotonic()


class Failed(Exception):
    pass


class Totals:
    def __init__(self):
        self.kills = self.runs = self.finished = self.studies = self.recorded = self.mid_run = 0
        self.torn = self.undo = self.calls = self.repeated_in_flight = self.verified = 0
        self.points = collections.Counter()  # start-up, mid-run, fold: where the kill point was drawn


totals = {kind: Totals() for kind in ("process", "endpoint", "adjudicate")}
problems = collections.Counter()  # loss, duplicate, verify, re-asked, other


def say(text):
    log.write(text + "\n")


def check(ok, what, message):
    """what: loss, duplicate, verify, re-asked or other. A failed check stops the storm."""
    if not ok:
        problems[what] += 1
        text = f"FAIL ({what}): {message}"
        say(text)
        print(f"storm: {text}", file=sys.stderr, flush=True)
        raise Failed(text)


def strata(*args, env=None):
    p = subprocess.run([strata_path, *args], capture_output=True, text=True, env=env, timeout=HANG)
    return p.returncode, p.stdout, p.stderr


def key(o):
    return (o["runId"],) + tuple(json.dumps(o["task"].get(k)) for k in SIX)


def orphans():
    p = subprocess.run(["pgrep", "-f", f"^{work}/bin/"], capture_output=True, text=True)
    return p.stdout.split()


def wait_for_orphans():
    deadline = time.monotonic() + 10
    while orphans():
        check(time.monotonic() < deadline, "other", f"providers still running 10 s after their strata ended: {orphans()}")
        time.sleep(0.005)


def point_class(point):
    k, _, last = point
    return "start-up" if k == 0 else "fold" if last else "mid-run"


def kill_point(remaining):
    """None (probability END_BY_ITSELF: not killed) or (k, delay, last): k uniform in 0..remaining."""
    ends, share, delay = rng.random(), rng.random(), rng.uniform(0, STARTUP)
    if ends < END_BY_ITSELF:
        return None
    k = min(int(share * (remaining + 1)), remaining)
    return (k, delay, k == remaining)


class JournalProgress:
    """The complete lines a run adds to its journal (see tests/cli/crash_loop_test.sh): a torn
    tail is not consumed; a shrink or replacement is the fold emptying the journal (`folded`)."""

    def __init__(self, path):
        self.path, self.offset, self.lines, self.base, self.inode, self.folded = path, 0, 0, 0, None, False
        self.poll()
        self.base = self.lines

    def poll(self):
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        if self.offset and (st is None or st.st_ino != self.inode or st.st_size < self.offset):
            self.offset = self.lines = self.base = 0
            self.folded = True
        if st is not None:
            self.inode = st.st_ino
            if st.st_size > self.offset:
                try:
                    with open(self.path, "rb") as f:
                        f.seek(self.offset)
                        data = f.read(st.st_size - self.offset)
                except FileNotFoundError:
                    data = b""
                end = data.rfind(b"\n") + 1
                self.lines += data.count(b"\n", 0, end)
                self.offset += end
        return self.lines - self.base


def launch(args, env, point, out, err, journal):
    """Runs strata; with a point (k, delay, last) SIGKILLs it at that observed progress (a run that
    ends first is simply not killed). Returns (killed, exit code, where)."""
    watch = JournalProgress(journal) if point is not None else None
    with open(out, "wb") as o, open(err, "wb") as e:
        proc = subprocess.Popen([strata_path, *args], stdout=o, stderr=e, env=env)
    launched = time.monotonic()
    where = ""
    if point is not None:
        k, delay, last = point
        reached = launched if k == 0 else None
        while proc.poll() is None and time.monotonic() - launched < HANG:
            added = watch.poll()
            now = time.monotonic()
            if reached is None and added >= k:
                reached = now
            if (k == 0 and added >= 1) or watch.folded or \
                    (reached is not None and (now - reached >= delay or (k > 0 and not last))):
                proc.send_signal(signal.SIGKILL)  # a no-op when strata has just ended by itself
                where = (f"point +{k}{' (the last: in the fold)' if last and k else ''}, killed "
                         f"{(now - launched) * 1000:.0f} ms after launch at +{added}"
                         f"{' after the fold emptied the journal' if watch.folded else ''}")
                break
            time.sleep(POLL)
    try:
        code = proc.wait(timeout=max(1, HANG - (time.monotonic() - launched)))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        check(False, "other", f"strata {args[0]} did not end within {HANG} s (hang): {' '.join(args)}")
    return code == -signal.SIGKILL, code, where


def journal_lines(path):
    """(the complete lines, parsed; bytes of an incomplete last line)."""
    try:
        data = open(path, "rb").read()
    except FileNotFoundError:
        return [], 0
    *lines, tail = data.split(b"\n")
    parsed = []
    for number, line in enumerate(lines, 1):
        try:
            parsed.append(json.loads(line))
        except ValueError:
            check(False, "other", f"{path}: complete line {number} is not JSON: {line[:80]!r}")
    return parsed, len(tail)


def unexpected_stderr(text):
    return [l for l in text.splitlines() if l.strip() and not any(a in l for a in ALLOWED_STDERR)]


def verify(path, kind, what, journal_expected=None, torn=None):
    code, out, err = strata("verify", "--json", path)
    check(code == 0, "verify", f"{what}: strata verify {path}: exit {code}: {out[-400:]} {err[-300:]}")
    totals[kind].verified += 1
    journal = json.loads(out)["files"][0].get("journal", {})
    if journal_expected is not None:
        check(journal.get("observations", 0) == journal_expected, "verify",
              f"{what}: verify counts {journal.get('observations', 0)} journal observations, the journal has "
              f"{journal_expected} complete lines")
    if torn is not None:
        check(("dropped" in journal) == (torn > 0), "verify", f"{what}: verify reports {journal.get('dropped')!r} "
              f"for a torn tail of {torn} bytes")


def calls_by_run():
    """run tag -> [request hash] from the call log."""
    calls = collections.defaultdict(list)
    with open(f"{work}/calls.log") as f:
        for line in f:
            tag, digest = line.split()
            calls[tag].append(digest)
    return calls


def server_requests():
    """The model requests the test server has received so far (its own count)."""
    import ssl, urllib.parse, urllib.request
    base = urllib.parse.urlsplit(os.environ["STUDY_BASE_URL"])
    context = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    with urllib.request.urlopen(f"https://{base.netloc}/__requests", context=context, timeout=30) as answer:
        return int(answer.read())


def request(digest):
    return json.load(open(f"{work}/calls.log.requests/{digest}.json"))


def closing(h):
    return ('\n  ],\n  "contentHash": "%s",\n  "contentHashAlgo": "sha256-normalized-v1"\n}\n' % h).encode()


def ledger_view(path):
    """The observations every reader sees: the file or, while an undo record names it, the old ledger."""
    try:
        raw = open(path, "rb").read()
    except FileNotFoundError:
        return []
    try:
        undo = open(path + ".append-undo").read().split()
    except FileNotFoundError:
        undo = None
    if undo:
        check(undo[:2] == ["strata-append-undo", "1"] and len(undo) == 5, "other", f"damaged undo record {undo}")
        if int(undo[2]) == os.stat(path).st_ino:
            raw = raw[:int(undo[3])] + closing(undo[4])
    return json.loads(raw)["observations"]


def seal_plan(kind, run_id):
    plan = json.load(open(f"{examples}/run-plan.payload.json"))
    plan["runId"] = run_id
    plan["taskSuiteHash"] = json.load(open(f"{work}/suite.json"))["contentHash"]
    payload, sealed = f"{work}/{kind}/{run_id}.payload.json", f"{work}/{kind}/{run_id}.json"
    json.dump(plan, open(payload, "w"))
    code, out, err = strata("seal", "run-plan", payload, "-o", sealed)
    check(code == 0, "other", f"cannot seal {payload}: {err}")
    return sealed


class RunKind:
    """`strata run` (process or endpoint providers): one study (run id) at a time, resumed after
    every kill until a run ends by itself; five studies per ledger."""

    def __init__(self, kind):
        self.kind, self.t = kind, totals[kind]
        self.providers = f"{work}/{kind}.json"
        self.study = 0
        self.ledger = None
        self.done = []  # run ids completed in this ledger
        self.planned = json.load(open(f"{examples}/run-plan.payload.json"))["sampling"]["sampleSize"]
        self.new_study()

    def new_study(self):
        self.study += 1
        if self.study % 5 == 1:
            self.ledger = f"{work}/{self.kind}/ledger-{self.study // 5 + 1:03d}.json"
            self.done = []
        self.run_id = f"storm-{self.kind}-{self.study:04d}"
        self.plan = seal_plan(self.kind, self.run_id)
        self.runs = []  # (tag, keys recorded before the run)
        self.server_before = server_requests() if self.kind == "endpoint" else 0

    def args(self):
        return ["run", self.plan, f"{work}/suite.json", "--providers", self.providers, "--repositories",
                f"{work}/repos.json", "--ledger", self.ledger, "--jobs", JOBS, "--json"]

    def state(self):
        """key -> contentHashes of this study over the ledger and the journal's complete lines; the
        journal's lines; its torn bytes; observations per earlier run."""
        lines, torn = journal_lines(self.ledger + ".journal")
        seen = collections.defaultdict(set)
        others = collections.Counter()
        for o in ledger_view(self.ledger) + lines:
            if o["runId"] == self.run_id:
                seen[key(o)].add(o["contentHash"])
            else:
                others[o["runId"]] += 1
        return seen, lines, torn, others

    def one_run(self, kill):
        kind, t = self.kind, self.t
        before, _, _, _ = self.state()
        before = {k: next(iter(v)) for k, v in before.items()}
        tag = f"{self.run_id}.{len(self.runs) + 1}"
        self.runs.append((tag, set(before)))
        out, err = f"{work}/{kind}/run.out", f"{work}/{kind}/run.err"
        point = kill_point(self.planned - len(before)) if kill else None
        killed, code, where = launch(self.args(), dict(os.environ, STORM_RUN=tag), point, out, err,
                                     self.ledger + ".journal")
        wait_for_orphans()
        t.runs += 1
        what = f"[{kind}] run {tag} ({where if killed else 'not killed'})"
        seen, lines, torn, others = self.state()
        in_journal = collections.Counter(key(o) for o in lines)
        check(not in_journal or max(in_journal.values()) == 1, "duplicate", f"{what}: the journal holds an execution twice")
        for k, hashes in seen.items():
            check(len(hashes) == 1, "duplicate", f"{what}: execution {k} recorded {len(hashes)} times")
        for k, h in before.items():
            check(seen.get(k) == {h}, "loss", f"{what}: the record of {k} made before the run was lost or changed")
        for run_id in self.done:
            check(others.get(run_id) == self.planned, "loss",
                  f"{what}: the completed study {run_id} holds {others.get(run_id)} observations, not {self.planned}")
        check(len(seen) <= self.planned, "duplicate", f"{what}: {len(seen)} executions recorded, {self.planned} planned")
        if os.path.exists(self.ledger):
            verify(self.ledger, kind, what, len(lines), torn)
        if killed:
            t.kills += 1
            t.points[point_class(point)] += 1
            t.mid_run += len(seen) > len(before)
            t.torn += torn > 0
            undo = os.path.exists(self.ledger + ".append-undo")
            t.undo += undo
            say(f"{what}: {len(before)} -> {len(seen)} recorded{', torn tail of %d bytes' % torn if torn else ''}"
                f"{', append undo record left' if undo else ''}")
            return True
        # The run ended by itself: the study is complete.
        t.finished += 1
        stderr = open(err).read()
        check(code == 0, "other", f"{what}: exit {code}: {stderr[:400]}")
        summary = json.load(open(out))["summary"]
        check((summary["status"], summary["planned"], summary["executed"], summary["skipped"]) ==
              ("completed", self.planned, self.planned - len(before), len(before)), "other",
              f"{what}: summary {summary}; {len(before)} were recorded before the run")
        check(not unexpected_stderr(stderr), "other", f"{what}: unexpected stderr: {unexpected_stderr(stderr)}")
        observations = ledger_view(self.ledger)
        per_run = collections.Counter(o["runId"] for o in observations)
        expected = {r: self.planned for r in self.done + [self.run_id]}
        check(dict(per_run) == expected, "loss" if sum(per_run.values()) < sum(expected.values()) else "duplicate",
              f"{what}: observations per run {dict(per_run)}, expected {expected}")
        keys = collections.Counter(key(o) for o in observations)
        check(max(keys.values()) == 1, "duplicate", f"{what}: an execution is recorded twice")
        bad = [o["execution"]["status"] for o in observations if o["execution"]["status"] != "completed"]
        check(not bad, "other", f"{what}: {len(bad)} observation(s) not completed: {bad[:3]}")
        check(os.path.getsize(self.ledger + ".journal") == 0, "other", f"{what}: the journal is not empty after the run")
        check(not os.path.exists(self.ledger + ".append-undo"), "other", f"{what}: an undo record is left")
        if kind == "process":
            self.check_calls()
        else:  # the server counts requests, not which execution asked: only the total is countable
            calls = server_requests() - self.server_before
            check(calls >= self.planned, "loss", f"{what}: {calls} endpoint requests for {self.planned} recorded executions")
            t.calls += calls
            t.repeated_in_flight += calls - self.planned
        t.studies += 1
        t.recorded += self.planned
        say(f"{what}: study {self.run_id} complete after {len(self.runs)} run(s), {len(before)} recorded before the "
            f"last, which executed {summary['executed']}")
        self.done.append(self.run_id)
        self.new_study()
        return False

    def check_calls(self):
        """No run asked the provider for an execution recorded before it started."""
        calls = calls_by_run()
        for tag, before in self.runs:
            asked = collections.Counter(
                (self.run_id,) + tuple(json.dumps(request(d)["task"].get(k)) for k in SIX) for d in calls.get(tag, []))
            self.t.calls += sum(asked.values())
            again = set(asked) & before
            check(not again, "re-asked", f"[process] run {tag}: {len(again)} execution(s) recorded before the run were "
                  f"asked again: {sorted(again)[:2]}")
            check(not asked or max(asked.values()) == 1, "re-asked", f"[process] run {tag}: an execution asked twice")
        asked_total = collections.Counter()
        for tag, _ in self.runs:
            for d in calls.get(tag, []):
                asked_total[d] += 1
        self.t.repeated_in_flight += sum(asked_total.values()) - len(asked_total)

    def next_kill(self):
        for _ in range(100):
            if self.one_run(True):
                return
        check(False, "other", f"[{self.kind}] 100 runs in a row ended before their kill")

    def finish(self):
        if self.runs:
            self.one_run(False)


class AdjudicateKind:
    """`strata adjudicate` of the run storm-input-a of input.json (16 of its 32 observations), one
    output per adjudication, resumed after every kill until a run ends by itself (or a kill lands
    after the output was written: the adjudication is complete)."""

    def __init__(self):
        self.t = totals["adjudicate"]
        self.source = f"{work}/adjudicate/input.json"
        self.config_hash = json.load(open(f"{work}/process.json"))["contentHash"]
        self.input = json.load(open(self.source))["observations"]
        self.selected = [o["contentHash"] for o in self.input if o["runId"] == "storm-input-a"]
        self.judge_request = self.map_requests()
        self.study = 0
        self.new_study()

    def args(self, output, *more):
        return ["adjudicate", self.source, f"{work}/suite.json", "--adjudicator", f"{work}/process.json",
                "--output", output, "--run-id", "storm-input-a", "--jobs", JOBS, "--text", *more]

    def map_requests(self):
        """judge request hash -> source observation: each selected observation judged alone once."""
        mapping = {}
        for i in range(len(self.selected)):
            output = f"{work}/adjudicate/map-{i:02d}.json"
            code, out, err = strata(*self.args(output, "--offset", str(i), "--limit", "1"),
                                    env=dict(os.environ, STORM_RUN=f"map-{i}"))
            check(code == 0, "other", f"mapping adjudication {i}: exit {code}: {err[:300]}")
            changed = [a["contentHash"] for a, b in zip(self.input, json.load(open(output))["observations"]) if a != b]
            check(changed == [self.selected[i]], "other", f"mapping adjudication {i} changed {changed}")
            judged = [r["adjudication"] for r in json.load(open(output))["observations"] if r["contentHash"] not in
                      {o["contentHash"] for o in self.input}]
            check([(a["status"], a["actor"]) for a in judged] == [("automated", "example-judge")], "other",
                  f"mapping adjudication {i}: {judged}")
            wait_for_orphans()
            digests = calls_by_run().get(f"map-{i}", [])
            check(len(digests) == 1, "other", f"mapping adjudication {i}: {len(digests)} judge calls")
            mapping[digests[0]] = self.selected[i]
        check(len(mapping) == len(self.selected), "other", "two selected observations gave the judge the same request")
        return mapping

    def new_study(self):
        self.study += 1
        self.output = f"{work}/adjudicate/output-{self.study:04d}.json"
        self.runs = []

    def state(self):
        lines, torn = journal_lines(self.output + ".adjudication-journal")
        seen = collections.defaultdict(set)
        sources = collections.Counter(line.get("source") for line in lines)
        check(not sources or max(sources.values()) == 1, "duplicate", f"{self.output}: the checkpoint holds a judgement twice")
        for line in lines:
            check(line.get("configuration") == self.config_hash and line.get("source") in self.selected, "other",
                  f"{self.output}: a checkpoint line names another configuration or source")
            seen[line["source"]].add(line["observation"]["contentHash"])
        return seen, torn

    def end_study(self, what, before):
        verify(self.output, "adjudicate", what)
        result = json.load(open(self.output))["observations"]
        check(len(result) == len(self.input), "loss" if len(result) < len(self.input) else "duplicate",
              f"{what}: {len(result)} observations, the input has {len(self.input)}")
        judged = collections.Counter()
        for o, r in zip(self.input, result):
            if o["contentHash"] in self.selected:
                a = r["adjudication"]
                check(r["task"] == o["task"] and r["execution"] == o["execution"] and r["runId"] == o["runId"], "loss",
                      f"{what}: observation {o['contentHash']} moved or changed")
                check((a["status"], a["actor"]) == ("automated", "example-judge"), "loss", f"{what}: adjudication {a}")
                judged[o["contentHash"]] += 1
            else:
                check(r == o, "other", f"{what}: the unselected observation {o['contentHash']} changed")
        check(sorted(judged) == sorted(self.selected) and max(judged.values()) == 1, "duplicate",
              f"{what}: judged {dict(judged)}")
        calls = calls_by_run()
        asked_total = collections.Counter()
        for tag, recorded in self.runs:
            asked = collections.Counter(self.judge_request.get(d, d) for d in calls.get(tag, []))
            check(set(asked) <= set(self.selected), "other", f"{what}: run {tag} asked the judge an unknown request")
            again = set(asked) & recorded
            check(not again, "re-asked", f"{what}: run {tag} asked the judge again for {len(again)} judgement(s) "
                  f"recorded before it: {sorted(again)[:2]}")
            check(not asked or max(asked.values()) == 1, "re-asked", f"{what}: run {tag} asked the judge twice for one observation")
            asked_total.update(asked)
        self.t.calls += sum(asked_total.values())
        self.t.repeated_in_flight += sum(asked_total.values()) - len(asked_total)
        self.t.studies += 1
        self.t.recorded += len(self.selected)
        say(f"{what}: adjudication {self.study} complete after {len(self.runs)} run(s), {len(before)} judged before the last")
        self.new_study()

    def one_run(self, kill):
        t = self.t
        before, _ = self.state()
        before = {k: next(iter(v)) for k, v in before.items()}
        tag = f"storm-adjudicate-{self.study:04d}.{len(self.runs) + 1}"
        self.runs.append((tag, set(before)))
        out, err = f"{work}/adjudicate/run.out", f"{work}/adjudicate/run.err"
        point = kill_point(len(self.selected) - len(before)) if kill else None
        killed, code, where = launch(self.args(self.output), dict(os.environ, STORM_RUN=tag), point, out, err,
                                     self.output + ".adjudication-journal")
        wait_for_orphans()
        t.runs += 1
        what = f"[adjudicate] run {tag} ({where if killed else 'not killed'})"
        seen, torn = self.state()
        for s, h in seen.items():
            check(len(h) == 1, "duplicate", f"{what}: observation {s} judged and recorded {len(h)} times")
        if os.path.exists(self.output):  # the checkpoint was folded into the output (and may be emptied)
            written = {o["contentHash"] for o in json.load(open(self.output))["observations"]}
            kept = {s: {h} for s, h in before.items() if h in written}
        else:
            kept = seen
        for s, h in before.items():
            check(kept.get(s) == {h}, "loss", f"{what}: the judgement of {s} recorded before the run was lost or changed")
        if killed:
            t.kills += 1
            t.points[point_class(point)] += 1
            t.mid_run += len(seen) > len(before)
            t.torn += torn > 0
            written = os.path.exists(self.output)
            say(f"{what}: {len(before)} -> {len(seen)} judged{', torn tail of %d bytes' % torn if torn else ''}"
                f"{', the output was already written' if written else ''}")
            if written:  # killed after the output was written: the adjudication is complete
                self.end_study(what, before)
            return True
        t.finished += 1
        stderr = open(err).read()
        check(code == 0, "other", f"{what}: exit {code}: {stderr[:400]}")
        check(open(out).read().startswith(f"Adjudicated observations: {len(self.input)}\n"), "other",
              f"{what}: stdout {open(out).read()[:200]}")
        check(not unexpected_stderr(stderr), "other", f"{what}: unexpected stderr: {unexpected_stderr(stderr)}")
        check(os.path.getsize(self.output + ".adjudication-journal") == 0, "other", f"{what}: the checkpoint is not empty")
        self.end_study(what, before)
        return False

    def next_kill(self):
        for _ in range(100):
            if self.one_run(True):
                return
        check(False, "other", "[adjudicate] 100 runs in a row ended before their kill")

    def finish(self):
        if self.runs:
            self.one_run(False)


def kills():
    return sum(t.kills for t in totals.values())


def summary():
    wall = time.monotonic() - started
    rows = [("kind", "kills", "runs", "ended", "studies", "recorded", "mid-run", "torn", "undo", "calls", "in-flight", "verify")]
    for kind, t in totals.items():
        rows.append((kind, t.kills, t.runs, t.finished, t.studies, t.recorded, t.mid_run, t.torn, t.undo,
                     t.calls, t.repeated_in_flight, t.verified))
    s = [sum(r[i] for r in rows[1:] if isinstance(r[i], int)) for i in range(1, len(rows[0]))]
    rows.append(("total", *s))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    print(f"storm: {kills()} kills of {iterations}, seed {seed}, wall {wall:.0f} s ({wall / 60:.1f} min)")
    for r in rows:
        print("  " + "  ".join(str(v).rjust(w) if i else str(v).ljust(w) for i, (v, w) in enumerate(zip(r, widths))))
    for kind, t in totals.items():
        print(f"  {kind} kill points: {t.points['start-up']} in start-up (+0), {t.points['mid-run']} mid-run, "
              f"{t.points['fold']} in the fold (after the last record)")
    recorded = totals["process"].recorded + totals["endpoint"].recorded
    print(f"  executions recorded in completed studies: {recorded}; judgements recorded: {totals['adjudicate'].recorded}")
    print(f"  losses {problems['loss']}, duplicates {problems['duplicate']}, re-asked after recorded "
          f"{problems['re-asked']}, verify failures {problems['verify']}, other failures {problems['other']}")
    print("  (ended: runs that ended by themselves, each completing a study; mid-run: kills after new records; "
          "torn: kills that left a torn journal tail; undo: kills that left an append undo record; calls: "
          "provider, endpoint (the test server's count) or judge calls in completed studies; in-flight: calls "
          "made again because the run that made them first was killed before recording them)", flush=True)


try:
    kinds = [RunKind("process"), RunKind("endpoint"), AdjudicateKind()]
    print(f"storm: {iterations} kills over process, endpoint and adjudicate (seed {seed}; every run in {work}/storm.log)",
          flush=True)
    i = 0
    while kills() < iterations:
        kinds[i % 3].next_kill()
        i += 1
        if kills() % PROGRESS == 0 or kills() == iterations:
            print(f"storm: {kills()}/{iterations} kills, "
                  f"{sum(t.studies for t in totals.values())} studies complete, "
                  f"losses {problems['loss']}, duplicates {problems['duplicate']}, "
                  f"{time.monotonic() - started:.0f} s", flush=True)
    for k in kinds:
        k.finish()  # the open studies, to their end
except Failed:
    summary()
    sys.exit(1)
summary()
sys.exit(0)
PY

# The adjudication's input: two runs of the example study in one ledger (made through storm-log).
cp "$EXAMPLES/run-plan.payload.json" "$WORK/adjudicate/plan.payload.json"
for run in a b; do
  python3 - "$WORK" "$run" <<'PY'
import json, sys
work, run = sys.argv[1:3]
plan = json.load(open(f"{work}/adjudicate/plan.payload.json"))
plan["runId"] = f"storm-input-{run}"
plan["taskSuiteHash"] = json.load(open(f"{work}/suite.json"))["contentHash"]
json.dump(plan, open(f"{work}/adjudicate/plan-{run}.payload.json", "w"))
PY
  "$STRATA" seal run-plan "$WORK/adjudicate/plan-$run.payload.json" -o "$WORK/adjudicate/plan-$run.json" >/dev/null
  STORM_RUN=input "$STRATA" run "$WORK/adjudicate/plan-$run.json" "$WORK/suite.json" --providers "$WORK/process.json" \
    --repositories "$WORK/repos.json" --ledger "$WORK/adjudicate/input.json" --jobs 2 --json >/dev/null
done

python3 "$WORK/storm.py" "$ITERATIONS" "$SEED" "$WORK" "$STRATA" "$EXAMPLES"
