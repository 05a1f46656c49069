#!/usr/bin/env bash
# Crash loops (issue "Reliability and security", item 2): `strata run` with process providers,
# `strata run` with endpoint providers (the test HTTPS server, answering after 40 ms) and
# `strata adjudicate` are each SIGKILLed at ITERATIONS random points (default 50), re-run with
# the same arguments after every kill. A kill point is drawn on the run's observed progress, not
# on a clock (a clock measured once is wrong on a machine busier than when it was measured: most
# kills then landed after the run had ended). A run is left to end by itself with probability
# 1/3; else, with `remaining` executions (judgements) not yet recorded before the run, k is
# uniform in 0..remaining and the driver, polling every 1 ms, SIGKILLs the run as soon as its
# journal (<ledger>.journal; <output>.adjudication-journal) holds k complete lines more than at
# launch. k = 0 kills in start-up (uniform 0..30 ms after launch, or at the first new line if
# that comes first); k = remaining kills in the fold: 0..30 ms after the last line, or as soon as
# the fold is seen to empty the journal if that comes first. So kills land at start-up, mid-run
# and in the fold alike, however fast or busy the machine.
# A run that ended before it was killed closes an "epoch" (a run id, or an adjudication output)
# and the next one starts; five epochs of a run share a ledger, so later epochs exercise the
# in-place append of a run's block. Only real kills count towards ITERATIONS.
#
# After every kill: the ledger (as readers see it, honouring an append undo record) and the
# journal's complete lines hold each execution at most once; nothing recorded before the run is
# lost or changed; `strata verify` passes and counts exactly the journal's complete lines, and
# reports a torn last line as dropped. After about half of the kills a torn record is added to
# the journal: a genuine sealed observation (or checkpoint line) of an execution not yet recorded,
# cut short (all its bytes but the newline, or a random prefix). `strata verify` must accept that
# record with its newline (a control) and drop it without; it must never be counted.
# When an epoch ends: exit 0, the summary executes exactly what was not recorded, a torn tail is
# reported as dropped, every execution is recorded exactly once (counted by execution key) and
# completed, every earlier epoch is intact, the journal is empty, `strata verify` passes.
# The process provider and the judge (a C program compiled here) log every call with a hash of
# its request and the run that made it: no run requests an execution recorded before it started.
#
# Usage: crash_loop_test.sh <strata> <strata-test-server> <fixtures dir> [iterations=50] [seed] [kinds]
#   The seed (default: fresh, printed; or $STRATA_CRASH_SEED) fixes the kill points (whether a run
#   is killed, where as a share of what remains to be recorded, the delays) and the torn records;
#   timing still varies, so a seed reproduces the schedule, not the exact interleaving. kinds: any
#   of "process endpoint adjudicate".
set -u
SOURCE_BINARY=$(realpath "$1")
SERVER=$(realpath "$2")
FIX=$(realpath "$3")
ITERATIONS=${4:-50}
SEED=${5:-${STRATA_CRASH_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}}
KINDS=${6:-process endpoint adjudicate}
. "$(dirname "$0")/lib.sh"
JOBS=16
CODE=0  # for fail() of lib.sh, before the first `run`

echo "crash loop test: $ITERATIONS kills each for: $KINDS; seed $SEED" \
  "(re-run: $0 <strata> <server> <fixtures> $ITERATIONS $SEED '$KINDS')"
case $ITERATIONS in '' | *[!0-9]*) echo "FAIL: iterations must be a number, got '$ITERATIONS'" >&2; exit 1 ;; esac

# A private copy of the binary: a rebuild during the test cannot swap it.
cp "$SOURCE_BINARY" "$WORK/strata"
STRATA=$WORK/strata
"$STRATA" --help >/dev/null 2>&1 || { echo "FAIL: $SOURCE_BINARY does not run (being rebuilt?)" >&2; exit 1; }
mkdir -p "$WORK/bin"

