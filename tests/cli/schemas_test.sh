#!/usr/bin/env bash
# The committed JSON Schemas match what strata prints, and every real fixture validates
# against its schema (Debian's python3-jsonschema, run with Debian's own /usr/bin/python3).
# Usage: schemas_test.sh <strata binary> <schemas dir> <fixtures dir>
set -u
STRATA=$(realpath "$1")
SCHEMAS=$(realpath "$2")
FIX=$(realpath "$3")
failures=0

for file in "$SCHEMAS"/*.schema.json; do
  name=$(basename "$file" .schema.json)
  [ "$name" = sealed-artifact ] && continue  # hand-written, not generated
  [ "$name" = atif-trajectory ] && continue  # written from Harbor's RFC 0001 (docs/TRAJECTORIES.md)
  if ! "$STRATA" schema "$name" | cmp -s - "$file"; then
    echo "FAIL: schemas/$name.schema.json differs from 'strata schema $name' (run scripts/gen-schemas.sh)" >&2
    failures=$((failures + 1))
  fi
done

/usr/bin/python3 - "$SCHEMAS" "$FIX" <<'PY' || failures=$((failures + 1))
import copy, json, os, sys
from jsonschema import Draft202012Validator, Draft7Validator, validators

schemas_dir, fixtures = sys.argv[1], sys.argv[2]
def schema(name):
    return json.load(open(os.path.join(schemas_dir, name + ".schema.json")))

by_type = {}
for name in ["provider-config", "repository-config", "task-suite", "run-plan", "observation", "ledger", "protocol"]:
    s = schema(name)
    Draft202012Validator.check_schema(s)
    by_type[s["properties"]["type"]["const"]] = s
generic = schema("sealed-artifact")

checked, failed = 0, 0
def expect(valid, instance, s, what):
    global checked, failed
    checked += 1
    errors = list(Draft202012Validator(s).iter_errors(instance))
    if bool(errors) == valid:
        failed += 1
        print(f"FAIL: {what}: expected {'valid' if valid else 'invalid'}; {errors[:1]}", file=sys.stderr)

for name in sorted(os.listdir(fixtures)):
    doc = json.load(open(os.path.join(fixtures, name)))
    if name.endswith(".schema.json") or ".schema." in name:
        # The model-facing output schemas: they must themselves be valid JSON Schemas.
        validators.validator_for(doc, default=Draft7Validator).check_schema(doc)
        checked += 1
        continue
    expect(True, doc, by_type.get(doc["type"], generic), name)
    # The test can fail: an unknown member must be refused by the strict schemas.
    if doc["type"] in by_type:
        broken = copy.deepcopy(doc)
        broken["unexpected"] = True
        expect(False, broken, by_type[doc["type"]], name + " with an unknown member")

# Process payloads: the examples of spec cases 34 and 57.
expect(True, {"inputTokens": 3, "outputTokens": 5, "tokenMethod": "provider", "toolCalls": 2,
              "firstEvidenceLatencyMs": 17, "taskOutcome": "success", "evidenceQuality": "high",
              "evidenceIds": ["src/index.ts"], "measurements": {"searchHitRate": 1}, "extra": "dropped"},
       schema("provider-response"), "provider response (case 34)")
expect(False, {"inputTokens": "unknown"}, schema("provider-response"), "provider response (case 39)")
expect(True, {"outcome": "success", "confidence": 0.9, "reasonCodes": ["rubric-match"], "inputTokens": 100,
              "outputTokens": 30, "tokenMethod": "provider", "measurements": {"cachedInputTokens": 20}},
       schema("adjudicator-response"), "adjudicator response (case 57)")
expect(False, {"outcome": "success"}, schema("adjudicator-response"), "adjudicator response (case 59)")
print(f"schemas: {checked - failed} of {checked} checks passed")
sys.exit(1 if failed else 0)
PY

if [ "$failures" -eq 0 ]; then echo "schemas: all passed"; else echo "schemas: $failures failure(s)"; fi
[ "$failures" -eq 0 ]
