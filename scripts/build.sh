#!/usr/bin/env bash
# Configures and builds one build tree.
#
#   scripts/build.sh <dir> [extra cmake args...]
#   BUILD_TARGETS="t1 t2" scripts/build.sh <dir> ...   (only those targets; default: all)
#
# How it builds, and why (figures in docs/TESTING.md):
# - a unity build (CMAKE_UNITY_BUILD): each target's sources compiled in batches, so the
#   Asio/Beast/nlohmann headers are parsed a few times instead of once per file; about half the
#   CPU time of a fresh build;
# - -g1 (line tables: sanitizer reports and backtraces still name file and line) instead of full
#   debug information, a quarter less compile time; set STRATA_DEBUG_INFO=-g for a debugging tree;
# - Ninja when it is installed (scripts/setup.sh installs it), which keeps both cores busy across
#   targets; an existing tree keeps the generator it was configured with;
# - ccache when it is installed (not on a fresh machine, which must not need a warm cache).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
shift
configure=(-S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 ${STRATA_DEBUG_INFO:--g1} -DNDEBUG")
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