# --- the provider and the judge ----------------------------------------------------------------
# crashloop <provider|judge> <call log> <max sleep ms>: reads the whole request, appends
# "<run tag> <call id> <FNV-1a of the request> <1 if the request looks complete>" to the call log
# (one O_APPEND write), sleeps 0..max ms, and answers with the call id as a measurement, so the
# ledger shows which call produced each record. The run tag comes from CRASH_LOOP_RUN, which the
# configs allow through (envAllowlist): an orphan of a killed run still logs under its own run.
cat >"$WORK/crashloop.c" <<'C'
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  size_t end = len;
  while (end > 0 && (buf[end - 1] == '\n' || buf[end - 1] == ' ')) end--;
  const int complete = end > 0 && buf[end - 1] == '}';
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  const long long call = ((long long)(now.tv_sec % 100000) * 1000000 + now.tv_nsec / 1000) * 1000 + getpid() % 1000;
  const char* tag = getenv("CRASH_LOOP_RUN");
  char line[160];
  const int w = snprintf(line, sizeof line, "%s %lld %016llx %d\n", tag ? tag : "-", call, (unsigned long long)hash, complete);
  const int fd = open(argv[2], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || w <= 0 || write(fd, line, (size_t)w) != w) return 3;
  close(fd);
  srand((unsigned)call);
  usleep((useconds_t)(rand() % (atol(argv[3]) + 1)) * 1000);
  if (strcmp(argv[1], "judge") == 0)
    printf("{\"outcome\":\"success\",\"confidence\":0.75,\"reasonCodes\":[\"crash-loop\"],"
           "\"measurements\":{\"crashLoopJudgeCall\":%lld}}\n", call);
  else
    printf("{\"inputTokens\":3,\"outputTokens\":5,\"tokenMethod\":\"provider\",\"measurements\":{\"crashLoopCall\":%lld}}\n", call);
  return fflush(stdout) == 0 ? 0 : 5;
}
C
cc -O2 -o "$WORK/bin/crashloop" "$WORK/crashloop.c" || { echo "FAIL: cannot compile the provider" >&2; exit 1; }

# --- the study -----------------------------------------------------------------------------------
# The fixture suite (24 tasks, 6 repositories) and its plan with pairwise sampling of all 96
# (task, model, scenario) cells, one attempt, 10 s per attempt. Providers and judge answer
# after 0-30 ms; 16 jobs. Plans (one run id per epoch) are sealed by the driver below.
python3 - "$WORK" "$FIX/run-plan-v1.json" "$JOBS" <<'PY'
import json, sys
from study_payloads import FIXTURE_REPOSITORIES, provider_entries, unsealed, write_provider_config, write_repository_config
work, plan_path, jobs = sys.argv[1:4]
plan = unsealed(plan_path)
plan["sampling"] = {"strategy": "pairwise-task-strata", "sampleSize": 4 * len(plan["taskIds"]),
                    "scenarioIds": ["repository-only", "deterministic-doc-bridge"]}
plan["budget"] = {"maxTokens": 400000, "maxRuntimeMs": 10000, "maxOutputBytes": 256000, "maxAttempts": 1}
json.dump(plan, open(f"{work}/plan-template.json", "w"))
write_repository_config(f"{work}/repos", FIXTURE_REPOSITORIES, f"{work}/repos.payload.json")
write_provider_config(provider_entries(f"{work}/bin/crashloop", ["provider", f"{work}/process/calls.log", "30"],
                                       envAllowlist=["CRASH_LOOP_RUN"]), f"{work}/process.payload.json")
json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1",
           "providers": [{"modelId": "low-cost-model", "scenarioIds": ["repository-only"], "command": "true",
                          "providerNetwork": False, "maxInputBytes": 1000, "maxOutputBytes": 1000}],
           "adjudicator": {"id": "crash-judge", "modelId": "reference-model", "command": f"{work}/bin/crashloop",
                           "args": ["judge", f"{work}/adjudicate/calls.log", "30"], "envAllowlist": ["CRASH_LOOP_RUN"],
                           "providerNetwork": False, "maxInputBytes": 1000000, "maxOutputBytes": 10000}},
          open(f"{work}/judge.payload.json", "w"))
json.dump({"type": "controlled-study-observation-ledger", "schemaVersion": 1, "ledgerVersion": "v1",
           "observations": []}, open(f"{work}/empty.payload.json", "w"))
PY
# The endpoint config: the process entries calling the test server instead, at most 16 in flight.
endpoint_study "$WORK/process.payload.json" "$WORK/endpoint.payload.json" maxConcurrency=16 parameters= pricing= \
  envAllowlist=
mkdir -p "$WORK/process" "$WORK/endpoint" "$WORK/adjudicate" "$WORK/control"
"$STRATA" seal repository-config "$WORK/repos.payload.json" -o "$WORK/repos.json" >/dev/null
for config in process endpoint judge; do
  "$STRATA" seal provider-config "$WORK/$config.payload.json" -o "$WORK/$config.json" >/dev/null
done
"$STRATA" seal ledger "$WORK/empty.payload.json" -o "$WORK/control/empty.json" >/dev/null

# Orphans of a SIGKILLed strata lead their own process groups and end on their own (<= 30 ms).
kill_leftovers() {
  local pid
  for pid in $(pgrep -f "^$WORK/bin/crashloop " || true); do
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
  done
}

if [[ " $KINDS " == *" endpoint "* ]]; then
  start_test_server "$SERVER"
  trap 'kill_leftovers; exec 3>&-; wait $SERVER_PID 2>/dev/null; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
  control POST reply --data-binary '{"taskOutcome":"partial","evidenceQuality":"medium","safetyOutcome":"safe","evidenceIds":[],"inputTokens":1,"outputTokens":1,"tokenMethod":"estimate"}' >/dev/null
  fault delay:40  # every answer after 40 ms: kills land while calls are in flight
  export STUDY_BASE_URL=https://127.0.0.1:$PORT/v1 STUDY_API_KEY=sk-crash-loop-test
