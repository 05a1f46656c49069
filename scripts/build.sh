#!/usr/bin/env bash
# Configures and builds one build tree.
#
#   scripts/build.sh <dir> [extra cmake args...]
#   BUILD_TARGETS="t1 t2" scripts/build.sh <dir> ...   (only those targets; default: all)
#   STRATA_OPT=-O1 scripts/build.sh <dir> ...            (optimisation level; default -O2)
#
# How it builds, and why (figures in docs/TESTING.md):
# - a unity build (CMAKE_UNITY_BUILD): each target's sources compiled in batches, so the
#   Asio/Beast/nlohmann headers are parsed a few times instead of once per file; about half the
#   CPU time of a fresh build;
# - -g1 (line tables: sanitizer reports and backtraces still name file and line) instead of full
#   debug information, a quarter less compile time; set STRATA_DEBUG_INFO=-g for a debugging tree;
# - the sanitizer and fuzz trees are built at -O1 (scripts/test.sh sets STRATA_OPT): the level
#   the sanitizer and libFuzzer documentation recommend, and a third less compile time than -O2
#   (the Beast translation unit under ASan: 178 -> 121 CPU-s);
# - Ninja when it is installed (scripts/setup.sh installs it), which keeps both cores busy across
#   targets; an existing tree keeps the generator it was configured with;
# - ccache when it is installed (not on a fresh machine, which must not need a warm cache).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
shift
configure=(-S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${STRATA_OPT:--O2} ${STRATA_DEBUG_INFO:--g1} -DNDEBUG")
if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null; then
  configure+=(-G Ninja)
fi
if command -v ccache >/dev/null; then
  configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake "${configure[@]}" "$@" >/dev/null
targets=()
for target in ${BUILD_TARGETS:-}; do targets+=(--target "$target"); done
cmake --build "$dir" -j"$(nproc)" "${targets[@]}"
