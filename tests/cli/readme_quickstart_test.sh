#!/usr/bin/env bash
# The front door runs as written (issue 48): README.md's first-study block (between
# <!-- first-study --> and <!-- /first-study -->), then every block of the guides marked
# <!-- guide-test --> (results, adjudicate, scale-out, cm-boundary, run: in that order, each after
# the first study), each run by bash -e in a scratch checkout: `build` is the tested build's
# directory, `examples` a copy of the repository's. Each block must exit 0; the first study must leave its
# ledger, judgements and report; a block that needs what no block made fails here.
# The real-agent blocks (docs/guide/agents.md) need an agent and its key: not run here (the agents
# tests run the same commands against the scripted model server).
# Usage: readme_quickstart_test.sh <strata binary> <repository root>
STRATA=$(realpath "$1")
ROOT=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
CHECKOUT=$WORK/checkout
mkdir -p "$CHECKOUT"
ln -s "$(dirname "$STRATA")" "$CHECKOUT/build"
# Copied: the example's repository config names its repository relative to the checkout.
cp -r "$ROOT/examples" "$CHECKOUT/examples"

# extract <file> <marker> <out>: every ```sh block after a marker, joined into <out>.sh; prints how many
extract() { /usr/bin/python3 "$(dirname "$0")/../support/doc_blocks.py" "$1" "$2" "$3.sh"; }
run_block() {  # run_block <script> <name>
  (cd "$CHECKOUT" && env -u CM_WORKFLOW_LOG_HOME bash "$1") >"$WORK/stdout" 2>"$WORK/stderr"
  CODE=$?
  expect_code 0 "$2 runs as written"
  [ "$CODE" = 0 ] || { sed -n 1,20p "$WORK/stderr" >&2; }
}

count=$(extract "$ROOT/README.md" "<!-- first-study -->" "$WORK/first")
expect_true "[ '$count' = 1 ]" "README.md has one first-study block"
run_block "$WORK/first.sh" "README's first study"
expect_true "grep -q 'Executed: 16' '$WORK/stdout'" "the first study ran its 16 executions"
expect_true "[ -s '$CHECKOUT/out/first/ledger.json' ] && [ -s '$CHECKOUT/out/first/judged.json' ] && grep -q '<svg' '$CHECKOUT/out/first/report.html'" \
  "it left the ledger, the judgements and the report"
run verify "$CHECKOUT/out/first/judged.json"
expect_code 0 "the judged ledger verifies"
# The run line again resumes: nothing executed twice.
expect_true "(cd '$CHECKOUT' && PATH=\"\$PWD/build:\$PATH\" strata run out/first/run-plan.json out/first/task-suite.json --providers out/first/provider-config.json --repositories out/first/repository-config.json --ledger out/first/ledger.json --text | grep -q 'Skipped: 16')" \
  "running it again skips everything recorded, as the README says"

for guide in results adjudicate scale-out cm-boundary run; do
  count=$(extract "$ROOT/docs/guide/$guide.md" "<!-- guide-test -->" "$WORK/$guide")
  expect_true "[ '$count' -gt 0 ]" "docs/guide/$guide.md has tested blocks"
  run_block "$WORK/$guide.sh" "docs/guide/$guide.md's $count block(s), in one shell"
done
expect_true "[ -s '$CHECKOUT/out/first/merged.json' ] && [ -s '$CHECKOUT/out/first/batch-2.json' ] && [ -s '$CHECKOUT/out/first/observations.csv' ]" \
  "the guides' commands made what they say"
# The agents guide's config is one strata run accepts for the example study (pre-flight only).
expect_true "(cd '$CHECKOUT' && PATH=\"\$PWD/build:\$PATH\" strata seal provider-config examples/agents/claude-example-study.payload.json -o out/first/claude.json >/dev/null && PATH=\"\$PWD/build:\$PATH\" strata run out/first/run-plan.json out/first/task-suite.json --providers out/first/claude.json --repositories out/first/repository-config.json --ledger out/first/claude-ledger.json --dry-run >/dev/null)" \
  "the agents guide's provider config passes the example study's pre-flight"
finish