else
  trap 'kill_leftovers; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
fi

# --- the driver ----------------------------------------------------------------------------------
cat >"$WORK/crash_loop.py" <<'PY'
# crash_loop.py <kind> <iterations> <seed> <work> <strata> <jobs>
import collections, json, os, random, signal, subprocess, sys, time

kind, iterations, seed, work, strata_path, jobs = sys.argv[1:7]
iterations = int(iterations)
rng = random.Random(f"{seed}/{kind}")
errors = []
SIX = ("taskId", "repositoryId", "scenarioId", "modelId", "replicate", "variantId")
ALLOWED_STDERR = ("dropped an incomplete last line", "dropped an invalid line",
                  "undid an append cut short")
HANG = 120  # seconds: a run that takes longer (or an orphan that outlives 10 s) is a hang


def check(ok, message):
    if not ok:
        errors.append(message)
        print(f"FAIL [{kind}]: {message}", file=sys.stderr, flush=True)
    return ok


def strata(*args, env=None):
    p = subprocess.run([strata_path, *args], capture_output=True, text=True, env=env, timeout=HANG)
    return p.returncode, p.stdout, p.stderr


def key(o):
    return (o["runId"],) + tuple(json.dumps(o["task"].get(k)) for k in SIX)


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def orphans():
    p = subprocess.run(["pgrep", "-f", f"^{work}/bin/crashloop "], capture_output=True, text=True)
    return p.stdout.split()


def wait_for_orphans():
    deadline = time.monotonic() + 10
    while orphans():
        if time.monotonic() > deadline:
            check(False, f"providers still running 10 s after their strata was killed: {orphans()}")
            for pid in orphans():
                try:
                    os.killpg(int(pid), signal.SIGKILL)
                except OSError:
                    pass
            return
        time.sleep(0.01)


STARTUP = 0.03  # seconds: a start-up kill lands uniformly within this after launch, a fold kill after the last line
# The share of runs left to end by itself, whatever remains to be recorded: about the share that
# ended before their kill with the former clock-based schedule on an unstressed machine (23-26 of
# 73-76 runs). Epochs close as often as before, and many close with executions still missing, which is
# when a torn record can be in the journal and its drop must be reported ("drop(s) reported"). A
# schedule ending a run by itself with probability 1/(remaining+2) closed most epochs with nothing
# missing, so that check ran 0-5 times per kind instead of 6-13.
END_BY_ITSELF = 1 / 3
POLL = 0.001  # seconds between two looks at the journal of a run to be killed


def kill_point(remaining):
    """Where the next run is killed, with `remaining` records not made before it: (k, delay, last),
    k uniform in 0..remaining, last: k is the last record (see launch); or None (probability
    END_BY_ITSELF: no kill, the run ends by itself and closes its epoch). All three numbers are
    drawn every time, so the seed fixes the same sequence of draws whatever the timing did."""
    ends, share, delay = rng.random(), rng.random(), rng.uniform(0, STARTUP)
    if ends < END_BY_ITSELF:
        return None
    k = min(int(share * (remaining + 1)), remaining)
    return (k, delay, k == remaining)


class JournalProgress:
    """Counts the complete lines a run adds to its journal, reading only what is new since the
    last look. Bytes after the last newline (a torn tail, a line being written) are not consumed,
    so strata cutting a torn tail off at start-up is not a shrink. A shrink below what was counted
    (or the file replaced or removed) is a fold emptying the journal: counting restarts at 0, from
    a base of 0, and `folded` is set."""

    def __init__(self, path):
        self.path, self.offset, self.lines, self.base, self.inode, self.folded = path, 0, 0, 0, None, False
        self.poll()
        self.base = self.lines  # what was there before the run

    def poll(self):
        """The complete lines added since launch."""
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


