#!/usr/bin/env bash
# CLI tests: the real strata binary against the real doc-bridge fixtures.
# Usage: cli_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"

# --- spec 6 case 65: usage errors exit 1 -------------------------------------------
run bogus x.json
expect_code 1 "65 unknown command"
expect_err_has "Usage:" "65 unknown command"
expect_out_empty "65 unknown command"
run plan
expect_code 1 "65 missing path"
expect_err_has "Usage:" "65 missing path"
run --help
expect_code 0 "--help"
expect_out_has "seal" "--help lists commands"
run verify --help
expect_code 0 "verify --help"
expect_out_has "Exit status" "verify --help explains exit codes"
run --version
expect_code 0 "--version"
expect_out "strata 0.1.0" "--version"

# --- spec 6 case 67: plan --text, options before or after the positional -------------
PLAN_TEXT="Run plan: v1
Tasks: 24
Models: 2
Scenarios: 3
Sample: 24/24 (balanced-task-strata)
Budget: 400000 tokens, 180000 ms, 256000 bytes, 1 attempts
Content hash: 29e95cc2d8fa7f3e6a789884943f9d2cf20896ddb5405196b5ae869e87577d28"
run plan "$FIX/run-plan-v1.json" --text
expect_code 0 "67 plan --text"
expect_out "$PLAN_TEXT" "67 plan --text"
expect_err_empty "67 plan --text"
run plan --text "$FIX/run-plan-v1.json"
expect_out "$PLAN_TEXT" "67 option before positional"

# --- spec 6 cases 3, 12: tasks and select -------------------------------------------
run tasks "$FIX/task-suite-v1.json" --text
expect_out_has "Executions planned: 288" "3 tasks --text"
expect_out_has "Tasks: 24 (6 repositories × 4 categories)" "3 tasks --text"
run select "$FIX/task-suite-v1.json" --text
expect_out "Selected executions: 288
First execution: consumer-02-documentation / variant-b" "12 select --text"
run select "$FIX/task-suite-v1.json"
expect_code 0 "select json"
expect_true "python3 -c 'import json,sys; d=json.load(open(\"$WORK/stdout\")); assert d[\"ok\"] and len(d[\"executions\"])==288'" "select json has 288 executions"

# --- spec 6 case 9 and 72: seal a provider config, show it --------------------------
cat >"$WORK/providers.payload.json" <<'JSON'
{"type":"study-provider-cli-config","schemaVersion":1,"configVersion":"example-v1",
 "providers":[{"modelId":"low-cost-model","scenarioIds":["repository-only","deterministic-doc-bridge"],
 "command":"node","providerNetwork":false,"maxInputBytes":1000000,"maxOutputBytes":10000}]}
JSON
run seal provider-config "$WORK/providers.payload.json" -o "$WORK/providers.json"
expect_code 0 "9 seal"
expect_out_empty "9 seal -o writes nothing on stdout"
expect_true "grep -qF '\"args\": []' '$WORK/providers.json'" "9 sealed file has args []"
expect_true "grep -qF '\"envAllowlist\": []' '$WORK/providers.json'" "9 sealed file has envAllowlist []"
expect_true "grep -qF '01a0321464e783d2d85085e51e45068a47f02a52b3f61ba5af32ce2e283c70a4' '$WORK/providers.json'" "9 sealed hash"
run seal provider-config "$WORK/providers.payload.json"
expect_true "diff -q '$WORK/stdout' '$WORK/providers.json' >/dev/null" "seal to stdout equals seal -o"
run providers "$WORK/providers.json"
expect_code 0 "72 providers"
expect_err_empty "72 providers"
expect_true "head -c 40 '$WORK/stdout' | grep -qF '{
  \"ok\": true,
  \"providers\": {'" "72 pretty JSON"
run providers "$WORK/providers.json" --text
expect_out "Provider CLI config: example-v1
Mappings: 1
Hosted providers: 0
Content hash: 01a0321464e783d2d85085e51e45068a47f02a52b3f61ba5af32ce2e283c70a4" "providers --text"
# Re-sealing a sealed file is idempotent.
run seal provider-config "$WORK/providers.json" -o "$WORK/resealed.json"
expect_true "cmp -s '$WORK/providers.json' '$WORK/resealed.json'" "re-seal is byte-identical"

