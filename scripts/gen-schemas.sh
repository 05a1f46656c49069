#!/usr/bin/env bash
# Regenerates schemas/*.schema.json from the shapes compiled into strata, so the
# published schemas and the validator cannot drift apart (tests/cli/schemas_test.sh
# fails when a committed schema differs from what the binary prints).
set -euo pipefail
cd "$(dirname "$0")/.."
STRATA=${1:-build/strata}
for name in provider-config repository-config task-suite run-plan observation ledger protocol verifier-config \
            provider-request provider-response adjudicator-request adjudicator-response; do
  "$STRATA" schema "$name" >"schemas/$name.schema.json"
done
echo "schemas/ regenerated"