def launch(args, env, point, out, err, journal=None):
    """Runs strata. point None: never killed. Else (k, delay, last): SIGKILLed as soon as
    `journal` holds k complete lines more than at launch (polled every POLL s), or once a fold
    has emptied it (the run is past its last line: a later kill point can no longer be reached).
    k = 0: `delay` s after launch (start-up), or at the first new line if that comes sooner.
    last (k is the run's last record): `delay` s after the k-th line, in the fold, or when the
    fold is seen to empty the journal if that comes sooner. A run that ends first is simply not
    killed. Returns (killed, exit code, where the kill landed)."""
    watch = JournalProgress(journal) if point is not None else None  # the base: before strata starts
    with open(out, "wb") as o, open(err, "wb") as e:
        proc = subprocess.Popen([strata_path, *args], stdout=o, stderr=e, env=env)
    started = time.monotonic()
    where = ""
    if point is not None:
        k, delay, last = point
        reached = started if k == 0 else None  # when the k-th new line was seen
        while proc.poll() is None and time.monotonic() - started < HANG:
            added = watch.poll()
            now = time.monotonic()
            if reached is None and added >= k:
                reached = now
            if (k == 0 and added >= 1) or watch.folded or \
                    (reached is not None and (now - reached >= delay or (k > 0 and not last))):
                proc.send_signal(signal.SIGKILL)  # a no-op when strata has just ended by itself
                where = (f"kill point +{k} line(s){' (the last, in the fold)' if last and k else ''}: killed "
                         f"{(now - started) * 1000:.0f} ms after launch at +{added}"
                         f"{', after the fold emptied the journal' if watch.folded else ''}")
                break
            time.sleep(POLL)
    try:
        code = proc.wait(timeout=max(1, HANG - (time.monotonic() - started)))
    except subprocess.TimeoutExpired:
        check(False, f"strata {args[0]} did not end within {HANG} s (hang): {' '.join(args)}")
        proc.kill()
        code = proc.wait()
    for path in (out, err):  # a file gone missing is a failure to report, not a crash of this driver
        if not check(os.path.exists(path), f"{path} is missing after the run"):
            open(path, "w").close()
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
            check(False, f"{path}: complete line {number} is not JSON: {line[:80]!r}")
            break
    return parsed, len(tail)


def unexpected_stderr(text):
    return [l for l in text.splitlines() if l.strip() and not any(a in l for a in ALLOWED_STDERR)]


def verify(path, journal_lines_expected=None, torn=None, what=""):
    """strata verify passes on path; its journal count is exactly the complete lines."""
    code, out, err = strata("verify", "--json", path)
    if not check(code == 0, f"{what}: strata verify {path} failed: {out[-400:]} {err[-200:]}"):
        return
    report = json.loads(out)["files"][0]
    journal = report.get("journal", {})
    if journal_lines_expected is not None:
        check(journal.get("observations", 0) == journal_lines_expected,
              f"{what}: verify counts {journal.get('observations', 0)} journal observations, the journal has "
              f"{journal_lines_expected} complete lines")
    if torn is not None:
        check(("dropped" in journal) == (torn > 0),
              f"{what}: verify reports {journal.get('dropped')!r} for a torn tail of {torn} bytes")


# The torn-record control: the record is a valid journal line (counted with its newline) and
# only torn (dropped without it). Uses an empty sealed ledger of its own.
def control_torn_record(line, what):
    empty = f"{work}/control/empty.json"
    with open(empty + ".journal", "wb") as f:
        f.write(line + b"\n")
    verify(empty, 1, 0, f"{what} (control: the record with its newline is counted)")
    with open(empty + ".journal", "wb") as f:
        f.write(line)
    verify(empty, 0, len(line), f"{what} (control: the same record without its newline is dropped)")


def cut(line):
    """A torn copy of a record: all but its newline, or a random prefix."""
    if rng.random() < 0.5:
        return line, "all its bytes but the newline"
    n = rng.randrange(1, len(line))
    return line[:n], f"the first {n} of {len(line)} bytes"


def calls_log():
    calls = {}
    try:
        for line in open(f"{work}/{kind}/calls.log"):
            tag, call, digest, complete = line.split()
            calls[int(call)] = (tag, digest, complete == "1")
    except FileNotFoundError:
        pass
    return calls


def analyse_calls(runs, final, measurement, what):
    """No run requested an execution recorded before it started; none twice in one run.
    runs: [(tag, recorded-before set of ids)]; final: id -> observation carrying `measurement`."""
    calls = calls_log()
    digest_of = {}
    for ident, o in final.items():
        call = o.get("measurements", {}).get(measurement)
        if not check(call in calls, f"{what}: the record of {ident} names no logged call ({call})"):
            return
        digest_of[ident] = calls[call][1]
    id_of = {d: i for i, d in digest_of.items()}
    if not check(len(id_of) == len(digest_of), f"{what}: two executions had the same request"):
        return
    tags = {tag for tag, _ in runs}
    for tag, before in runs:
        asked = [id_of.get(d) for t, d, complete in calls.values() if t == tag]
        known = [i for i in asked if i is not None]
        again = set(known) & before
        check(not again, f"{what}, run {tag}: {len(again)} execution(s) recorded before the run were requested again")
        check(len(known) == len(set(known)), f"{what}, run {tag}: an execution was requested twice in one run")
    return sum(1 for t, _, _ in calls.values() if t in tags)


class Stats:
    def __init__(self):
        self.kills = self.finished = self.injected = self.natural_torn = self.mid_run = 0
        self.epochs = 0
        self.dropped_reported = 0


