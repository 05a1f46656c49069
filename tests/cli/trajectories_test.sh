#!/usr/bin/env bash
# Trajectories kept beside their observations (issue 45, docs/TRAJECTORIES.md): `strata run
# --keep-trajectories DIR` gives each attempt a channel (STRATA_TRAJECTORY_FILE), takes what the
# provider wrote there into DIR as <execution key>.trajectory.json before the observation is
# durable, records trajectoryKept 1 or 0, and sweeps what a killed run left; `strata adjudicate
# --keep-trajectories` the same for the judges; `strata trajectory` reads them back. Scripted
# providers here (the real agents' trajectories are tested in agent_real_*):
#   - a provider that writes a trajectory, one that writes none, one that writes JSON that is not
#     ATIF, one that writes more than the bound: kept, or not (1/0), never a failed execution;
#   - the channel under --workspace copy --confine (the provider's own /tmp);
#   - `strata trajectory`: the kept file as it is, the transcript, the list with the ledger, and
#     every bad input (exit 2, one line);
#   - a crash loop: SIGKILL at random points; after every kill each recorded observation has
#     exactly one complete trajectory, and a trajectory without its observation is only ever one
#     of an execution in flight (at most --jobs of them), which the next run's sweep removes;
#     after the last run, exactly one per observation and none else.
# Usage: trajectories_test.sh <strata binary> [kills=8]
STRATA=$(realpath "$1")
KILLS=${2:-8}
. "$(dirname "$0")/lib.sh"
EXAMPLE_PROVIDER=$(dirname "$STRATA")/strata-example-provider
SCHEMAS=$(realpath "$(dirname "$0")/../../schemas")

# scripted <name> <mode> [max sleep ms]: a provider that answers as the example provider and writes
# its trajectory by <mode>: good (an ATIF trajectory naming its session), none, bad (not ATIF),
# big (17 MiB of JSON).
scripted() {
  cat >"$WORK/$1" <<SH
#!/usr/bin/env bash
response=\$("$EXAMPLE_PROVIDER" "\$@")
[ "${3:-0}" -gt 0 ] && sleep "\$(printf '0.%03d' \$((RANDOM % ${3:-1})))"
file=\${STRATA_TRAJECTORY_FILE:-}
if [ -n "\$file" ]; then
  case $2 in
    good) printf '{"schema_version":"ATIF-v1.7","session_id":"%s","agent":{"name":"scripted","version":"1"},"steps":[{"step_id":1,"source":"user","message":"the request"},{"step_id":2,"source":"agent","message":"TRAJECTORY-MARK from %s","tool_calls":[{"tool_call_id":"c1","function_name":"Read","arguments":{"path":"main.cpp"}}],"observation":{"results":[{"source_call_id":"c1","content":"int main()"}]}}],"final_metrics":{"total_steps":2}}\n' "\$DOC_BRIDGE_STUDY_SESSION_ID" "\$PWD" >"\$file.tmp" && mv "\$file.tmp" "\$file" ;;
    bad) echo '{"not": "a trajectory"}' >"\$file" ;;
    big) head -c 17000000 /dev/zero | tr '\\0' ' ' >"\$file" ;;
    fifo) mkfifo "\$file" ;;
    link) ln -s "$WORK/elsewhere.json" "\$file" ;;
  esac
fi
printf '%s\n' "\$response"
SH
  chmod +x "$WORK/$1"
}
for mode in good none bad big fifo link; do scripted "$mode" "$mode"; done
scripted slow good 800
# What the link points at: a valid trajectory outside the channel, which must not be taken.
echo '{"schema_version":"ATIF-v1.7","session_id":"s","agent":{"name":"elsewhere","version":"1"},"steps":[]}' >"$WORK/elsewhere.json"

make_example_study "$WORK/good" one
# providers-<mode>.json: the example study's providers all replaced by that provider.
for mode in good none bad big fifo link slow; do
  python3 - "$WORK" "$mode" <<'PY'
import json, sys
work, mode = sys.argv[1:3]
config = json.load(open(f"{work}/providers.payload.json"))
for p in config["providers"]:
    p.update(command=f"{work}/{mode}")
config["adjudicator"].update(command=f"{work}/{mode}")
json.dump(config, open(f"{work}/providers-{mode}.payload.json", "w"))
PY
  "$STRATA" seal provider-config "$WORK/providers-$mode.payload.json" -o "$WORK/providers-$mode.json" >/dev/null
done

