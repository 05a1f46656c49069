#!/usr/bin/env bash
# A clean room per execution (issue 26, docs/WORKSPACES.md): `strata run --workspace copy|overlay`
# gives every attempt a writable view of its repository, `--confine` runs the provider under
# bubblewrap. Hostile providers write into their workspace, delete, write outside it (.., absolute
# paths, /tmp, the ledger's directory, $HOME), look for other executions' workspaces and Strata's
# files, and leave a background child writing after they exit: the repositories and every other
# execution see nothing of it, each observation counts what its execution changed, the patches
# apply, nothing is left behind (workspace, mount, process), and every refusal names its flag.
# Usage: run_workspace_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
MARK=$$$RANDOM  # digits in every name a hostile provider writes, and in its sleeps
mkdir -p "$WORK/home" "$WORK/bin" "$WORK/out"
export HOME=$WORK/home  # passed to providers by default; --confine must hide it all the same

# Eight repositories with a little of everything (a link, an executable, a nested directory);
# consumer-01 is a clean git checkout. A pristine copy of each to compare with at the end. The
# suite grown to them (32 tasks); plan <name> samples <n> executions pairwise, one attempt each.
python3 - "$WORK" "$FIX" <<'PY'
import json, os, sys
from study_payloads import grown_tasks, unsealed, write_repository_config
work, fix = sys.argv[1:3]
suite = unsealed(f"{fix}/task-suite-v1.json")
ids, tasks = grown_tasks(suite, repositories=8)
suite.update(population=ids, tasks=tasks, maxRuns=1000)
json.dump(suite, open(f"{work}/suite.payload.json", "w"))
write_repository_config(f"{work}/repos", ids, f"{work}/repos.payload.json")
for i in ids:
    root = f"{work}/repos/{i}"
    os.makedirs(f"{root}/src", exist_ok=True)
    os.makedirs(f"{root}/docs/deep", exist_ok=True)
    open(f"{root}/README.md", "w").write(f"Repository {i}\n")
    open(f"{root}/src/keep.txt", "w").write("kept\n")
    open(f"{root}/src/delete-me.txt", "w").write("to be deleted\n")
    open(f"{root}/docs/deep/notes.txt", "w").write("deep\n" * 100)
    open(f"{root}/tool.sh", "w").write("#!/bin/sh\necho tool\n")
    os.chmod(f"{root}/tool.sh", 0o755)
    os.symlink("README.md", f"{root}/link")
PY
git -C "$WORK/repos/consumer-01" init -q && git -C "$WORK/repos/consumer-01" add -A &&
  git -C "$WORK/repos/consumer-01" -c user.name=t -c user.email=t@t commit -qm pinned || fail "git checkout set-up"
cp -a "$WORK/repos" "$WORK/pristine"
"$STRATA" seal task-suite "$WORK/suite.payload.json" -o "$WORK/suite.json" >/dev/null
"$STRATA" seal repository-config "$WORK/repos.payload.json" -o "$WORK/repos.json" >/dev/null

# make_plan <name> <sample size>: $WORK/<name>.plan.json, runId ws-<name>.
make_plan() {
  python3 - "$WORK" "$FIX" "$1" "$2" <<'PY'
import json, sys
from study_payloads import unsealed
work, fix, name, size = sys.argv[1:5]
suite = json.load(open(f"{work}/suite.json"))
plan = unsealed(f"{fix}/run-plan-v1.json")
plan.update(runId=f"ws-{name}", taskSuiteHash=suite["contentHash"], taskIds=[t["id"] for t in suite["tasks"]])
plan["sampling"] = {"strategy": "pairwise-task-strata", "sampleSize": int(size),
                    "scenarioIds": ["repository-only", "deterministic-doc-bridge"]}
plan["budget"] = {"maxTokens": 400000, "maxRuntimeMs": 120000, "maxOutputBytes": 256000, "maxAttempts": 1}
json.dump(plan, open(f"{work}/{name}.plan.payload.json", "w"))
PY
  "$STRATA" seal run-plan "$WORK/$1.plan.payload.json" -o "$WORK/$1.plan.json" >/dev/null
}

