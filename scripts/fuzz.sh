#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang into their own build directory and runs
# each one for a while on a copy of its seed corpus; first every saved regression input
# (fuzz/regressions/<target>/*) runs once through its target, so fixed bugs stay fixed.
#
#   scripts/fuzz.sh [seconds-per-target=60] [build-dir=build-fuzz]
#
# A long campaign: scripts/fuzz.sh 600 (ten minutes a target). scripts/test.sh runs it with 20 s.
# STRATA_FUZZ_JOBS=N fuzzes N targets at once (default 1; each fuzzer takes one core).
# STRATA_FUZZ_STEP=build or run does only that half (scripts/test.sh overlaps them with other
# stages); the default does both.
#
# Prints a table (target, runs, coverage, features, result) and exits 1 if any target
# crashed (or broke an invariant, leaked, timed out or ran out of memory) or any regression
# input still fails, naming the reproducer. The repository is not modified: the corpora are
# copied to a temporary directory; reproducers go to <build-dir>/fuzz-artifacts/<target>/.
# Needs clang 14 with libFuzzer (Debian: clang, libclang-rt-14-dev; installed when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
BUILD=${2:-build-fuzz}
PARALLEL=${STRATA_FUZZ_JOBS:-1}
STEP=${STRATA_FUZZ_STEP:-all}
case "$SECONDS_PER_TARGET" in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [seconds-per-target] [build-dir]" >&2; exit 2 ;; esac
case "$PARALLEL" in '' | 0 | *[!0-9]*) echo "fuzz.sh: STRATA_FUZZ_JOBS must be a positive number" >&2; exit 2 ;; esac
case "$STEP" in all | build | run) ;; *) echo "fuzz.sh: STRATA_FUZZ_STEP must be all, build or run" >&2; exit 2 ;; esac

started=$(date +%s)
built=$started
if [ "$STEP" != run ]; then
  # Self-sufficient on a fresh Debian machine: the project's packages, then clang with libFuzzer
  # (setup.sh installs only what dpkg does not list as installed).
  bash scripts/setup.sh
  bash scripts/setup.sh --fuzz >/dev/null
  for tool in clang clang++ cmake; do
    command -v "$tool" >/dev/null || { echo "fuzz.sh: $tool not found (Debian packages: clang cmake)" >&2; exit 2; }
  done
  echo "== configure and build $BUILD (clang, -fsanitize=fuzzer-no-link,address,undefined)"
  STRATA_OPT=${STRATA_OPT:--O1} CC=clang CXX=clang++ BUILD_TARGETS=strata_fuzzers bash scripts/build.sh "$BUILD" -DSTRATA_FUZZ=ON -DSTRATA_TESTS=OFF
  built=$(date +%s)
  echo "== build took $((built - started)) s"
  [ "$STEP" = build ] && exit 0
fi

TARGETS=()
for source in fuzz/fuzz_*.cpp; do
  name=$(basename "$source" .cpp)
  case $name in fuzz_support | fuzz_main) continue ;; esac  # not targets: shared code, the dispatcher
  TARGETS+=("${name#fuzz_}")
done