# traj_run <ledger> <provider mode> [run args]: the example study with that provider.
traj_run() {
  local ledger=$1 mode=$2
  shift 2
  run run "$WORK/plan-one.json" "$WORK/suite.json" --providers "$WORK/providers-$mode.json" \
    --repositories "$WORK/repos.json" --ledger "$ledger" --jobs 4 --text "$@"
}

# keys.py <ledger> [journal]: the execution key of every recorded observation, one a line (the
# ledger's, then the journal's complete lines).
cat >"$WORK/keys.py" <<'PY'
import json, os, sys
from study_payloads import execution_key
observations = json.load(open(sys.argv[1]))["observations"] if os.path.exists(sys.argv[1]) else []
if len(sys.argv) > 2 and os.path.exists(sys.argv[2]):
    data = open(sys.argv[2], "rb").read()
    for line in data.split(b"\n")[:-1]:
        observations.append(json.loads(line))
for o in observations: print(execution_key(o["task"]))
PY

# --- a run keeping its trajectories --------------------------------------------------------------
traj_run "$WORK/good.ledger" good --keep-trajectories "$WORK/kept"
expect_code 0 "run --keep-trajectories"
expect_true "[ \$(ls '$WORK/kept' | wc -l) = 16 ]" "16 trajectories for 16 executions"
expect_true "python3 -c 'import json,sys; sys.exit(not all(o[\"measurements\"][\"trajectoryKept\"] == 1 and o[\"execution\"][\"status\"] == \"completed\" for o in json.load(open(sys.argv[1]))[\"observations\"]))' '$WORK/good.ledger'" \
  "every execution completed, trajectoryKept 1"
expect_true "[ \"\$(python3 '$WORK/keys.py' '$WORK/good.ledger' | sort | sed 's/\$/.trajectory.json/')\" = \"\$(ls '$WORK/kept' | sort)\" ]" \
  "each named by its observation's execution key"
expect_true "[ \"\$(stat -c %a '$WORK/kept')\" = 700 ] && [ -z \"\$(ls -A '$WORK/good.ledger.incoming-trajectories')\" ]" \
  "DIR is the owner's only; no channel is left"
expect_true "grep -q \"TRAJECTORY-MARK from $(realpath "$(dirname "$0")/../../examples/study/repository")\" '$WORK/kept'/*.json" \
  "the provider wrote from the repository (no workspace)"
expect_true "python3 -c '
import json, sys
from jsonschema import Draft202012Validator
v = Draft202012Validator(json.load(open(sys.argv[1])))
sys.exit(any(list(v.iter_errors(json.load(open(f)))) for f in sys.argv[2:]))' '$SCHEMAS/atif-trajectory.schema.json' '$WORK/kept'/*.json" \
  "each validates against schemas/atif-trajectory.schema.json"