# --- ledger: seal the empty ledger, show it ------------------------------------------
echo '{"type":"controlled-study-observation-ledger","schemaVersion":1,"ledgerVersion":"v1","observations":[]}' >"$WORK/ledger.payload.json"
run seal ledger "$WORK/ledger.payload.json" -o "$WORK/ledger.json"
expect_code 0 "seal ledger"
expect_true "[ \"\$(cat '$WORK/ledger.json')\" = '{
  \"type\": \"controlled-study-observation-ledger\",
  \"schemaVersion\": 1,
  \"ledgerVersion\": \"v1\",
  \"observations\": [],
  \"contentHash\": \"d7aacae053872796b29fbb6cca38a41a5fb2d542c7a5628c0671c9add14f9955\",
  \"contentHashAlgo\": \"sha256-normalized-v1\"
}' ]" "empty ledger layout"
run ledger --text "$WORK/ledger.json"
expect_out "Ledger: v1
Observations: 0
Content hash: d7aacae053872796b29fbb6cca38a41a5fb2d542c7a5628c0671c9add14f9955" "ledger --text"
run protocol "$FIX/protocol-v1.json" --text
expect_code 0 "protocol --text"
expect_out_has "Content hash: fe26951579d9003f1cd616f12fb6d6007a60ec69db5efbb9acd5d80c817002d1" "protocol --text"

# --- verify ---------------------------------------------------------------------------
SEALED=(ab-adjudicated-cost-plan-v1.json ab-adjudicated-cost-plan-v2-v1.json ab-baseline-plan-v1.json
        ab-baseline-result-v1.json protocol-v1.json run-plan-v1.json task-suite-v1.json)
