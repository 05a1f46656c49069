#!/usr/bin/env bash
# The Slurm example (examples/slurm) on a real single-node Slurm cluster that this test starts and
# stops itself (tests/support/slurm_cluster.sh; packages: scripts/setup.sh --slurm):
#   - the example study sharded 4 ways by examples/slurm/submit.sh: a job array, one shard per
#     task (strata run --shard auto), and a merge job waiting on the array (afterok);
#   - array task 1 is cancelled while running, after it recorded an observation: the merge job
#     is cancelled (its dependency can never be satisfied), the other shards complete;
#   - task 1 and the merge are re-submitted (ARRAY=1 submit.sh): shard 1 resumes, skipping what
#     it recorded, and the merge writes one ledger that verifies and holds the observations of a
#     single-machine run of the same plan, in the same order, apart from timing fields.
# Prints the Slurm scheduling latencies it observes on stderr. Runs in the release stage only:
# skipped under the sanitizers (the orchestration is tested once) and when not root (the
# daemons run as root).
# Usage: slurm_test.sh <strata binary> <example provider binary> <fixtures dir>
STRATA=$(realpath "$1")
PROVIDER=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
REPO=$(realpath "$(dirname "$0")/../..")

if sanitized_build "$STRATA"; then
  echo "SKIP: the Slurm test runs in the release stage only (this strata is a sanitizer build)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: the Slurm test starts slurmctld, slurmd and munged as root; run it as root"
  exit 0
fi
PATH=$PATH:/usr/sbin:/sbin  # the daemons and mungekey
for tool in munged mungekey slurmctld slurmd sbatch squeue scancel sinfo scontrol; do
  command -v "$tool" >/dev/null || {
    echo "FAIL: $tool is missing: install Slurm and MUNGE with 'bash scripts/setup.sh --slurm'" >&2
    exit 1
  }
done

. "$REPO/tests/support/slurm_cluster.sh"
# The cluster is always torn down, whatever happens (a signal exits through the EXIT trap).
trap 'slurm_cluster_stop; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# state <job id>: its Slurm state (PENDING, RUNNING, COMPLETED, CANCELLED, ...), empty if unknown.
state() { squeue -h -t all -j "$1" -o %T 2>/dev/null | head -n1; }
# wait_gone <deadline in seconds> <job ids, comma-separated>: polls until none is pending or running.
wait_gone() {
  local until=$(($(date +%s) + $1))
  while [ -n "$(squeue -h -j "$2" 2>/dev/null)" ]; do
    [ "$(date +%s)" -lt "$until" ] || return 1
    sleep 0.1
  done
}

# --- the study: the example study with a provider that takes a while per execution ----------------
# The delay is read from a file, not written in the wrapper, so that the shorter delay after the
# cancellation changes no provider program (a resume refuses changed inputs).
echo 0.5 >"$WORK/delay"
cat >"$WORK/slow-provider" <<SH
#!/usr/bin/env bash
sleep "\$(cat '$WORK/delay')"
exec '$PROVIDER' "\$@"
SH
chmod +x "$WORK/slow-provider"
make_example_study "$WORK/slow-provider" slurm
PLANNED=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sampling"]["sampleSize"])' "$WORK/plan-slurm.json")
expect_true "[ '$PLANNED' -ge 8 ]" "the example plan selects enough executions for 4 shards ($PLANNED)"
SHARE=$(((PLANNED - 1 - 1) / 4 + 1))  # shard 1 of 4: positions 1, 5, 9, ...

JOB=$WORK/job
mkdir -p "$JOB"
# submit [settings...]: examples/slurm/submit.sh from the job directory; $SUBMITTED has its output,
# $ARRAY_ID and $MERGE_ID the job ids it printed.
submit() {
  SUBMITTED=$(cd "$JOB" && env STRATA="$STRATA" PLAN="$WORK/plan-slurm.json" SUITE="$WORK/suite.json" \
    PROVIDERS="$WORK/providers.json" REPOSITORIES="$WORK/repos.json" SHARDS=4 JOBS=1 "$@" \
    bash "$REPO/examples/slurm/submit.sh" 2>&1)
  CODE=$?
  ARRAY_ID=$(sed -n 's/^array job: \([0-9]*\).*/\1/p' <<<"$SUBMITTED")
  MERGE_ID=$(sed -n 's/^merge job: \([0-9]*\).*/\1/p' <<<"$SUBMITTED")
  echo "$SUBMITTED" >"$WORK/stdout"
  : >"$WORK/stderr"
}

