#!/usr/bin/env bash
# README command 1: set up, build, and run the main job on the bundled example study.
# For now the main job seals the example study (examples/study/*.payload.json), verifies
# every sealed artifact, and prints their summaries and the execution matrix.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
strata=build/strata
out=out/example
mkdir -p "$out"

for kind in task-suite run-plan provider-config repository-config; do
  "$strata" seal "$kind" "examples/study/$kind.payload.json" -o "$out/$kind.json"
done
"$strata" verify --text "$out"/*.json
echo
"$strata" tasks --text "$out/task-suite.json"
echo
"$strata" plan --text "$out/run-plan.json"
echo
"$strata" providers --text "$out/provider-config.json"
echo
"$strata" select --text "$out/task-suite.json"
echo
echo "Sealed example study: $(realpath "$out")"
