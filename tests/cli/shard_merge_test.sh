#!/usr/bin/env bash
# strata run --shard and strata ledger merge on the example study (issue 17, docs/SCALE-OUT.md),
# and strata adjudicate --shard with merge --base:
#   - three shards of the example plan (16 executions) are disjoint and together the plan; merged
#     (with and without --plan) they equal a single-machine run apart from timing; a re-run of a
#     shard runs nothing; a resume with another shard is refused;
#   - merge refusals, each exit 2 with nothing written: a run under two plan hashes, a conflicting
#     duplicate (both sources named), a tampered input, a missing shard with --require-complete,
#     the output equal to an input, --require-complete without --plan;
#   - adjudication in 2 shards merged onto the base equals one adjudication apart from timing.
# Usage: shard_merge_test.sh <strata binary> <strata-example-provider binary>
STRATA=$(realpath "$1")
PROVIDER=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
make_example_study "$PROVIDER" one two
cd "$WORK" || exit 1
study() { run run plan-one.json suite.json --providers providers.json --repositories repos.json "$@"; }
cat >same.py <<'PY'
# same.py <a> <b>: the same observations in the same order, apart from timing and seals
import json, sys
def normal(path):
    out = []
    for o in json.load(open(path))["observations"]:
        o = dict(o)
        for member in ("observedAt", "contentHash"): o.pop(member, None)
        o["execution"] = {k: v for k, v in o["execution"].items() if k != "durationMs"}
        o["measurements"] = {k: v for k, v in o.get("measurements", {}).items() if k != "adjudicatorLatencyMs"}
        out.append(json.dumps(o, sort_keys=True))
    return out
a, b = normal(sys.argv[1]), normal(sys.argv[2])
sys.exit(0 if a == b and a else 1)
PY
keys() { python3 -c 'import json,sys; print("\n".join(json.dumps(o["task"], sort_keys=True) for o in json.load(open(sys.argv[1]))["observations"]))' "$1"; }

study --ledger single.json --text
expect_code 0 "the single-machine run"
for i in 0 1 2; do
  study --ledger "shard-$i.json" --shard "$i/3" --text
  expect_code 0 "shard $i/3"
  expect_out_has "Shard: $i/3 of 16 selected executions" "shard $i/3: the summary names the shard"
done
expect_true "[ \"\$( (keys shard-0.json; keys shard-1.json; keys shard-2.json) | sort | uniq -d)\" = '' ]" "the shards are disjoint"
expect_true "[ \"\$( (keys shard-0.json; keys shard-1.json; keys shard-2.json) | sort)\" = \"\$(keys single.json | sort)\" ]" "their union is the plan's selection"
study --ledger shard-1.json --shard 1/3 --text
expect_out_has "Executed: 0" "a re-run of a shard runs nothing"
cp shard-1.json shard-1.before
study --ledger shard-1.json --shard 2/3
expect_code 2 "a resume with another shard is refused"
expect_err_has "shard changed since run append-one started: 1/3 -> 2/3" "the change is named"
expect_true "cmp -s shard-1.json shard-1.before" "the refused resume left the shard's ledger as it was"
bad_input "--shard 3/3" "shard index 3 is not below the shard count 3" \
  run plan-one.json suite.json --providers providers.json --repositories repos.json --ledger new.json --shard 3/3
expect_file_absent new.json "--shard 3/3"

run ledger merge shard-0.json shard-1.json shard-2.json -o merged.json --text
expect_code 0 "merge in shard order"
expect_out_has "Observations: 16" "every observation merged"
expect_true "python3 same.py single.json merged.json" "the merge equals the single-machine run apart from timing"
run verify merged.json
expect_code 0 "the merged ledger verifies"
run ledger merge shard-2.json shard-0.json shard-1.json shard-1.json -o merged-plan.json --plan plan-one.json --suite suite.json --require-complete --text
expect_code 0 "merge out of order, with the plan and a shard given twice"
expect_out_has "Duplicates kept once: 5" "the repeated shard's observations are kept once"
expect_true "python3 same.py single.json merged-plan.json" "with --plan the order is the plan's selection order"

# --- refusals: exit 2, one line, nothing written --------------------------------------------------
study --ledger other-run.json
python3 -c 'import json; p=json.load(open("plan-one.payload.json")); p["budget"]["maxRuntimeMs"] += 1; json.dump(p, open("plan-changed.payload.json", "w"))'
"$STRATA" seal run-plan plan-changed.payload.json -o plan-changed.json >/dev/null
run run plan-changed.json suite.json --providers providers.json --repositories repos.json --ledger other-plan.json
expect_code 0 "run append-one under another plan"
bad_input "a run under two plan hashes" "these are not shards of one run" ledger merge shard-0.json other-plan.json -o out.json
expect_file_absent out.json "two plan hashes"
bad_input "a conflicting duplicate" "differs between shard-0.json and other-run.json" ledger merge shard-0.json other-run.json -o out.json
expect_file_absent out.json "a conflicting duplicate"
cp shard-2.json tampered.json
tamper_in_place tampered.json '"contextBytes": 2' '"contextBytes": 3'
run ledger merge shard-0.json shard-1.json tampered.json -o out.json
expect_code 2 "a tampered input"
expect_err_has "tampered.json" "the tampered input is named"
expect_file_absent out.json "a tampered input"
run ledger merge shard-0.json shard-1.json -o out.json --plan plan-one.json --suite suite.json --require-complete
expect_code 2 "a missing shard with --require-complete"
expect_err_has "--require-complete: 5 of the 16 executions the plan selects for run append-one are in none of the ledgers" "the count is named"
expect_true "[ \"\$(grep -c '^  consumer-' '$WORK/stderr')\" = 5 ]" "each missing execution is listed"
expect_file_absent out.json "a missing shard"
bad_input "the output is an input" "the output is also an input" ledger merge shard-0.json shard-1.json -o shard-1.json
expect_true "cmp -s shard-1.json shard-1.before" "the input named as output is untouched"
bad_input "--require-complete without the plan" "--require-complete needs --plan and --suite" ledger merge shard-0.json -o out.json --require-complete
expect_file_absent out.json "--require-complete without the plan"

# --- adjudication in shards, merged onto the base --------------------------------------------------
PATH="$(dirname "$PROVIDER"):$PATH" run adjudicate single.json suite.json --adjudicator providers.json --output judged.json --limit 11
expect_code 0 "one adjudication of 11 observations"
for i in 0 1; do
  PATH="$(dirname "$PROVIDER"):$PATH" run adjudicate single.json suite.json --adjudicator providers.json --output "judged-$i.json" --limit 11 --shard "$i/2" --text
  expect_code 0 "adjudication shard $i/2"
done
expect_out_has "Adjudicated observations: 5" "shard 1/2 holds its 5 judgements only"
run ledger merge judged-0.json judged-1.json --base single.json -o judged-merged.json --text
expect_code 0 "the adjudicated shards merged onto the base"
expect_out_has "Replaced in the base: 11" "each judged observation replaced the base's"
expect_true "python3 same.py judged.json judged-merged.json" "the merge equals one adjudication apart from timing"
bad_input "a shard observation outside the base" "is not in the base ledger shard-0.json" ledger merge judged-0.json --base shard-0.json -o out.json

finish