started=$(now)
slurm_cluster_start || { echo "FAIL: the Slurm cluster did not start" >&2; exit 1; }
echo "slurm: cluster up in $(since "$started") s" >&2

# --- 4 shards and the merge ---------------------------------------------------------------------------
submitted=$(now)
submit
expect_code 0 "submit.sh"
expect_true "[ -n '$ARRAY_ID' ] && [ -n '$MERGE_ID' ]" "submit.sh prints the array and merge job ids"
expect_out_has "shards: 4" "submit.sh prints N"
expect_out_has "--shard auto" "submit.sh prints the shard command"
expect_out_has "ledger merge" "submit.sh prints the merge command"
expect_true "[ \"\$(state $MERGE_ID)\" = PENDING ]" "the merge job waits for the array"

# Cancel task 1 while it runs, once it recorded an observation: its journal holds a line (a fresh
# shard's ledger holds no observation before the journal is folded, at the end or on interrupt).
L1=$JOB/ledgers/shard-1.json
first_running="" cancelled=""
until=$(($(date +%s) + 60))
while [ "$(date +%s)" -lt "$until" ]; do
  s=$(state "${ARRAY_ID}_1")
  [ -z "$first_running" ] && squeue -h -t all -j "$ARRAY_ID" -o %T | grep -q RUNNING && first_running=$(since "$submitted")
  if [ "$s" = RUNNING ] && [ -s "$L1.journal" ]; then
    scancel "${ARRAY_ID}_1" && cancelled=1
    break
  fi
  case $s in RUNNING | PENDING | CONFIGURING | "") sleep 0.1 ;; *) break ;; esac
done
echo "slurm: sbatch of the array to its first running task: ${first_running:-?} s" >&2
expect_true "[ -n '$cancelled' ]" "array task 1 cancelled while running, after recording (state then: $s)"

expect_true "wait_gone 60 '$ARRAY_ID,$MERGE_ID'" "the array and the merge end after the cancellation"
for i in 0 2 3; do
  expect_true "[ \"\$(state ${ARRAY_ID}_$i)\" = COMPLETED ]" "array task $i completed"
done
expect_true "[ \"\$(state ${ARRAY_ID}_1)\" = CANCELLED ]" "array task 1 cancelled"
expect_true "[ \"\$(state $MERGE_ID)\" = CANCELLED ]" "the merge job is cancelled (dependency never satisfied)"
expect_file_absent "$JOB/ledger.json" "no merged ledger from an incomplete array"
# What shard 1 recorded before it was cancelled: its ledger's observations and its journal's lines.
recorded=$(python3 - "$L1" <<'PY'
import json, os, sys
seen = set()
if os.path.exists(sys.argv[1]):
    seen |= {o["contentHash"] for o in json.load(open(sys.argv[1]))["observations"]}
if os.path.exists(sys.argv[1] + ".journal"):
    seen |= {json.loads(line)["contentHash"] for line in open(sys.argv[1] + ".journal") if line.endswith("\n")}
print(len(seen))
PY
)
echo "slurm: shard 1 had recorded $recorded of its $SHARE executions when it was cancelled" >&2
expect_true "[ '$recorded' -ge 1 ] && [ '$recorded' -lt $SHARE ]" "shard 1 was cancelled part-way ($recorded of $SHARE recorded)"

# --- resume: re-submit shard 1 and the merge -----------------------------------------------------------
echo 0.05 >"$WORK/delay"
first_array=$ARRAY_ID
resubmitted=$(now)
submit ARRAY=1
expect_code 0 "submit.sh ARRAY=1 (resume shard 1)"
expect_out_has "array indexes 1" "the resubmission names index 1"
first_running=""
until=$(($(date +%s) + 120))
while [ -n "$(squeue -h -j "$ARRAY_ID,$MERGE_ID" 2>/dev/null)" ] && [ "$(date +%s)" -lt "$until" ]; do
  [ -z "$first_running" ] && [ "$(state "${ARRAY_ID}_1")" = RUNNING ] && first_running=$(since "$resubmitted")
  sleep 0.1