# make_providers <name> <script body>: $WORK/bin/<name>.sh and $WORK/<name>.providers.json.
make_providers() {
  printf '#!/bin/sh\n%s\n' "$2" >"$WORK/bin/$1.sh"
  chmod +x "$WORK/bin/$1.sh"
  python3 -c 'import sys; from study_payloads import provider_entries, write_provider_config
write_provider_config(provider_entries(sys.argv[1]), sys.argv[2])' "$WORK/bin/$1.sh" "$WORK/$1.providers.payload.json"
  "$STRATA" seal provider-config "$WORK/$1.providers.payload.json" -o "$WORK/$1.providers.json" >/dev/null
}

# ws_run <plan> <providers> <ledger> [run args...]
ws_run() {
  local plan=$1 providers=$2 ledger=$3
  shift 3
  run run "$WORK/$plan.plan.json" "$WORK/suite.json" --providers "$WORK/$providers.providers.json" \
    --repositories "$WORK/repos.json" --ledger "$ledger" --kill-grace-ms 300 --json "$@"
}

# The answer every provider prints: the rubric needs nothing more. $1: extra measurements.
ANSWER='printf '"'"'{"taskOutcome":"success","evidenceQuality":"high","safetyOutcome":"safe","evidenceIds":[],"clarificationRequests":0,"reworkCount":0,"inputTokens":1,"outputTokens":1,"tokenMethod":"provider","measurements":{%s}}\n'"'"

# A barrier on loopback: providers connect and wait until <group> of them are waiting together, or
# 60 s have passed; each is then told how many were waiting. A provider that reports <group>
# proves that many executions were in flight at once, whatever the machine's speed.
cat >"$WORK/barrier.py" <<'PY'
import socket, sys, time
port, group = int(sys.argv[1]), int(sys.argv[2])
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(256)
open(sys.argv[3], "w").close()  # listening
server.settimeout(0.1)
waiting, since = [], None
while True:
    try:
        connection, _ = server.accept()
        waiting.append(connection)
        since = since or time.monotonic()
    except socket.timeout:
        pass
    if waiting and (len(waiting) >= group or time.monotonic() - since > 60):
        for c in waiting:
            c.sendall(str(len(waiting)).encode())
            c.close()
        waiting, since = [], None
PY
BARRIER_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# start_barrier <group>: (re)starts it on BARRIER_PORT.
start_barrier() {
  [ -n "${BARRIER:-}" ] && kill "$BARRIER" 2>/dev/null && wait "$BARRIER" 2>/dev/null
  rm -f "$WORK/barrier.ready"
  python3 "$WORK/barrier.py" "$BARRIER_PORT" "$1" "$WORK/barrier.ready" &
  BARRIER=$!
  for _ in $(seq 100); do [ -e "$WORK/barrier.ready" ] && break; sleep 0.05; done
}