run verify "${SEALED[@]/#/$FIX/}" "$WORK/providers.json" "$WORK/ledger.json" --text
expect_code 0 "verify all good fixtures"
expect_true "[ \$(grep -c '^OK ' '$WORK/stdout') = 9 ]" "verify prints OK for each"
run verify "$FIX/run-plan-v1.json" "$FIX/ab-adjudicated-cost-result-v1.json"
expect_code 2 "verify edited result"
expect_true "python3 -c '
import json
d = json.load(open(\"$WORK/stdout\"))
assert d[\"ok\"] is False
good, bad = d[\"files\"]
assert good[\"ok\"] and not bad[\"ok\"]
assert bad[\"mismatches\"] == [{\"path\": \"\$.contentHash\", \"stored\": \"9589b4e36283c36face82acdacbd756b3b96e001c59f2fb0574f9b5be4ef034c\", \"computed\": bad[\"contentHash\"]}]
'" "verify JSON names the mismatch"

# A ledger whose nested observation was edited after sealing: verify names the path.
python3 - "$FIX" "$WORK" <<'PY'
import json, sys
fix, work = sys.argv[1], sys.argv[2]
plan = json.load(open(f"{fix}/run-plan-v1.json"))
obs = {"type": "controlled-study-observation", "schemaVersion": 1, "observationVersion": "v1",
       "observedAt": "2026-08-31T12:00:00.000Z", "runId": "run-01", "planHash": plan["contentHash"],
       "task": {"taskId": "consumer-01-discovery", "repositoryId": "consumer-01", "category": "discovery",
                "scenarioId": "repository-only", "modelId": "low-cost-model", "replicate": 0,
                "variantId": "variant-a", "difficulty": "easy"},
       "model": plan["models"][0], "scenario": plan["scenarios"][0],
       "execution": {"status": "completed", "exitCode": 0, "signal": None, "durationMs": 12,
                     "responseBytes": 2, "stderrBytes": 0},
       "contextBytes": 128, "evidenceIds": ["src/index.ts"], "adjudication": {"status": "pending"}}
json.dump(obs, open(f"{work}/observation.payload.json", "w"))
PY
run seal observation "$WORK/observation.payload.json" -o "$WORK/observation.json"
expect_code 0 "seal observation"
python3 -c "
import json
o = json.load(open('$WORK/observation.json'))
json.dump({'type': 'controlled-study-observation-ledger', 'schemaVersion': 1, 'ledgerVersion': 'v1', 'observations': [o]}, open('$WORK/one.payload.json', 'w'))
o['contextBytes'] = 129
json.dump({'type': 'controlled-study-observation-ledger', 'schemaVersion': 1, 'ledgerVersion': 'v1', 'observations': [o]}, open('$WORK/edited.payload.json', 'w'))
"
run seal ledger "$WORK/one.payload.json" -o "$WORK/one.json"
expect_code 0 "seal ledger with one observation"
bad_input "seal refuses a ledger with an edited observation" '$.observations[0].contentHash: Invalid controlled observation content hash.' \
  seal ledger "$WORK/edited.payload.json" -o "$WORK/edited.json"
expect_file_absent "$WORK/edited.json" "refused seal writes nothing"
python3 -c "
import json
l = json.load(open('$WORK/one.json'))
l['observations'][0]['contextBytes'] = 129
open('$WORK/tampered.json', 'w').write(json.dumps(l, indent=2) + '\n')
"
run verify "$WORK/tampered.json" --text
expect_code 2 "verify tampered ledger"
expect_out_has '$.observations[0].contentHash: stored' "verify names the observation"

# verify reads a ledger an observation at a time, and whole when it cannot decide that way
# (members in an unusual order, an invalid file): the report must be the same either way.
python3 - "$WORK" <<'PY'
import hashlib, json, sys
work = sys.argv[1]
one = json.load(open(f"{work}/one.json"))
def sealed(ledger):
    rest = {k: v for k, v in ledger.items() if k != "contentHash"}
    canonical = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return dict(ledger, contentHash=hashlib.sha256(canonical.encode()).hexdigest())
# A tampered observation hash under a valid ledger seal, in the usual order and with the
# ledger version last (which the streamed read leaves to the whole read).
bad = dict(one, observations=[dict(one["observations"][0], contentHash="0" * 64)])
bad = sealed(bad)
open(f"{work}/tampered-seal.json", "w").write(json.dumps(bad, indent=2) + "\n")
late = {k: bad[k] for k in ["type", "schemaVersion", "observations", "contentHash", "contentHashAlgo", "ledgerVersion"]}
open(f"{work}/tampered-late.json", "w").write(json.dumps(late, indent=2) + "\n")
text = json.dumps(one, indent=2) + "\n"
open(f"{work}/cut.json", "w").write(text[: len(text) // 2])
PY
run verify "$WORK/tampered-seal.json"
expect_code 2 "verify a tampered observation under a valid seal"
cp "$WORK/stdout" "$WORK/verify-usual.json"
expect_true "python3 -c '
import json
f = json.load(open(\"$WORK/stdout\"))[\"files\"][0]
assert [m[\"path\"] for m in f[\"mismatches\"]] == [\"\$.observations[0].contentHash\"], f
assert f[\"mismatches\"][0][\"stored\"] == \"0\" * 64
'" "verify names only the tampered observation (its seal is valid)"
run verify "$WORK/tampered-late.json"
expect_code 2 "verify the same ledger, its version last"
expect_true "python3 -c '
import json
usual = json.load(open(\"$WORK/verify-usual.json\"))[\"files\"][0]
late = json.load(open(\"$WORK/stdout\"))[\"files\"][0]
del usual[\"path\"], late[\"path\"]
assert usual == late, (usual, late)
'" "verify reports the same, streamed or whole"
run verify "$WORK/cut.json" "$WORK/one.json" --text
expect_code 2 "verify a cut-short ledger"
expect_true "[ \"\$(head -1 '$WORK/stdout')\" = \"FAIL \$(sed -n 's/^strata: //p' <(\"\$STRATA\" ledger '$WORK/cut.json' 2>&1))\" ]" \
  "verify names the syntax error as the whole read does"
expect_out_has "OK $WORK/one.json" "verify goes on after a cut-short ledger"
# strata ledger --text reads a ledger an observation at a time too, and whole when it cannot.
run ledger --text "$WORK/tampered-seal.json"
expect_code 0 "ledger --text, streamed"
cp "$WORK/stdout" "$WORK/ledger-usual.txt"
run ledger --text "$WORK/tampered-late.json"
expect_code 0 "ledger --text, its version last"
expect_true "cmp -s '$WORK/stdout' '$WORK/ledger-usual.txt'" "ledger --text prints the same, streamed or whole"
expect_out_has "Observations: 1" "ledger --text counts the observations"
run ledger "$WORK/cut.json"
cp "$WORK/stderr" "$WORK/cut-whole.err"
run ledger --text "$WORK/cut.json"
expect_code 2 "ledger --text of a cut-short ledger"
expect_true "cmp -s '$WORK/stderr' '$WORK/cut-whole.err'" "ledger --text names the syntax error as the whole read does"

# --- bad input: one clear line naming file and location, exit 2, nothing written ----
bad_input "hash mismatch" "Invalid controlled run-plan content hash." \
  plan <(sed 's/29e95cc2d8fa7f3e6a789884943f9d2cf20896ddb5405196b5ae869e87577d28/'"$(printf 'a%.0s' {1..64})"'/' "$FIX/run-plan-v1.json")
printf '{\n  "type": "controlled-study-run-plan",\n  "schemaVersion": 1,\n  oops\n}\n' >"$WORK/malformed.json"
bad_input "malformed JSON" "$WORK/malformed.json:4:3: invalid JSON: expected a string key" plan "$WORK/malformed.json"
python3 -c "
import json
p = json.load(open('$FIX/run-plan-v1.json'))
p['budget']['maxTokens'] = 'many'
json.dump(p, open('$WORK/wrong-type.json', 'w'))
p = json.load(open('$FIX/run-plan-v1.json'))
p['surprise'] = 1
json.dump(p, open('$WORK/unknown-key.json', 'w'))
p = json.load(open('$FIX/run-plan-v1.json'))
del p['taskIds']
json.dump(p, open('$WORK/missing-key.json', 'w'))
"
bad_input "wrong type" "$WORK/wrong-type.json: \$.budget.maxTokens: expected an integer >= 1, got a string" plan "$WORK/wrong-type.json"
bad_input "unknown key" "$WORK/unknown-key.json: \$.surprise: unknown key \"surprise\"" plan "$WORK/unknown-key.json"
bad_input "missing key" "$WORK/missing-key.json: \$: missing required key \"taskIds\"" plan "$WORK/missing-key.json"
printf '{"type": "study-task-suite", "title": "caf\xe9"}' >"$WORK/latin1.json"
bad_input "invalid UTF-8" "$WORK/latin1.json:1:43: invalid JSON: invalid UTF-8" tasks "$WORK/latin1.json"
printf '{"type": "study-task-suite", "title": "\\ud800"}' >"$WORK/surrogate.json"
bad_input "unpaired surrogate" "$WORK/surrogate.json:1:40: invalid JSON: unpaired surrogate escape" tasks "$WORK/surrogate.json"
printf '{"schemaVersion": 1e999}' >"$WORK/huge-number.json"
bad_input "number outside double range" "$WORK/huge-number.json:1:19: invalid JSON: number outside the range of a double" plan "$WORK/huge-number.json"
python3 -c "print('{\"a\":' * 513 + '1' + '}' * 513)" >"$WORK/deep.json"
bad_input "nesting deeper than 512" "invalid JSON: nesting deeper than 512 levels" ledger "$WORK/deep.json"
bad_input "missing file" "$WORK/nope.json: cannot read the file: No such file or directory" plan "$WORK/nope.json"
mkdir -p "$WORK/a-directory"
run verify "$WORK/a-directory" "$FIX/run-plan-v1.json" --text
expect_code 2 "verify a directory"
expect_out_has "FAIL $WORK/a-directory: is a directory, not a JSON file" "verify reports each file"
expect_out_has "OK $FIX/run-plan-v1.json" "verify goes on after a failure"
bad_input "directory" "$WORK/a-directory: is a directory, not a JSON file" plan "$WORK/a-directory"
truncate -s 513M "$WORK/huge.json"
bad_input "file over 512 MiB" "$WORK/huge.json: file is larger than the 512 MiB limit" ledger "$WORK/huge.json"
# Regression: the limit was 256 MiB, below a ledger of 100,000 complete observations (about
# 2.7 KB each; 2.8 KB with the verifier's records): Strata could write a ledger it then refused.
truncate -s 300M "$WORK/large.json"
run ledger "$WORK/large.json"
expect_code 2 "a 300 MiB file: read (then refused as JSON, not for its size)"
expect_true "! grep -q 'larger than' '$WORK/stderr' && grep -q 'invalid JSON' '$WORK/stderr'" "a 300 MiB file is within the limit ($(head -c 200 "$WORK/stderr"))"
rm -f "$WORK/large.json"
cp "$FIX/run-plan-v1.json" "$WORK/unreadable.json"
chmod 000 "$WORK/unreadable.json"
if [ "$(id -u)" = 0 ]; then
  # Root reads everything: drop to an unprivileged user so the permission bites.
  STRATA_AS_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
  STRATA_AS_USER=()
fi
"${STRATA_AS_USER[@]}" "$STRATA" plan "$WORK/unreadable.json" >"$WORK/stdout" 2>"$WORK/stderr"
CODE=$?; OUT=$(cat "$WORK/stdout"); ERR=$(cat "$WORK/stderr")
expect_code 2 "unreadable file"
expect_err_has "$WORK/unreadable.json: cannot read the file: Permission denied" "unreadable file"
expect_out_empty "unreadable file"
run seal nonsense "$WORK/providers.payload.json"
expect_code 1 "seal unknown kind"
echo '{"type":"study-provider-cli-config","schemaVersion":1,"configVersion":"v1","providers":[]}' >"$WORK/empty-providers.json"
bad_input "seal invalid payload" "$WORK/empty-providers.json: \$.providers: expected at least 1 items, got 0" \
  seal provider-config "$WORK/empty-providers.json" -o "$WORK/never.json"
expect_file_absent "$WORK/never.json" "invalid payload writes nothing"

finish