stats = Stats()


# --- strata run (process and endpoint providers) -----------------------------------------------
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
        check(undo[:2] == ["strata-append-undo", "1"] and len(undo) == 5, f"damaged undo record {undo}")
        if int(undo[2]) == os.stat(path).st_ino:
            raw = raw[:int(undo[3])] + closing(undo[4])
    return json.loads(raw)["observations"]


def run_kind():
    ledger = None  # epochs 1-5 share ledger-1.json, 6-10 ledger-2.json, ... (bounded test time)
    providers = f"{work}/{kind}.json"

    def plan_for(run_id):
        template = json.load(open(f"{work}/plan-template.json"))
        template["runId"] = run_id
        suite_hash = json.load(open(f"{work}/suite.json"))["contentHash"]
        template["taskSuiteHash"] = suite_hash
        payload, sealed = f"{work}/{kind}/{run_id}.payload.json", f"{work}/{kind}/{run_id}.json"
        json.dump(template, open(payload, "w"))
        code, out, err = strata("seal", "run-plan", payload, "-o", sealed)
        assert code == 0, err
        return sealed, json.load(open(sealed))["contentHash"]

    def args(plan, path):
        return ["run", plan, f"{work}/suite.json", "--providers", providers, "--repositories", f"{work}/repos.json",
                "--ledger", path, "--jobs", jobs, "--json"]

    def state(run_id):
        """key -> contentHashes over the ledger and the journal's complete lines; the lines; the torn bytes."""
        lines, torn = journal_lines(ledger + ".journal")
        seen = collections.defaultdict(set)
        for o in ledger_view(ledger) + lines:
            if o["runId"] == run_id:
                seen[key(o)].add(o["contentHash"])
        return seen, lines, torn

    # Calibration: one whole run, timed; its observations are the material of the torn records.
    plan, _ = plan_for(f"crash-loop-{kind}-calibration")
    calibration = f"{work}/{kind}/calibration.json"
    start = time.monotonic()
    killed, code, _ = launch(args(plan, calibration), dict(os.environ, CRASH_LOOP_RUN="calibration"), None,
                             f"{work}/{kind}/calibration.out", f"{work}/{kind}/calibration.err")
    whole = time.monotonic() - start
    if not check(code == 0, f"calibration run: exit {code}: {open(f'{work}/{kind}/calibration.err').read()[:400]}"):
        return
    planned = json.load(open(f"{work}/{kind}/calibration.out"))["summary"]["planned"]
    material = {key(o)[1:]: o for o in json.load(open(calibration))["observations"]}
    check(len(material) == planned, f"calibration: {len(material)} distinct executions for {planned} planned")
    print(f"[{kind}] {planned} executions per run; a whole run takes {whole * 1000:.0f} ms; kills at observed "
          "journal progress", flush=True)

    epoch_number = 0
    epoch = None
    done_runs = []  # run ids of the finished epochs of this ledger
    last_done = None  # (run id, ledger) of the last finished epoch

    def new_epoch():
        nonlocal epoch, epoch_number, ledger
        epoch_number += 1
        if epoch_number % 5 == 1:
            ledger = f"{work}/{kind}/ledger-{epoch_number // 5 + 1}.json"
            done_runs.clear()
        run_id = f"crash-loop-{kind}-{epoch_number:02d}"
        plan, plan_hash = plan_for(run_id)
        epoch = {"run_id": run_id, "plan": plan, "plan_hash": plan_hash, "runs": [], "injected": set()}

    def inject(seen, what):
        missing = [k for k in material if (epoch["run_id"],) + k not in seen]
        if not missing:
            return
        o = dict(material[rng.choice(sorted(missing))])
        o["runId"], o["planHash"] = epoch["run_id"], epoch["plan_hash"]
        payload, sealed = f"{work}/control/observation.payload.json", f"{work}/control/observation.json"
        json.dump(o, open(payload, "w"))
        code, out, err = strata("seal", "observation", payload, "-o", sealed)
        if not check(code == 0, f"{what}: cannot seal the torn record's observation: exit {code}: {err}"):
            return
        o = json.load(open(sealed))
        line = compact(o).encode()
        control_torn_record(line, what)
        torn, how = cut(line)
        with open(ledger + ".journal", "ab") as f:
            f.write(torn)
        epoch["injected"].add(o["contentHash"])
        stats.injected += 1
        print(f"[{kind}] {what}: added a torn record to the journal ({how})", flush=True)

    def one_run(kill):
        nonlocal last_done
        run_id = epoch["run_id"]
        before, _, torn_before = state(run_id)
        before = {k: next(iter(v)) for k, v in before.items()}
        tag = f"{epoch_number}.{len(epoch['runs']) + 1}"
        epoch["runs"].append((tag, set(before)))
        out, err = f"{work}/{kind}/run-{tag}.out", f"{work}/{kind}/run-{tag}.err"
        point = kill_point(planned - len(before)) if kill else None
        killed, code, where = launch(args(epoch["plan"], ledger), dict(os.environ, CRASH_LOOP_RUN=tag), point, out, err,
                                     ledger + ".journal")
        wait_for_orphans()
        what = f"run {tag} ({where if killed else 'finished'})"
        seen, lines, torn = state(run_id)
        in_journal = collections.Counter(key(o) for o in lines)
        check(not in_journal or max(in_journal.values()) == 1, f"{what}: the journal holds an execution twice")
        for k, hashes in seen.items():
            check(len(hashes) == 1, f"{what}: execution {k} recorded {len(hashes)} times with different contents")
        for k, h in before.items():
            check(seen.get(k) == {h}, f"{what}: the record of {k} made before the run was lost or changed")
        check(len(seen) <= planned, f"{what}: {len(seen)} executions recorded, {planned} planned")
        check(not (epoch["injected"] & {h for v in seen.values() for h in v}), f"{what}: a torn record was counted")
        if os.path.exists(ledger):
            verify(ledger, len(lines), torn, what)
        if killed:
            stats.kills += 1
            stats.mid_run += len(seen) > len(before)
            if torn > 0 and torn_before == 0:
                stats.natural_torn += 1
            print(f"[{kind}] kill {stats.kills}: {what}: {len(before)} -> {len(seen)} of {planned} recorded"
                  f"{', torn tail of %d bytes' % torn if torn else ''}"
                  f"{', an append undo record left' if os.path.exists(ledger + '.append-undo') else ''}", flush=True)
            if torn == 0 and rng.random() < 0.5:
                inject(seen, f"kill {stats.kills}")
            return
        # The run ended by itself: the epoch is complete.
        stats.finished += 1
        stderr = open(err).read()
        if not check(code == 0, f"{what}: exit {code}: {stderr[:400]}"):
            return
        summary = json.load(open(out))["summary"]
        check((summary["status"], summary["planned"], summary["executed"], summary["skipped"]) ==
              ("completed", planned, planned - len(before), len(before)),
              f"{what}: summary {summary}; {len(before)} were recorded before the run")
        if torn_before:
            stats.dropped_reported += 1
            check("dropped an incomplete last line" in stderr, f"{what}: the torn journal tail was not reported: {stderr!r}")
        check(not unexpected_stderr(stderr), f"{what}: unexpected stderr: {unexpected_stderr(stderr)}")
        observations = ledger_view(ledger)
        done_runs.append(run_id)
        last_done = (run_id, ledger)
        per_run = collections.Counter(o["runId"] for o in observations)
        check(dict(per_run) == {r: planned for r in done_runs}, f"{what}: observations per run {dict(per_run)}")
        keys = collections.Counter(key(o) for o in observations)
        check(max(keys.values()) == 1, f"{what}: an execution is recorded twice")
        bad = [o["execution"]["status"] for o in observations if o["execution"]["status"] != "completed"]
        check(not bad, f"{what}: {len(bad)} observation(s) not completed: {bad[:3]}")
        check(os.path.getsize(ledger + ".journal") == 0, f"{what}: the journal is not empty after the run")
        check(not os.path.exists(ledger + ".append-undo"), f"{what}: an undo record is left")
        verify(ledger, 0, 0, what)
        if kind == "process":
            final = {key(o): o for o in observations if o["runId"] == run_id}
            analyse_calls(epoch["runs"], final, "crashLoopCall", f"epoch {epoch_number}")
        print(f"[{kind}] epoch {epoch_number} ({run_id}) complete after {len(epoch['runs'])} run(s): "
              f"{len(before)} recorded before the last run, it executed {summary['executed']}", flush=True)
        stats.epochs += 1
        new_epoch()

    new_epoch()
    attempts = 0
    while stats.kills < iterations:
        attempts += 1
        if not check(attempts <= 6 * iterations + 10, f"only {stats.kills} of {attempts} runs were killed before they ended"):
            break
        one_run(True)
    if epoch["runs"]:
        one_run(False)  # the last epoch, to its end
    # A re-run of the last complete epoch executes nothing.
    if last_done:
        plan, _ = plan_for(last_done[0])
        code, out, err = strata(*args(plan, last_done[1]))
        summary = json.loads(out)["summary"] if code == 0 else {}
        check(code == 0 and (summary["executed"], summary["skipped"]) == (0, planned), f"re-run: exit {code} {summary} {err[:300]}")