# The hostile provider: six changes in its workspace (a new file, an edit, a deletion, a new
# nested file, a write through its repository's absolute path, and one more from its write into
# every repository's path: its own is its view), then every escape it can try.
# What it could see of Strata's files and other workspaces it reports as measurements; what it
# managed to write outside is looked for from outside, by name (*.$MARK*).
make_providers hostile "cat >/dev/null
echo 'new file' > hostile-new.txt
echo changed >> README.md
rm -f src/delete-me.txt
mkdir -p made/dir && echo deep > made/dir/file.txt
echo x > \"\$(pwd)/abs.$MARK\"
echo x > ../up.$MARK 2>/dev/null
for r in $WORK/repos/*; do echo x > \"\$r/other.$MARK\" 2>/dev/null; done
echo x > /tmp/tmp.$MARK 2>/dev/null
echo x > $WORK/out/ledger-dir.$MARK 2>/dev/null
echo x > \"\$HOME/home.$MARK\" 2>/dev/null
echo x > $WORK/pristine/pristine.$MARK 2>/dev/null
seen=\$(ls -d $WORK/out/*.workspaces/* 2>/dev/null | wc -l)
ledger=\$(cat $WORK/out/*.json* $WORK/*.json 2>/dev/null | wc -c)
(while kill -0 \$\$ 2>/dev/null; do sleep 0.05; done; sleep 0.2$MARK; echo late >> hostile-new.txt; for r in $WORK/repos/*; do echo late > \"\$r/late.$MARK\"; done) &
together=\$(python3 -c 'import socket; print(socket.create_connection((\"127.0.0.1\", $BARRIER_PORT)).recv(16).decode() or 0)' 2>/dev/null || echo 0)
$(printf "$ANSWER" '"workspacesSeen":%s,"strataBytesSeen":%s,"together":%s') \$seen \$ledger \$together"

# expect_clean_after <name> <ledger>: the repositories are byte for byte what they were, even
# after the providers' background children would have written; nothing named *.$MARK* anywhere
# the providers aimed at; no workspace, probe, mount or provider process left.
expect_clean_after() {
  sleep 1.5
  expect_true "diff -r --no-dereference '$WORK/pristine' '$WORK/repos' >&2" "$1: the repositories are unchanged"
  expect_true "[ -z \"\$(find '$WORK' /tmp -maxdepth 3 -name '*.$MARK*' 2>/dev/null)\" ]" \
    "$1: nothing written outside the workspaces ($(find "$WORK" /tmp -maxdepth 3 -name "*.$MARK*" 2>/dev/null | head -3 | tr '\n' ' '))"
  expect_true "[ -z \"\$(ls -A '$2.workspaces' 2>/dev/null)\" ]" "$1: no workspace left in $2.workspaces"
  expect_true "! ls -d '$2'.workspace-probe-* >/dev/null 2>&1" "$1: no pre-flight probe left"
  expect_true "! grep -q '$WORK' /proc/mounts" "$1: no mount left"
  expect_true "[ -z \"\$(pgrep -f '$MARK')\" ]" "$1: no provider process left"
  run verify --text "$2"
  expect_code 0 "$1: strata verify"
}

# check_observations <ledger> <count> <files> <json of measurements that must be exact>:
# every observation completed, with workspaceChangedFiles <files> and the bytes its changes hold.
check_observations() {
  python3 - "$1" "$2" "$3" "$4" "$WORK/pristine" <<'PY' >&2
import json, sys
ledger, count, files, exact, pristine = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[5]
observations = json.load(open(ledger))["observations"]
assert len(observations) == count, f"{len(observations)} observations, expected {count}"
for o in observations:
    e, m = o["execution"], o.get("measurements", {})
    assert e["status"] == "completed", e
    readme = open(f"{pristine}/{o['task']['repositoryId']}/README.md").read()
    # hostile-new.txt, README.md's new content, made/dir/file.txt, abs.<mark>
    # (the hostile one also writes other.<mark> into every repository's path: its own is its view)
    expected_bytes = len("new file\n") + len(readme) + len("changed\n") + len("deep\n") + len("x\n") * (files - 4) if files >= 5 else None
    assert m.get("workspaceChangedFiles") == files, m
    if expected_bytes is not None:
        assert m.get("workspaceChangedBytes") == expected_bytes, (m, expected_bytes)
    for key, want in exact.items():
        assert m.get(key) == want, (key, m)
PY
}

# --- overlay, confined, 32 in flight: 128 hostile executions -----------------------------------
make_plan big 128
LEDGER=$WORK/out/big.json
start_barrier 32
ws_run big hostile "$LEDGER" --jobs 32 --workspace overlay --confine --keep-workspace-diff "$WORK/diffs"
expect_code 0 "overlay --confine: run exits 0"
expect_true "python3 -c 'import json; s = json.load(open(\"$WORK/stdout\"))[\"summary\"]; assert (s[\"executed\"], s[\"status\"]) == (128, \"completed\"), s'" \
  "overlay --confine: 128 executed"
CHECK_ARGS=("$LEDGER" 128 6 '{"workspacesSeen": 0, "strataBytesSeen": 0, "together": 32}')
expect_true 'check_observations "${CHECK_ARGS[@]}"' \
  "overlay --confine: 32 in flight at once; each counts its 6 changed files and bytes, saw no workspace and no Strata file"
expect_clean_after "overlay --confine" "$LEDGER"
expect_true "! grep -q '$WORK/out/big.json.workspaces\|upper' '$LEDGER'" "no workspace path in the ledger"
expect_true "[ \$(ls '$WORK/diffs' | wc -l) = 128 ]" "--keep-workspace-diff: one patch per execution"
# A patch applied to a copy of its repository gives what the provider left there.
cp -a "$WORK/pristine/consumer-02" "$WORK/applied"
PATCH=$(grep -l "^+Repository consumer-02\$" "$WORK/diffs"/*.patch | head -1)
expect_true "[ -n '$PATCH' ] && git -C '$WORK/applied' apply '$PATCH' 2>&1 >&2" "a kept patch applies with git apply"
expect_true "[ \"\$(cat '$WORK/applied/hostile-new.txt')\" = 'new file' ] && [ ! -e '$WORK/applied/src/delete-me.txt' ] &&
  [ \"\$(tail -1 '$WORK/applied/README.md')\" = changed ] && [ -f '$WORK/applied/made/dir/file.txt' ] && [ -f '$WORK/applied/abs.$MARK' ]" \
  "the applied patch makes the provider's five changes"
rm -rf "$WORK/applied"

# The record pins each repository's tree: consumer-01 by its git commit, the rest by their files.
expect_true "python3 -c '
import json; t = json.load(open(\"$LEDGER.inputs\"))[\"runs\"][\"ws-big\"][\"workspace\"]
assert (t[\"mode\"], t[\"confine\"]) == (\"overlay\", True), t
assert t[\"trees\"][\"consumer-01\"] == \"git:$(git -C "$WORK/repos/consumer-01" rev-parse HEAD)\", t
assert t[\"trees\"][\"consumer-02\"].startswith(\"files-sha256:\"), t
'" "<ledger>.inputs pins the trees (git commit of the clean checkout, a digest of the others)"

# --- copy, confined ----------------------------------------------------------------------------
make_plan small 16
start_barrier 8
ws_run small hostile "$WORK/out/copy.json" --jobs 8 --workspace copy --confine
expect_code 0 "copy --confine: run exits 0"
CHECK_ARGS=("$WORK/out/copy.json" 16 6 '{"workspacesSeen": 0, "strataBytesSeen": 0, "together": 8}')
expect_true 'check_observations "${CHECK_ARGS[@]}"' "copy --confine: observations count their 6 changes, saw nothing of Strata"
expect_clean_after "copy --confine" "$WORK/out/copy.json"

# --- a resume with a repository changed, or another workspace, is refused -------------------------
make_plan resume 16
ws_run resume hostile "$WORK/out/resume.json" --jobs 8 --workspace copy --confine --max-tokens 0
expect_code 4 "resume: started, its inputs recorded, nothing launched"
cp "$WORK/out/resume.json" "$WORK/resume.before"
echo "edited" >>"$WORK/repos/consumer-03/src/keep.txt"
ws_run resume hostile "$WORK/out/resume.json" --jobs 8 --workspace copy --confine
expect_code 2 "changed repository: refused"
expect_err_has "repository consumer-03 changed since run ws-resume started: files-sha256:" "changed repository: named"
expect_true "cmp -s '$WORK/out/resume.json' '$WORK/resume.before'" "changed repository: nothing launched, the ledger as it was"
ws_run resume hostile "$WORK/out/resume.json" --jobs 8 --workspace overlay --confine
expect_code 2 "another workspace mode: refused"
expect_err_has "workspace changed since run ws-resume started: copy --confine -> overlay --confine" "another mode: named"
cp "$WORK/pristine/consumer-03/src/keep.txt" "$WORK/repos/consumer-03/src/keep.txt"
ws_run resume hostile "$WORK/out/resume.json" --jobs 8 --workspace copy --confine
expect_code 0 "the tree restored: the resume goes on"
CHECK_ARGS=("$WORK/out/resume.json" 16 6 '{}')
expect_true 'check_observations "${CHECK_ARGS[@]}"' "the resumed run: 16 observations"

# --- unconfined: the repository is still never written ---------------------------------------------
# overlay: the view is mounted over the repository's own path, so even its absolute path is the
# workspace; a background child dies with the provider (its PID namespace).
make_providers gentle "cat >/dev/null
echo 'new file' > hostile-new.txt
echo changed >> README.md
rm -f src/delete-me.txt
mkdir -p made/dir && echo deep > made/dir/file.txt
echo x > \"\$(pwd)/abs.$MARK\"
(while kill -0 \$\$ 2>/dev/null; do sleep 0.05; done; sleep 0.2$MARK; echo late > late.$MARK) &
$(printf "$ANSWER" '')"
ws_run small gentle "$WORK/out/overlay.json" --jobs 8 --workspace overlay
expect_code 0 "overlay: run exits 0"
CHECK_ARGS=("$WORK/out/overlay.json" 16 5 '{}')
expect_true 'check_observations "${CHECK_ARGS[@]}"' "overlay: 5 changes counted per observation"
expect_clean_after "overlay" "$WORK/out/overlay.json"
# A ledger in a directory that does not exist yet: the run makes it, its pre-flight probes above it.
ws_run small gentle "$WORK/out/new/dir/overlay.json" --jobs 8 --workspace overlay
expect_code 0 "a ledger in a new directory: run exits 0"
expect_true "[ -z \"\$(ls -A '$WORK/out/new/dir/overlay.json.workspaces' 2>/dev/null)\" ] && ! ls -d '$WORK/out/'*probe* >/dev/null 2>&1" \
  "a ledger in a new directory: nothing left beside it or above it"
ws_run small gentle "$WORK/out/copy-open.json" --jobs 8 --workspace copy
expect_code 0 "copy: run exits 0"
CHECK_ARGS=("$WORK/out/copy-open.json" 16 5 '{}')
expect_true 'check_observations "${CHECK_ARGS[@]}"' "copy: 5 changes counted per observation"
sleep 1.5  # copy without --confine does not stop a background child: it writes into a removed tree
pkill -f "sleep 0.2$MARK" 2>/dev/null
expect_clean_after "copy" "$WORK/out/copy-open.json"

# A confined provider whose program is under /tmp but in no hidden directory: /tmp is the
# provider's own tmpfs, so the program is bound back (it once was not: "bwrap: execvp ...").
ELSEWHERE=$(mktemp -d /tmp/strata-ws-program.XXXXXX)
cp "$WORK/bin/gentle.sh" "$ELSEWHERE/gentle.sh"
python3 -c 'import sys; from study_payloads import provider_entries, write_provider_config
write_provider_config(provider_entries(sys.argv[1]), sys.argv[2])' "$ELSEWHERE/gentle.sh" "$WORK/elsewhere.providers.payload.json"
"$STRATA" seal provider-config "$WORK/elsewhere.providers.payload.json" -o "$WORK/elsewhere.providers.json" >/dev/null
ws_run small elsewhere "$WORK/out/elsewhere.json" --jobs 8 --workspace overlay --confine
CHECK_ARGS=("$WORK/out/elsewhere.json" 16 5 '{}')
expect_true 'check_observations "${CHECK_ARGS[@]}"' "--confine: a provider program under /tmp runs"
rm -rf "$ELSEWHERE"

# --- a study under an allowlisted HOME (issue 33, part 0) -----------------------------------------
# A provider config that passes HOME, and the whole study (configs, ledger, repositories) under that
# home, the common case: the provider may write its home, but not beside the ledger (its journal,
# inputs and the other workspaces live there), not the configs' directory, and no repository's
# real tree nor the directory holding them. Once 16 of 16 providers wrote beside the ledger and
# beside the repositories. Then HOME naming the ledger's directory itself: shown, never writable.
UHOME=$WORK/user-home
mkdir -p "$UHOME/study/out"
cp -a "$WORK/pristine" "$UHOME/study/repos"
cp "$WORK/suite.json" "$WORK/small.plan.json" "$UHOME/study/"
python3 -c 'import json, sys; from study_payloads import write_repository_config
write_repository_config(sys.argv[1], json.load(open(sys.argv[2]))["population"], sys.argv[3])' \
  "$UHOME/study/repos" "$WORK/suite.json" "$UHOME/study/repos.payload.json"
"$STRATA" seal repository-config "$UHOME/study/repos.payload.json" -o "$UHOME/study/repos.json" >/dev/null
printf '#!/bin/sh\n%s\n' "cat >/dev/null
echo x > \"\$HOME/home.$MARK\" 2>/dev/null
echo x > $UHOME/study/out/ledger-dir.$MARK 2>/dev/null
echo x > \"\$(dirname \"\$HOME\")/above-home.$MARK\" 2>/dev/null
echo x > $UHOME/study/config-dir.$MARK 2>/dev/null
echo x >> $UHOME/study/suite.json 2>/dev/null
echo x > $UHOME/study/repos/beside.$MARK 2>/dev/null
for r in $UHOME/study/repos/*; do echo x > \"\$r/other.$MARK\" 2>/dev/null; done
seen=\$(ls -d $UHOME/study/out/*.workspaces/* 2>/dev/null | wc -l)
home=\$([ -e \"\$HOME/home.$MARK\" ] && echo 1 || echo 0)
$(printf "$ANSWER" '"workspacesSeen":%s,"homeWritten":%s') \$seen \$home" >"$WORK/bin/home.sh"
chmod +x "$WORK/bin/home.sh"
python3 -c 'import sys; from study_payloads import provider_entries, write_provider_config
write_provider_config(provider_entries(sys.argv[1], envAllowlist=["HOME"]), sys.argv[2])' "$WORK/bin/home.sh" "$UHOME/study/providers.payload.json"
"$STRATA" seal provider-config "$UHOME/study/providers.payload.json" -o "$UHOME/study/providers.json" >/dev/null
# home_run <HOME> <ledger> <mode>
home_run() {
  HOME=$1 run run "$UHOME/study/small.plan.json" "$UHOME/study/suite.json" --providers "$UHOME/study/providers.json" \
    --repositories "$UHOME/study/repos.json" --ledger "$2" --kill-grace-ms 300 --jobs 8 --workspace "$3" --confine --json
}
for mode in overlay copy; do
  home_run "$UHOME" "$UHOME/study/out/home-$mode.json" "$mode"
  expect_code 0 "HOME allowlisted, the study under it ($mode): run exits 0"
  CHECK_ARGS=("$UHOME/study/out/home-$mode.json" 16 1 '{"workspacesSeen": 0, "homeWritten": 1}')
  expect_true 'check_observations "${CHECK_ARGS[@]}"' \
    "HOME allowlisted ($mode): the home written, no other workspace seen, only its own repository's view changed"
  expect_true "[ -e '$UHOME/home.$MARK' ]" "HOME allowlisted ($mode): the provider's home is its own, writable"
  expect_true "[ -z \"\$(find '$UHOME/study' -name '*.$MARK*')\" ]" \
    "HOME allowlisted ($mode): nothing beside the ledger, the configs or the repositories ($(find "$UHOME/study" -name "*.$MARK*" | head -3 | tr '\n' ' '))"
  expect_true "cmp -s '$UHOME/study/suite.json' '$WORK/suite.json' && diff -r --no-dereference '$WORK/pristine' '$UHOME/study/repos' >&2" \
    "HOME allowlisted ($mode): the configs and the repositories unchanged"
  rm -f "$UHOME/home.$MARK"
done
run verify --text "$UHOME/study/out/home-overlay.json"
expect_code 0 "HOME allowlisted: strata verify"
home_run "$UHOME/study/out" "$UHOME/study/out/home-is-ledger-dir.json" overlay
expect_code 0 "HOME naming the ledger's directory: run exits 0"
expect_true "[ -z \"\$(find '$UHOME' -name '*.$MARK*')\" ]" \
  "HOME naming the ledger's directory: nothing written there, nor above it ($(find "$UHOME" -name "*.$MARK*" | head -3 | tr '\n' ' '))"

# --- --confine-network none: no network, not even loopback -------------------------------------------
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(120)' "$WORK/port" &
LISTENER=$!
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
make_providers network "cat >/dev/null
reached=\$(python3 -c 'import socket
try:
    socket.create_connection((\"127.0.0.1\", $(cat "$WORK/port")), timeout=2); print(1)
except OSError: print(0)')
$(printf "$ANSWER" '"reached":%s') \$reached"
make_plan net 4
ws_run net network "$WORK/out/net-open.json" --workspace overlay --confine
CHECK_ARGS=("$WORK/out/net-open.json" 4 0 '{"reached": 1}')
expect_true 'check_observations "${CHECK_ARGS[@]}"' "--confine: loopback reachable"
ws_run net network "$WORK/out/net-none.json" --workspace overlay --confine --confine-network none
CHECK_ARGS=("$WORK/out/net-none.json" 4 0 '{"reached": 0}')
expect_true 'check_observations "${CHECK_ARGS[@]}"' "--confine-network none: nothing reachable"
kill "$LISTENER" "$BARRIER" 2>/dev/null

# --- a workspace that cannot be made fails its execution, with its own error code ---------------------
touch "$WORK/out/blocked.json.workspaces"  # a file where the workspaces' directory must go
ws_run small gentle "$WORK/out/blocked.json" --jobs 4 --workspace copy
expect_code 0 "no workspace: the run completes"
expect_true "python3 -c '
import json; os_ = json.load(open(\"$WORK/out/blocked.json\"))[\"observations\"]
assert len(os_) == 16 and all(o[\"execution\"][\"status\"] == \"unavailable\" and o[\"execution\"][\"errorCode\"] == \"workspace-unavailable\" for o in os_), os_[0]
'" "no workspace: every execution unavailable, errorCode workspace-unavailable"
expect_err_has "cannot make the workspace" "no workspace: stderr says why"
expect_true "[ -f '$WORK/out/blocked.json.workspaces' ] && diff -r --no-dereference '$WORK/pristine' '$WORK/repos' >/dev/null" \
  "no workspace: nothing else touched"
# A full disk: the ledger on a 256 KiB tmpfs, a repository bigger than that.
mkdir -p "$WORK/small-disk"
if mount -t tmpfs -o size=256k tmpfs "$WORK/small-disk" 2>/dev/null; then
  for r in "$WORK"/repos/* "$WORK"/pristine/*; do head -c 1048576 /dev/zero >"$r/big.bin"; done
  make_plan full 16
  # One at a time: a half-made copy fills the disk until it is removed, and the journal beside it
  # must still have room (several at once made the journal's own write fail now and then). Even
  # one at a time, the next copy may fill the disk while the last observation's journal write is
  # still on its way (a loaded machine, the sanitizers): the run then stops with that write's
  # error, everything before it kept, and the same command resumes. So: at most 5 runs, each
  # completing or stopping on a full disk, never anything else.
  for attempt in 1 2 3 4 5; do
    ws_run full gentle "$WORK/small-disk/full.json" --jobs 1 --workspace copy
    [ "$CODE" = 0 ] && break
    expect_err_has "No space left on device" "full disk, run $attempt: a stop says why"
    expect_true "! grep -q 'AddressSanitizer\|runtime error' '$WORK/stderr'" "full disk, run $attempt: stopped cleanly"
  done
  expect_code 0 "full disk: the run completes (in $attempt run(s))"
  expect_true "python3 -c '
import json; os_ = json.load(open(\"$WORK/small-disk/full.json\"))[\"observations\"]
assert len(os_) == 16 and all(o[\"execution\"][\"errorCode\"] == \"workspace-unavailable\" for o in os_), os_[0]
'" "full disk: every execution is workspace-unavailable"
  expect_err_has "No space left on device" "full disk: stderr says so"
  expect_true "[ -z \"\$(ls -A '$WORK/small-disk/full.json.workspaces' 2>/dev/null)\" ]" "full disk: no half-made workspace left"
  umount "$WORK/small-disk"
  rm -f "$WORK"/repos/*/big.bin "$WORK"/pristine/*/big.bin
else
  echo "full disk: skipped (cannot mount a tmpfs here)"
fi

# --- what an interrupted run left is swept at the next start -------------------------------------
mkdir -p "$WORK/out/swept.json.workspaces/0123-1/upper/deep" "$WORK/out/swept.json.workspaces/4567-1/work/work"
chmod 000 "$WORK/out/swept.json.workspaces/4567-1/work/work"
true & wait $!
DEAD=$!  # a PID no process has now: the pre-flight that made this probe was killed
mkdir -p "$WORK/out/swept.json.workspace-probe-$DEAD-AbCdEf/lower" "$WORK/out/swept.json.workspace-probe-$$-LiVe00"
ws_run small gentle "$WORK/out/swept.json" --jobs 8 --workspace overlay
expect_err_has "removed a pre-flight probe an interrupted run left: $WORK/out/swept.json.workspace-probe-$DEAD-AbCdEf" \
  "sweep: a killed pre-flight's probe removed and named"
expect_true "[ -d '$WORK/out/swept.json.workspace-probe-$$-LiVe00' ]" "sweep: a live pre-flight's probe left alone"
rm -rf "$WORK/out/swept.json.workspace-probe-$$-LiVe00"
expect_code 0 "sweep: run exits 0"
expect_err_has "removed a workspace an interrupted run left: $WORK/out/swept.json.workspaces/0123-1" "sweep: named on stderr"
expect_err_has "removed a workspace an interrupted run left: $WORK/out/swept.json.workspaces/4567-1" "sweep: a locked one too"
expect_clean_after "sweep" "$WORK/out/swept.json"

# --- refusals at pre-flight: the flag named, nothing written ---------------------------------------
REFUSED=$WORK/out/refused.json
bad_input "confine alone" "--confine needs --workspace copy or overlay" run "$WORK/small.plan.json" "$WORK/suite.json" \
  --providers "$WORK/gentle.providers.json" --repositories "$WORK/repos.json" --ledger "$REFUSED" --confine
bad_input "network without confine" "--confine-network none needs --confine" run "$WORK/small.plan.json" "$WORK/suite.json" \
  --providers "$WORK/gentle.providers.json" --repositories "$WORK/repos.json" --ledger "$REFUSED" --workspace copy --confine-network none
bad_input "diff without workspace" "--keep-workspace-diff needs --workspace copy or overlay" run "$WORK/small.plan.json" \
  "$WORK/suite.json" --providers "$WORK/gentle.providers.json" --repositories "$WORK/repos.json" --ledger "$REFUSED" \
  --keep-workspace-diff "$WORK/d"
mkdir -p "$WORK/only-true"
ln -s "$(type -P true)" "$WORK/only-true/true"
printf '#!/bin/sh\nPATH=%s exec %s "$@"\n' "$WORK/only-true" "$STRATA" >"$WORK/bin/strata-without-bwrap"
chmod +x "$WORK/bin/strata-without-bwrap"
STRATA_BEFORE=$STRATA
STRATA=$WORK/bin/strata-without-bwrap
bad_input "no bubblewrap" "--confine needs bubblewrap, and bwrap is not on PATH" run "$WORK/small.plan.json" "$WORK/suite.json" \
  --providers "$WORK/gentle.providers.json" --repositories "$WORK/repos.json" --ledger "$REFUSED" --workspace copy --confine
STRATA=$STRATA_BEFORE
mkdir -p "$WORK/lonely"
cp "$STRATA" "$WORK/lonely/strata"
STRATA=$WORK/lonely/strata
bad_input "no launcher" "--workspace overlay needs strata-workspace-exec beside strata" run "$WORK/small.plan.json" \
  "$WORK/suite.json" --providers "$WORK/gentle.providers.json" --repositories "$WORK/repos.json" --ledger "$REFUSED" \
  --workspace overlay
STRATA=$STRATA_BEFORE
run run "$WORK/small.plan.json" "$WORK/suite.json" --providers "$WORK/gentle.providers.json" --repositories "$WORK/repos.json" \
  --ledger "$REFUSED" --workspace bogus
expect_true "[ $CODE != 0 ] && grep -q 'workspace' '$WORK/stderr'" "--workspace bogus: refused, the flag named"
expect_true "[ -z \"\$(ls -A '$WORK/out' | grep refused)\" ]" "refusals: nothing written beside the ledger"
expect_true "[ ! -e '$WORK/d' ]" "refusals: no patch directory made"

finish
