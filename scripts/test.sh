#!/usr/bin/env bash
# README command 2 (and what .ci/run calls): set up, build and run every test stage.
#
#   scripts/test.sh                      every stage (the default)
#   scripts/test.sh --stage asan [...]   only the named stage(s); --list names them
#
# Stages (docs/TESTING.md has what each covers and its time on a fresh clone):
#   release  the optimised build (build/), every ctest entry: unit cases and CLI tests
#   asan     the same suite under AddressSanitizer + UndefinedBehaviorSanitizer (build-sanitize/)
#   tsan     the engine tests (event loop, spawn threads, fsync thread) under ThreadSanitizer
#   includes every source file of every target of the default build parsed on its own (no unity
#            batches), as a plain `cmake --build` compiles it (scripts/check-includes.sh)
#   fuzz     every fuzz target's saved regression inputs, then STRATA_FUZZ_SECONDS (default 10)
#            of fuzzing per target (scripts/fuzz.sh; a long campaign: scripts/fuzz.sh <seconds>)
#
# Each stage is a build, then a run. Builds take both cores, so they go one after another; the
# suites (release, asan: `ctest -j2`) run one at a time as soon as their build is done, beside
# the next build; the tsan and fuzz runs follow their own builds. Output goes to
# test-logs/<stage>-{build,run}.log; a line per step is printed, and the log of a failed step is
# printed in full at the end. Every stage runs even when an earlier one failed; the exit status
# is 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

ALL_STAGES=(release asan tsan includes fuzz)
STAGES=()
while [ $# -gt 0 ]; do
  case $1 in
    --stage)
      [ $# -ge 2 ] || { echo "test.sh: --stage needs a name (${ALL_STAGES[*]})" >&2; exit 1; }
      case " ${ALL_STAGES[*]} " in *" $2 "*) STAGES+=("$2") ;; *)
        echo "test.sh: unknown stage '$2' (stages: ${ALL_STAGES[*]})" >&2; exit 1 ;; esac
      shift 2 ;;
    --list) printf '%s\n' "${ALL_STAGES[@]}"; exit 0 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown argument '$1' (try --help)" >&2; exit 1 ;;
  esac
done
[ ${#STAGES[@]} -gt 0 ] || STAGES=("${ALL_STAGES[@]}")
FUZZ_SECONDS=${STRATA_FUZZ_SECONDS:-10}
JOBS=${STRATA_TEST_JOBS:-2}

started=$(date +%s)
elapsed() { local s=$(($(date +%s) - started)); printf '%02d:%02d' $((s / 60)) $((s % 60)); }
say() { echo "[$(elapsed)] $*"; }

LOGS=test-logs
rm -rf "$LOGS"
mkdir -p "$LOGS"
STATE=$(mktemp -d "${TMPDIR:-/tmp}/strata-test-state.XXXXXX")
trap 'rm -rf "$STATE"' EXIT

say "setup"
bash scripts/setup.sh
case " ${STAGES[*]} " in *" fuzz "*) bash scripts/setup.sh --fuzz ;; esac
case " ${STAGES[*]} " in *" release "* | *" asan "*) bash scripts/setup.sh --browser ;; esac
case " ${STAGES[*]} " in *" release "*) bash scripts/setup.sh --slurm; bash scripts/setup.sh --agents ;; esac

# --- what each stage builds and runs -----------------------------------------------------------
build_release() { bash scripts/build.sh build; }
run_release() { ctest --test-dir build -j"$JOBS" --output-on-failure; }

build_asan() { STRATA_OPT=-O1 bash scripts/build.sh build-sanitize -DSTRATA_SANITIZE=ON; }
run_asan() {
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize -j"$JOBS" --output-on-failure
}

build_tsan() { STRATA_OPT=-O1 BUILD_TARGETS=strata_engine_tests bash scripts/build.sh build-tsan -DSTRATA_TSAN=ON; }
run_tsan() { TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 build-tsan/tests/strata_engine_tests; }

# Every source of every default target on its own, as a plain `cmake --build` (no unity batches)
# compiles it: a unity batch hides a missing include or declaration behind a neighbour's (issue
# 35, part 0). A parse of each file (-fsyntax-only) proves it for about half the CPU of the
# non-unity TSan tree that proved it for the libraries alone; it has no run, and sits in the
# build lane, which has slack beside the ASan suite (docs/TESTING.md).
# The files a unity batch of the release tree starts with were compiled as a plain build would
# compile them (nothing precedes them in their batch): they are not parsed again.
build_includes() {
  if [ -e "$STATE/release.build.ok" ]; then STRATA_INCLUDES_PROVEN_BY=build bash scripts/check-includes.sh build-includes
  else bash scripts/check-includes.sh build-includes; fi
}
run_includes() { :; }