RUN=$(mktemp -d "${TMPDIR:-/tmp}/strata-fuzz.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
# The harnesses that go through files (journal, event log) make their scratch files here
# (on tmpfs when /dev/shm is there): removed with $RUN even if a target aborts.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then SCRATCH=$(mktemp -d /dev/shm/strata-fuzz.XXXXXX); else SCRATCH="$RUN/scratch"; fi
mkdir -p "$SCRATCH"
trap 'rm -rf "$RUN" "$SCRATCH"' EXIT
export STRATA_FUZZ_SCRATCH="$SCRATCH"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ARTIFACTS="$BUILD/fuzz-artifacts"
LOGS="$BUILD/fuzz-logs"
mkdir -p "$ARTIFACTS" "$LOGS"

# fuzz_target <target>: its regression inputs, then its fuzzing; writes its table row to
# $RUN/rows/<target> and each failure as a line of $RUN/failures/<target>.
mkdir -p "$RUN/rows" "$RUN/failures"
fuzz_target() {
  local target=$1 binary regression_result total bad input log corpus dictionary status runs last cov ft reproducer result
  local failures="$RUN/failures/$target"
  binary="$BUILD/fuzz/fuzz_$target"
  [ -x "$binary" ] || { echo "fuzz.sh: $binary was not built" >&2; echo "$target: not built" >>"$failures"; return; }

  mkdir -p "$ARTIFACTS/$target"
  # 1. The saved regression inputs, each run once.
  regression_result="-"
  if [ -d "fuzz/regressions/$target" ] && [ -n "$(ls -A "fuzz/regressions/$target")" ]; then
    total=0 bad=0
    for input in "fuzz/regressions/$target"/*; do
      total=$((total + 1))
      log="$LOGS/$target.regression.$(basename "$input").log"
      if ! "$binary" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$ARTIFACTS/$target/regression-" "$input" \
        >"$log" 2>&1; then
        bad=$((bad + 1))
        echo "$target: regression input $input still fails (log: $log)" >>"$failures"
      fi
    done
    regression_result="$((total - bad))/$total"
  fi

  # 2. Fuzzing from a copy of the seed corpus.
  corpus="$RUN/corpus/$target"
  mkdir -p "$corpus"
  [ -d "fuzz/corpus/$target" ] && cp -R "fuzz/corpus/$target/." "$corpus/"
  log="$LOGS/$target.log"
  echo "== $target: ${SECONDS_PER_TARGET}s from $(ls "$corpus" | wc -l) seeds"
  dictionary=()
  [ -f "fuzz/dict/$target.dict" ] && dictionary=(-dict="fuzz/dict/$target.dict")
  status=0
  timeout --kill-after=10 $((SECONDS_PER_TARGET + 120)) "$binary" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 "${dictionary[@]}" -artifact_prefix="$ARTIFACTS/$target/" "$corpus" \
    >"$log" 2>&1 || status=$?

  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  [ -n "$runs" ] || runs=$(sed -E -n 's/^#([0-9]+).*/\1/p' <<<"$last")
  cov=$(sed -E -n 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -E -n 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  reproducer=$(sed -E -n 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -1)
  if [ "$status" -eq 0 ]; then
    result=ok
  else
    if grep -q 'ERROR: libFuzzer: timeout' "$log"; then result=timeout
    elif grep -q 'ERROR: libFuzzer: out-of-memory' "$log"; then result=oom
    elif grep -q 'ERROR: LeakSanitizer' "$log"; then result=leak
    elif grep -q '==FUZZ INVARIANT==' "$log"; then result=invariant
    elif grep -q 'uncaught exception\|terminate called' "$log"; then result=exception
    elif [ "$status" -ge 124 ] && [ -z "$reproducer" ]; then result="killed($status)"
    else result=crash
    fi
    echo "$target: $result, reproducer ${reproducer:-(none)}, log $log" >>"$failures"
  fi
  printf '%-22s %12s %7s %8s %-12s %s\n' "$target" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$regression_result" "$result" \
    >"$RUN/rows/$target"
}

# $PARALLEL targets at a time.
for target in "${TARGETS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$PARALLEL" ]; do wait -n || true; done
  fuzz_target "$target" &
done
wait

finished=$(date +%s)
echo
printf '%-22s %12s %7s %8s %-12s %s\n' target runs cov ft regressions result
for target in "${TARGETS[@]}"; do cat "$RUN/rows/$target" 2>/dev/null || echo "$target: no result"; done
echo
echo "build $((built - started)) s, fuzzing $((finished - built)) s, total $((finished - started)) s" \
  "(${SECONDS_PER_TARGET} s per target, ${#TARGETS[@]} targets, $PARALLEL at a time)"
results=$(ls "$RUN/rows" | wc -l)
if [ -n "$(cat "$RUN"/failures/* 2>/dev/null)" ] || [ "$results" -ne ${#TARGETS[@]} ]; then
  echo
  cat "$RUN"/failures/* 2>/dev/null | sed 's/^/FAILED /'
  [ "$results" -eq ${#TARGETS[@]} ] || echo "FAILED: $((${#TARGETS[@]} - results)) target(s) gave no result"
  echo "Reproduce: $BUILD/fuzz/fuzz_<target> <reproducer>" >&2
  exit 1
fi