# --- strata adjudicate ---------------------------------------------------------------------------
def adjudicate_kind():
    source = f"{work}/adjudicate/input.json"
    config_hash = json.load(open(f"{work}/judge.json"))["contentHash"]
    observations = json.load(open(source))["observations"]
    count = len(observations)
    hashes = [o["contentHash"] for o in observations]

    def args(output):
        return ["adjudicate", source, f"{work}/suite.json", "--adjudicator", f"{work}/judge.json",
                "--output", output, "--jobs", jobs, "--text"]

    def state(output):
        """source hash -> adjudicated observation hashes; the torn bytes."""
        lines, torn = journal_lines(output + ".adjudication-journal")
        seen = collections.defaultdict(set)
        sources = collections.Counter(line.get("source") for line in lines)
        check(not sources or max(sources.values()) == 1, f"{output}: the checkpoint holds a judgement twice")
        for number, line in enumerate(lines, 1):
            if not check(line.get("configuration") == config_hash and line.get("source") in hashes,
                         f"{output}: checkpoint line {number} names another configuration or no source"):
                continue
            seen[line["source"]].add(line["observation"]["contentHash"])
        return seen, torn

    def check_output(output, what, injected):
        if not check(os.path.exists(output), f"{what}: no output"):
            return None
        verify(output, what=what)
        result = json.load(open(output))["observations"]
        if not check(len(result) == count, f"{what}: {len(result)} observations, the input has {count}"):
            return None
        for o, r in zip(observations, result):
            a = r["adjudication"]
            check(r["task"] == o["task"] and r["execution"] == o["execution"] and r["runId"] == o["runId"],
                  f"{what}: observation {o['task']['taskId']} moved or changed")
            check((a["status"], a["actor"], a.get("outcome")) == ("automated", "crash-judge", "success"),
                  f"{what}: adjudication {a}")
        check(not (injected & {r["contentHash"] for r in result}), f"{what}: a torn checkpoint record was used")
        return result

    calibration = f"{work}/adjudicate/calibration.json"
    start = time.monotonic()
    killed, code, _ = launch(args(calibration), dict(os.environ, CRASH_LOOP_RUN="calibration"), None,
                             f"{work}/adjudicate/calibration.out", f"{work}/adjudicate/calibration.err")
    whole = time.monotonic() - start
    if not check(code == 0, f"calibration: exit {code}: {open(f'{work}/adjudicate/calibration.err').read()[:400]}"):
        return
    material = check_output(calibration, "calibration", set())
    if material is None:
        return
    print(f"[adjudicate] {count} observations per adjudication; a whole one takes {whole * 1000:.0f} ms; "
          "kills at observed checkpoint progress", flush=True)
    # Control: a complete checkpoint line made from the calibration is reused as it is.
    control = f"{work}/control/adjudicated.json"
    with open(control + ".adjudication-journal", "wb") as f:
        f.write(compact({"source": hashes[0], "configuration": config_hash, "observation": material[0]}).encode() + b"\n")
    killed, code, _ = launch(args(control), dict(os.environ, CRASH_LOOP_RUN="control"), None,
                             f"{work}/control/adjudicated.out", f"{work}/control/adjudicated.err")
    used = check_output(control, "control", set()) if code == 0 else None
    check(used is not None and used[0]["contentHash"] == material[0]["contentHash"],
          "control: a complete checkpoint line made from the calibration is not reused (the torn records prove nothing)")
    # And the same line without its newline is dropped, with a message, whatever the kills do.
    control = f"{work}/control/torn.json"
    line = compact({"source": hashes[0], "configuration": config_hash, "observation": material[0]}).encode()
    with open(control + ".adjudication-journal", "wb") as f:
        f.write(line)
    killed, code, _ = launch(args(control), dict(os.environ, CRASH_LOOP_RUN="control"), None,
                             f"{work}/control/torn.out", f"{work}/control/torn.err")
    used = check_output(control, "control (torn)", {material[0]["contentHash"]}) if code == 0 else None
    stderr = open(f"{work}/control/torn.err").read()
    check(used is not None and f"dropped an incomplete last line ({len(line)} bytes)" in stderr,
          f"control: a torn checkpoint line is not dropped with a message: exit {code}, stderr {stderr!r}")

    epoch = {}

    def new_epoch():
        epoch.update(number=epoch.get("number", 0) + 1, runs=[], injected=set())
        epoch["output"] = f"{work}/adjudicate/output-{epoch['number']:02d}.json"

    def end_epoch(what, before, runs_stderr=None):
        result = check_output(epoch["output"], what, epoch["injected"])
        if result is not None:
            final = {h: r for h, r in zip(hashes, result)}
            analyse_calls(epoch["runs"], final, "crashLoopJudgeCall", f"epoch {epoch['number']}")
        print(f"[adjudicate] epoch {epoch['number']} complete after {len(epoch['runs'])} run(s), "
              f"{len(before)} judged before the last", flush=True)
        stats.epochs += 1
        new_epoch()

    def one_run(kill):
        output = epoch["output"]
        before, torn_before = state(output)
        before = {k: next(iter(v)) for k, v in before.items()}
        tag = f"{epoch['number']}.{len(epoch['runs']) + 1}"
        epoch["runs"].append((tag, set(before)))
        out, err = f"{work}/adjudicate/run-{tag}.out", f"{work}/adjudicate/run-{tag}.err"
        point = kill_point(count - len(before)) if kill else None
        killed, code, where = launch(args(output), dict(os.environ, CRASH_LOOP_RUN=tag), point, out, err,
                                     output + ".adjudication-journal")
        wait_for_orphans()
        what = f"run {tag} ({where if killed else 'finished'})"
        seen, torn = state(output)
        for s, h in seen.items():
            check(len(h) == 1, f"{what}: observation {s} judged and recorded {len(h)} times")
        if os.path.exists(output):  # the checkpoint was folded into the output (and may be emptied)
            written = {o["contentHash"] for o in json.load(open(output))["observations"]}
            kept = {s: {h} for s, h in before.items() if h in written}
        else:
            kept = seen
        for s, h in before.items():
            check(kept.get(s) == {h}, f"{what}: the judgement of {s} recorded before the run was lost or changed")
        if killed:
            stats.kills += 1
            stats.mid_run += len(seen) > len(before)
            if torn > 0 and torn_before == 0:
                stats.natural_torn += 1
            print(f"[adjudicate] kill {stats.kills}: {what}: {len(before)} -> {len(seen)} of {count} judged"
                  f"{', torn tail of %d bytes' % torn if torn else ''}"
                  f"{', the output was already written' if os.path.exists(output) else ''}", flush=True)
            if os.path.exists(output):  # killed after the output was written: it must be whole
                end_epoch(what, before)
            elif torn == 0 and rng.random() < 0.5:
                missing = [i for i, h in enumerate(hashes) if h not in seen]
                if missing:
                    i = rng.choice(missing)
                    line = compact({"source": hashes[i], "configuration": config_hash, "observation": material[i]}).encode()
                    part, how = cut(line)
                    with open(output + ".adjudication-journal", "ab") as f:
                        f.write(part)
                    epoch["injected"].add(material[i]["contentHash"])
                    stats.injected += 1
                    print(f"[adjudicate] kill {stats.kills}: added a torn record to the checkpoint ({how})", flush=True)
            return
        stats.finished += 1
        stderr = open(err).read()
        if not check(code == 0, f"{what}: exit {code}: {stderr[:400]}"):
            return
        check(open(out).read().startswith(f"Adjudicated observations: {count}\n"), f"{what}: stdout {open(out).read()[:200]}")
        if torn_before:
            stats.dropped_reported += 1
            check("dropped an incomplete last line" in stderr, f"{what}: the torn checkpoint tail was not reported: {stderr!r}")
        check(not unexpected_stderr(stderr), f"{what}: unexpected stderr: {unexpected_stderr(stderr)}")
        check(os.path.getsize(output + ".adjudication-journal") == 0, f"{what}: the checkpoint is not empty after the run")
        end_epoch(what, before)

    new_epoch()
    attempts = 0
    while stats.kills < iterations:
        attempts += 1
        if not check(attempts <= 6 * iterations + 10, f"only {stats.kills} of {attempts} runs were killed before they ended"):
            break
        one_run(True)
    if epoch["runs"]:
        one_run(False)


