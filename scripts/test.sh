#!/usr/bin/env bash
# README command 2 (and what .ci/run calls): set up, build, run every test; then build
# with AddressSanitizer + UndefinedBehaviorSanitizer and run every test again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

bash scripts/build.sh build
ctest --test-dir build --output-on-failure

bash scripts/build.sh build-sanitize -DSTRATA_SANITIZE=ON
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-sanitize --output-on-failure
