#!/usr/bin/env bash
# README command 1: set up, build, and run the main job on the bundled example study:
# seal the example study (examples/study/*.payload.json), verify it, run its plan with
# the deterministic example provider, and print the summary and the ledger path, its metrics, and
# write the report page out/example/report.html.
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
# The example provider is built beside strata; the provider config finds it on PATH.
# A second run of the same command resumes: every recorded execution is skipped.
PATH="$PWD/build:$PATH" "$strata" run "$out/run-plan.json" "$out/task-suite.json" \
  --providers "$out/provider-config.json" --repositories "$out/repository-config.json" \
  --ledger "$out/ledger.json" --jobs 4 --text
"$strata" verify --text "$out/ledger.json"
echo
# The results: per-arm metrics and the paired comparison, then the report page.
"$strata" metrics --text "$out/ledger.json"
"$strata" report "$out/ledger.json" --suite "$out/task-suite.json" -o "$out/report.html" --text
echo "Ledger: $(realpath "$out/ledger.json")"
echo "Report: $(realpath "$out/report.html") (open it in a browser)"