started = time.monotonic()
if kind == "adjudicate":
    adjudicate_kind()
else:
    run_kind()
print(f"[{kind}] {stats.kills} kills ({stats.mid_run} after new records), {stats.finished} run(s) ended by themselves, "
      f"{stats.epochs} epoch(s) complete; {stats.injected} torn record(s) added, {stats.natural_torn} torn tail(s) left by a kill, "
      f"{stats.dropped_reported} drop(s) reported; {time.monotonic() - started:.1f} s; {len(errors)} failure(s)", flush=True)
sys.exit(1 if errors else 0)
PY

# The suite (sealed as it is) and, for the adjudication, a ledger of 96 observations made by a run.
cp "$FIX/task-suite-v1.json" "$WORK/suite.json"
for kind in $KINDS; do
  if [ "$kind" = adjudicate ]; then
    if [ ! -e "$WORK/process/calibration.json" ]; then
      python3 "$WORK/crash_loop.py" process 0 "$SEED" "$WORK" "$STRATA" "$JOBS" >/dev/null
    fi
    cp "$WORK/process/calibration.json" "$WORK/adjudicate/input.json"
  fi
  expect_true "python3 '$WORK/crash_loop.py' '$kind' '$ITERATIONS' '$SEED' '$WORK' '$STRATA' '$JOBS'" \
    "$kind: $ITERATIONS kills, every execution recorded once, nothing lost, no torn record counted (seed $SEED)"
done

kill_leftovers
finish