build_fuzz() { STRATA_FUZZ_STEP=build bash scripts/fuzz.sh "$FUZZ_SECONDS" build-fuzz; }
run_fuzz() { STRATA_FUZZ_STEP=run STRATA_FUZZ_JOBS=$JOBS bash scripts/fuzz.sh "$FUZZ_SECONDS" build-fuzz; }

# step <stage> <build|run>: runs it into its log; records its time and result in $STATE.
step() {
  local stage=$1 what=$2 t0 status=0 TIMEFORMAT='%U %S'
  t0=$(date +%s)
  # `time` (the shell keyword) gives the step's CPU seconds, user and system, of all its processes.
  { time "${what}_${stage}" >"$LOGS/$stage-$what.log" 2>&1; } 2>"$STATE/$stage.$what.cpu" || status=$?
  echo "$(($(date +%s) - t0))" >"$STATE/$stage.$what.seconds"
  if [ "$status" -eq 0 ]; then
    touch "$STATE/$stage.$what.ok"
    say "$stage: $what passed ($(cat "$STATE/$stage.$what.seconds") s)"
  else
    touch "$STATE/$stage.$what.failed"
    say "$stage: $what FAILED (exit $status; $LOGS/$stage-$what.log)"
  fi
  touch "$STATE/$stage.$what.done"
}

# The test suites (ctest) run in the run lane; the short runs (tsan, fuzz: a few minutes, mostly
# wall-clock bound) in the build lane right after their build, once the earlier builds are done,
# so they need not wait behind the long sanitizer suite.
in_build_lane() { [ "$1" = tsan ] || [ "$1" = includes ] || [ "$1" = fuzz ]; }

# The build lane: one build at a time, in stage order.
build_lane() {
  local stage
  for stage in "${STAGES[@]}"; do
    say "$stage: build started"
    step "$stage" build
    if in_build_lane "$stage" && [ -e "$STATE/$stage.build.ok" ]; then
      say "$stage: run started"
      step "$stage" run
    fi
  done
}

# The run lane: each suite's run once its build is done (skipped when the build failed).
run_lane() {
  local stage
  for stage in "${STAGES[@]}"; do
    in_build_lane "$stage" && continue
    while [ ! -e "$STATE/$stage.build.done" ]; do sleep 1; done
    if [ -e "$STATE/$stage.build.ok" ]; then
      say "$stage: run started"
      step "$stage" run
    fi
  done
}

build_lane &
builds=$!
run_lane &
runs=$!
wait "$builds" "$runs" || true

# --- the summary ------------------------------------------------------------------------------------
failed=()
echo
# cpu <stage> <build|run>: the step's CPU seconds (user + system), or -.
cpu() { awk '{ printf "%.0f", $1 + $2 }' "$STATE/$1.$2.cpu" 2>/dev/null || echo -; }
printf '%-8s %10s %10s %10s %10s  %s\n' stage build "build cpu" run "run cpu" result
for stage in "${STAGES[@]}"; do
  result=passed
  for what in build run; do
    if [ -e "$STATE/$stage.$what.failed" ]; then result="$what failed"; failed+=("$LOGS/$stage-$what.log"); fi
  done
  [ -e "$STATE/$stage.run.done" ] || [ "$result" != passed ] || { result="not run"; failed+=("$stage: not run"); }
  printf '%-8s %9ss %9ss %9ss %9ss  %s\n' "$stage" "$(cat "$STATE/$stage.build.seconds" 2>/dev/null || echo -)" \
    "$(cpu "$stage" build)" "$(cat "$STATE/$stage.run.seconds" 2>/dev/null || echo -)" "$(cpu "$stage" run)" "$result"
done
echo "total $(elapsed) (mm:ss); CPU of all steps $(cat "$STATE"/*.cpu 2>/dev/null | awk '{ s += $1 + $2 } END { printf "%.0f", s }') s"
if [ ${#failed[@]} -gt 0 ]; then
  for log in "${failed[@]}"; do
    [ -f "$log" ] || { echo "FAILED: $log" >&2; continue; }
    echo
    echo "===== $log ====="
    cat "$log"
  done
  echo
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
