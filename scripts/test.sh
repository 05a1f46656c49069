#!/usr/bin/env bash
# README command 2 (and what .ci/run calls): set up, build, run every test; then build
# with AddressSanitizer + UndefinedBehaviorSanitizer and run every test again; then the engine
# tests (event loop, spawn threads, fsync thread) under ThreadSanitizer; then fuzz
# every parser of outside input for a bounded time (STRATA_FUZZ_SECONDS per target, default
# 60, after its saved regression inputs; scripts/fuzz.sh installs clang itself).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

bash scripts/build.sh build
ctest --test-dir build --output-on-failure

bash scripts/build.sh build-sanitize -DSTRATA_SANITIZE=ON
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-sanitize --output-on-failure

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRATA_TSAN=ON >/dev/null
cmake --build build-tsan --target strata_engine_tests -j"$(nproc)"
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 build-tsan/tests/strata_engine_tests

bash scripts/fuzz.sh "${STRATA_FUZZ_SECONDS:-60}" build-fuzz