done
echo "slurm: sbatch of the re-submitted task to running: ${first_running:-?} s; resubmission to merged ledger: $(since "$resubmitted") s" >&2
expect_true "[ -z \"\$(squeue -h -j $ARRAY_ID,$MERGE_ID)\" ]" "the resubmission and the merge end"
expect_true "[ \"\$(state ${ARRAY_ID}_1)\" = COMPLETED ]" "the re-submitted task 1 completed"
expect_true "[ \"\$(state $MERGE_ID)\" = COMPLETED ]" "the merge job completed"
# Slurm's own times (whole seconds): the array task's end to the dependent merge's start.
job_time() { date -d "$(scontrol show job "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p" | head -n1)" +%s 2>/dev/null; }
echo "slurm: afterok: the merge started $(($(job_time "$MERGE_ID" StartTime) - $(job_time "${ARRAY_ID}_1" EndTime))) s after the array ended (whole seconds)" >&2
for id in "${ARRAY_ID}_1" "$MERGE_ID"; do
  expect_true "scontrol show job '$id' | grep -q 'ExitCode=0:0'" "job $id exit code 0"
done
log1=$JOB/logs/strata-shard-${ARRAY_ID}_1.out
executed=$(sed -n 's/^Executed: //p' "$log1" 2>/dev/null)
skipped=$(sed -n 's/^Skipped: //p' "$log1" 2>/dev/null)
expect_true "[ -n '$executed' ] && [ -n '$skipped' ] && [ \$(($executed + $skipped)) -eq $SHARE ]" \
  "the resumed shard 1 covers its share of $SHARE (executed '$executed', skipped '$skipped')"
expect_true "[ '$skipped' = '$recorded' ] && [ '$executed' = $((SHARE - recorded)) ]" \
  "the resumed shard 1 skips the $recorded execution(s) it recorded before the cancellation and runs the rest"
expect_true "[ \"\$(ledger_counts '$L1')\" = 'append-slurm=$SHARE max-repeat=1' ]" \
  "shard 1's ledger holds its share, each execution once"

# --- the merged ledger equals a single-machine run --------------------------------------------------------
MERGED=$JOB/ledger.json
run verify --text "$MERGED"
expect_code 0 "the merged ledger verifies"
expect_true "[ \"\$(ledger_counts '$MERGED')\" = 'append-slurm=$PLANNED max-repeat=1' ]" \
  "the merged ledger holds every execution once"
JOBS=4 study_run slurm "$WORK/single.json"
expect_code 0 "the single-machine run of the same plan"
# Observations without their timing fields (observedAt, execution.durationMs, any measurement that
# is a duration) and so without their content hashes.
cat >"$WORK/untimed.py" <<'PY'
import json, re, sys
duration = re.compile(r"(duration|elapsed|Ms$|Seconds$|_ms$|_s$)", re.I)
for o in json.load(open(sys.argv[1]))["observations"]:
    for key in ("observedAt", "contentHash", "contentHashAlgo"):
        o.pop(key, None)
    o.get("execution", {}).pop("durationMs", None)
    for key in [k for k in o.get("measurements", {}) if duration.search(k)]:
        del o["measurements"][key]
    print(json.dumps(o))  # members in their order: the order is compared too
PY
python3 "$WORK/untimed.py" "$MERGED" >"$WORK/merged.untimed"
python3 "$WORK/untimed.py" "$WORK/single.json" >"$WORK/single.untimed"
expect_true "[ \$(wc -l <'$WORK/single.untimed') -eq $PLANNED ]" "the single-machine run records every execution"
expect_true "cmp -s '$WORK/merged.untimed' '$WORK/single.untimed'" \
  "the merged ledger has the single-machine run's observations, in its order, apart from timing"
if ! cmp -s "$WORK/merged.untimed" "$WORK/single.untimed"; then
  diff "$WORK/single.untimed" "$WORK/merged.untimed" | head -c 2000 >&2
fi
[ "$failures" -eq 0 ] || for f in "$JOB"/logs/*.out; do echo "----- $f" >&2; tail -n 15 "$f" >&2; done

echo "slurm: the whole test took $(since "$started") s (array $first_array, resubmission $ARRAY_ID)" >&2
finish