KEY=$(python3 "$WORK/keys.py" "$WORK/good.ledger" | head -1)
run trajectory "$WORK/kept" "$KEY"
expect_code 0 "trajectory DIR KEY"
expect_true "cmp -s '$WORK/stdout' '$WORK/kept/$KEY.trajectory.json'" "prints the kept ATIF document as it is"
run trajectory "$WORK/kept" "${KEY:0:8}" --text
expect_code 0 "trajectory DIR PREFIX --text"
expect_out_has "Trajectory: scripted 1, 2 steps, ATIF-v1.7" "the transcript's head"
expect_out_has "Step 2 · agent" "each step with its source"
expect_out_has "→ Read {\"path\":\"main.cpp\"}  [c1]" "the tool call with its arguments"
expect_out_has "← c1: int main()" "its result"
run trajectory "$WORK/kept" --list --ledger "$WORK/good.ledger"
expect_code 0 "trajectory --list --ledger"
expect_true "python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))[\"trajectories\"]
sys.exit(not (len(t) == 16 and all(e[\"kind\"] == \"execution\" and e[\"steps\"] == 2 and e[\"observation\"][\"status\"] == \"completed\" for e in t)))' '$WORK/stdout'" \
  "the list names each trajectory's observation (the keys agree with Strata's)"
run trajectory "$WORK/kept" --list --text
expect_code 0 "trajectory --list --text"
expect_out_has "16 trajectories in $WORK/kept" "the list's last line counts them"

# --- what is not kept: none, not ATIF, too large; a hostile provider's FIFO or link -----------------
for mode in none bad big fifo link; do
  traj_run "$WORK/$mode.ledger" "$mode" --keep-trajectories "$WORK/kept-$mode"
  expect_code 0 "run --keep-trajectories with a provider writing $mode"
  expect_true "python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))[\"observations\"]; sys.exit(not (len(o) == 16 and all(x[\"measurements\"][\"trajectoryKept\"] == 0 and x[\"execution\"][\"status\"] == \"completed\" for x in o)))' '$WORK/$mode.ledger'" \
    "$mode: every execution completed, trajectoryKept 0"
  expect_true "[ -z \"\$(ls -A '$WORK/kept-$mode')\" ] && [ -z \"\$(ls -A '$WORK/$mode.ledger.incoming-trajectories')\" ]" "$mode: nothing kept, no channel left"
done
expect_err_has "its trajectory was not kept: a symbolic link" "a link: said on stderr"
traj_run "$WORK/big2.ledger" big --keep-trajectories "$WORK/kept-big2"
expect_err_has "its trajectory was not kept: larger than 16 MiB" "too large: said on stderr"
traj_run "$WORK/fifo2.ledger" fifo --keep-trajectories "$WORK/kept-fifo2"
expect_err_has "its trajectory was not kept: not a regular file" "a FIFO: said on stderr, and the run did not wait on it"
traj_run "$WORK/bad2.ledger" bad --keep-trajectories "$WORK/kept-bad2"
expect_err_has "its trajectory was not kept: not an ATIF trajectory" "not ATIF: said on stderr"

# --- the channel of a confined provider ---------------------------------------------------------------
if command -v bwrap >/dev/null && bwrap --ro-bind / / true 2>/dev/null; then
  traj_run "$WORK/confined.ledger" good --workspace copy --confine --keep-trajectories "$WORK/kept-confined"
  expect_code 0 "run --workspace copy --confine --keep-trajectories"
  expect_true "[ \$(ls '$WORK/kept-confined' | wc -l) = 16 ]" "confined: 16 trajectories through the provider's /tmp"
else
  echo "SKIP: no usable bwrap: the confined channel is not tested here" >&2
fi

# --- bad inputs: exit 2, one line, nothing written -----------------------------------------------------
touch "$WORK/a-file"
traj_run "$WORK/refused.ledger" good --keep-trajectories "$WORK/a-file"
expect_code 2 "--keep-trajectories naming a file: exit 2"
expect_err_has "not a directory" "says why"
expect_file_absent "$WORK/refused.ledger" "--keep-trajectories naming a file: no ledger"
touch "$WORK/refused2.ledger.incoming-trajectories"
traj_run "$WORK/refused2.ledger" good --keep-trajectories "$WORK/kept-refused2"
expect_code 2 "the channels' place is a file: exit 2"
expect_err_has "the channels' place is not a directory" "says why"
expect_file_absent "$WORK/refused2.ledger" "the channels' place is a file: no ledger"
bad_input "trajectory: no such directory" "not a directory" trajectory "$WORK/nowhere" "$KEY"
bad_input "trajectory: an unknown key" "no trajectory of execution 0123456789" trajectory "$WORK/kept" 0123456789
bad_input "trajectory: a short key" "at least 6 characters" trajectory "$WORK/kept" abc
bad_input "trajectory: --judge of an execution without one" "no judge's trajectory" trajectory "$WORK/kept" "$KEY" --judge
bad_input "trajectory: neither a key nor --list" "give an execution key, or --list" trajectory "$WORK/kept"
bad_input "trajectory: --list with a key" "--list takes no execution key" trajectory "$WORK/kept" "$KEY" --list
bad_input "trajectory: --ledger without --list" "--ledger goes with --list" trajectory "$WORK/kept" "$KEY" --ledger "$WORK/good.ledger"
cp "$WORK/kept/$KEY.trajectory.json" "$WORK/kept/${KEY:0:7}fffffff.trajectory.json"
bad_input "trajectory: a prefix naming two" "names 2 executions" trajectory "$WORK/kept" "${KEY:0:7}"
rm "$WORK/kept/${KEY:0:7}fffffff.trajectory.json"

# --- the judges' trajectories -----------------------------------------------------------------------
run adjudicate "$WORK/good.ledger" "$WORK/suite.json" --adjudicator "$WORK/providers-good.json" --output "$WORK/judged.ledger" \
  --keep-trajectories "$WORK/kept"
expect_code 0 "adjudicate --keep-trajectories"
expect_true "[ \$(ls '$WORK/kept' | grep -c '[.]judge[.]trajectory[.]json\$') = 16 ]" "16 judges' trajectories beside the executions'"
run trajectory "$WORK/kept" "$KEY" --judge --text
expect_code 0 "trajectory KEY --judge"
expect_out_has "TRAJECTORY-MARK" "the judge's trajectory"
expect_true "[ -z \"\$(ls -A '$WORK/judged.ledger.incoming-trajectories')\" ]" "no judge's channel left"

# --- a crash loop ---------------------------------------------------------------------------------------
# invariant.py <ledger> <dir> <jobs> [final]: every recorded observation (ledger and journal) has
# exactly one complete trajectory; those without an observation are at most <jobs> (in flight at
# the kill), none when final.
cat >"$WORK/invariant.py" <<'PY'
import json, os, subprocess, sys
ledger, directory, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
final = len(sys.argv) > 4
keys = subprocess.run(["python3", os.path.dirname(sys.argv[0]) + "/keys.py", ledger, ledger + ".journal"],
                      check=True, capture_output=True, text=True).stdout.split()
# A run killed before it made the directory has kept nothing (and recorded nothing).
kept = [f[: -len(".trajectory.json")] for f in (os.listdir(directory) if os.path.isdir(directory) else [])
        if f.endswith(".trajectory.json")]
problems = []
if len(keys) != len(set(keys)): problems.append("an execution recorded twice")
for k in keys:
    if k not in kept: problems.append(f"observation {k[:12]} without its trajectory")
    else:
        t = json.load(open(f"{directory}/{k}.trajectory.json"))  # complete: it parses
        if t["steps"][1]["message"].find("TRAJECTORY-MARK") < 0: problems.append("an incomplete trajectory")
orphans = [k for k in kept if k not in keys]
if len(orphans) > (0 if final else jobs): problems.append(f"{len(orphans)} trajectories without an observation")
print("; ".join(problems))
sys.exit(1 if problems else 0)
PY
# The sweep, deterministic: a trajectory of an execution not recorded and a channel, as a killed
# run leaves them, are gone once the next run starts (here one that launches nothing: its budget
# admits no execution).
mkdir -p "$WORK/kept-swept" "$WORK/swept.ledger.incoming-trajectories/leftover-1"
cp "$WORK/kept/$KEY.trajectory.json" "$WORK/kept-swept/"
echo '{}' >"$WORK/swept.ledger.incoming-trajectories/leftover-1/trajectory.json"
traj_run "$WORK/swept.ledger" good --keep-trajectories "$WORK/kept-swept" --max-tokens 1
expect_code 4 "a run whose budget admits nothing: exit 4"
expect_true "[ -z \"\$(ls -A '$WORK/kept-swept')\" ] && [ -z \"\$(ls -A '$WORK/swept.ledger.incoming-trajectories')\" ]" \
  "the sweep removed the trajectory without its observation and the channel left behind"
traj_run "$WORK/good.ledger" good --keep-trajectories "$WORK/kept"
expect_code 0 "a resume of a complete run"
expect_true "[ \$(ls '$WORK/kept' | grep -c '[.]judge[.]') = 16 ] && [ \$(ls '$WORK/kept' | wc -l) = 32 ]" "keeps every recorded execution's trajectory (and the judges')"

LEDGER=$WORK/crash.ledger
kills=0
for round in $(seq 40); do
  [ "$kills" -ge "$KILLS" ] && break
  setsid "$STRATA" run "$WORK/plan-one.json" "$WORK/suite.json" --providers "$WORK/providers-slow.json" --repositories "$WORK/repos.json" \
    --ledger "$LEDGER" --jobs 4 --keep-trajectories "$WORK/kept-crash" >/dev/null 2>"$WORK/crash.err" &
  pid=$!
  sleep "0.$(printf '%03d' $((RANDOM % 400 + 20)))"
  if kill -9 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null
    kills=$((kills + 1))
    expect_true "python3 '$WORK/invariant.py' '$LEDGER' '$WORK/kept-crash' 4" "after kill $kills: each observation has its one trajectory"
  else
    wait "$pid"
    break  # the run ended first: the study is complete
  fi
done
sleep 0.3  # the killed runs' providers (their own process groups) finish their writes
"$STRATA" run "$WORK/plan-one.json" "$WORK/suite.json" --providers "$WORK/providers-slow.json" --repositories "$WORK/repos.json" \
  --ledger "$LEDGER" --jobs 4 --keep-trajectories "$WORK/kept-crash" >/dev/null 2>"$WORK/crash.err"
CODE=$?
expect_code 0 "after $kills kills, the run completes"
expect_true "python3 '$WORK/invariant.py' '$LEDGER' '$WORK/kept-crash' 4 final" "at the end: one trajectory per observation, none without"
expect_true "[ \$(python3 '$WORK/keys.py' '$LEDGER' | wc -l) = 16 ]" "all 16 executions recorded"
echo "crash loop: $kills kills, $(python3 "$WORK/keys.py" "$LEDGER" | wc -l) executions recorded"
[ "$kills" -gt 0 ] || fail "the crash loop killed no run"
finish
