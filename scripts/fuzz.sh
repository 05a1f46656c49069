#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang into their own build directory and runs
# each one for a while on a copy of its seed corpus; first every saved regression input
# (fuzz/regressions/<target>/*) runs once through its target, so fixed bugs stay fixed.
#
#   scripts/fuzz.sh [seconds-per-target=60] [build-dir=build-fuzz]
#
# Prints a table (target, runs, coverage, features, result) and exits 1 if any target
# crashed (or broke an invariant, leaked, timed out or ran out of memory) or any regression
# input still fails, naming the reproducer. The repository is not modified: the corpora are
# copied to a temporary directory; reproducers go to <build-dir>/fuzz-artifacts/<target>/.
# Needs clang 14 with libFuzzer (Debian: clang, libclang-rt-14-dev); builds with -j2.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
BUILD=${2:-build-fuzz}
JOBS=${STRATA_FUZZ_JOBS:-2}
case "$SECONDS_PER_TARGET" in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [seconds-per-target] [build-dir]" >&2; exit 2 ;; esac

started=$(date +%s)
# Self-sufficient on a fresh Debian machine: the project's packages, then clang with libFuzzer.
if ! command -v clang++ >/dev/null || [ ! -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
  bash scripts/setup.sh
  ${SUDO:-$( [ "$(id -u)" = 0 ] || echo sudo )} apt-get install -y --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi
for tool in clang clang++ cmake; do
  command -v "$tool" >/dev/null || { echo "fuzz.sh: $tool not found (Debian packages: clang cmake)" >&2; exit 2; }
done

echo "== configure and build $BUILD (clang, -fsanitize=fuzzer-no-link,address,undefined)"
CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DSTRATA_FUZZ=ON -DSTRATA_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" --target strata_fuzzers -j"$JOBS"
built=$(date +%s)
echo "== build took $((built - started)) s"

TARGETS=()
for source in fuzz/fuzz_*.cpp; do
  name=$(basename "$source" .cpp)
  [ "$name" = fuzz_support ] && continue
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

failed=0
ROWS=()
FAILURES=()
for target in "${TARGETS[@]}"; do
  binary="$BUILD/fuzz/fuzz_$target"
  [ -x "$binary" ] || { echo "fuzz.sh: $binary was not built" >&2; exit 2; }

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
        FAILURES+=("$target: regression input $input still fails (log: $log)")
      fi
    done
    regression_result="$((total - bad))/$total"
    [ "$bad" -eq 0 ] || failed=1
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
    failed=1
    if grep -q 'ERROR: libFuzzer: timeout' "$log"; then result=timeout
    elif grep -q 'ERROR: libFuzzer: out-of-memory' "$log"; then result=oom
    elif grep -q 'ERROR: LeakSanitizer' "$log"; then result=leak
    elif grep -q '==FUZZ INVARIANT==' "$log"; then result=invariant
    elif grep -q 'uncaught exception\|terminate called' "$log"; then result=exception
    elif [ "$status" -ge 124 ] && [ -z "$reproducer" ]; then result="killed($status)"
    else result=crash
    fi
    FAILURES+=("$target: $result, reproducer ${reproducer:-(none)}, log $log")
  fi
  ROWS+=("$(printf '%-22s %12s %7s %8s %-12s %s' "$target" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$regression_result" "$result")")
done

finished=$(date +%s)
echo
printf '%-22s %12s %7s %8s %-12s %s\n' target runs cov ft regressions result
for row in "${ROWS[@]}"; do echo "$row"; done
echo
echo "build $((built - started)) s, fuzzing $((finished - built)) s, total $((finished - started)) s" \
  "(${SECONDS_PER_TARGET} s per target, ${#TARGETS[@]} targets)"
if [ "$failed" -ne 0 ]; then
  echo
  for line in "${FAILURES[@]}"; do echo "FAILED $line"; done
  echo "Reproduce: $BUILD/fuzz/fuzz_<target> <reproducer>" >&2
  exit 1
fi
