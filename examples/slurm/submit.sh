#!/usr/bin/env bash
# Submits a Strata study to Slurm: a job array of SHARDS tasks (shard.sbatch, one shard each),
# then the merge (merge.sbatch) to run once every task succeeded. Run it from the directory that
# holds the study files; the jobs run there too (ledgers/, logs/, the merged ledger).
#
#   SHARDS=8 JOBS=4 STRATA=/opt/strata/bin/strata ./submit.sh
#   ARRAY=1 SHARDS=8 ./submit.sh      resume: re-submit only shard 1 (same SHARDS), then the merge
#
# Settings (environment, with defaults): STRATA=strata, PLAN=plan.json, SUITE=suite.json,
# PROVIDERS=providers.json, REPOSITORIES=repositories.json, SHARDS=4 (N), JOBS=4 (--jobs per shard),
# ARRAY=0-(N-1) (the indexes to submit), LEDGERS=ledgers, OUT=ledger.json, CPUS_PER_SHARD
# (sbatch --cpus-per-task; default 1). Other sbatch options: its own SBATCH_* variables
# (SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_ACCOUNT, ...).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SHARDS=${SHARDS:-4}
ARRAY=${ARRAY:-0-$((SHARDS - 1))}
# Every job gets the submitter's environment (sbatch's default --export=ALL): these settings and
# STRATA_SHARD_COUNT, which makes array task I run shard I of N however it was submitted.
export STRATA=${STRATA:-strata} PLAN=${PLAN:-plan.json} SUITE=${SUITE:-suite.json} \
  PROVIDERS=${PROVIDERS:-providers.json} REPOSITORIES=${REPOSITORIES:-repositories.json} \
  JOBS=${JOBS:-4} LEDGERS=${LEDGERS:-ledgers} OUT=${OUT:-ledger.json} STRATA_SHARD_COUNT=$SHARDS
mkdir -p logs "$LEDGERS"  # Slurm does not create the output directory

shard=(sbatch --parsable --array="$ARRAY" --cpus-per-task="${CPUS_PER_SHARD:-1}" "$here/shard.sbatch")
array_id=$("${shard[@]}")
array_id=${array_id%%;*}  # --parsable prints <id> or <id>;<cluster>
# --kill-on-invalid-dep: if a task fails or is cancelled, the merge is cancelled instead of
# waiting forever (DependencyNeverSatisfied); re-submit the task and the merge (ARRAY=I).
merge=(sbatch --parsable --dependency="afterok:$array_id" --kill-on-invalid-dep=yes "$here/merge.sbatch")
merge_id=$("${merge[@]}")
merge_id=${merge_id%%;*}

echo "shards: $SHARDS (array indexes $ARRAY), --jobs $JOBS per shard"
echo "array job: $array_id  (STRATA_SHARD_COUNT=$SHARDS ${shard[*]})"
echo "merge job: $merge_id  (${merge[*]})"
echo "  each task: $STRATA run $PLAN $SUITE --providers $PROVIDERS --repositories $REPOSITORIES --jobs $JOBS --shard auto --ledger $LEDGERS/shard-<task>.json"
echo "  the merge: $STRATA ledger merge $LEDGERS/shard-{0..$((SHARDS - 1))}.json --plan $PLAN --suite $SUITE --require-complete -o $OUT"
echo "watch: squeue -j $array_id,$merge_id   logs: logs/"
