#!/usr/bin/env bash
# `strata adjudicate` with real judge processes: spec cases 57-64 and 69, checkpointing.
# Usage: adjudicate_test.sh <strata binary> <fixtures dir>
STRATA=$(realpath "$1")
FIX=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1

# A suite whose tasks run for at most 300 ms (so judge timeouts are quick), one copy whose
# first task is renamed (case 63), and a ledger [A run x, B run y, C run x, D run x].
python3 - "$FIX" "$WORK" <<'PY'
import json, sys
fix, work = sys.argv[1:3]
suite = json.load(open(f"{fix}/task-suite-v1.json"))
for k in ("contentHash", "contentHashAlgo"):
    suite.pop(k)
suite["maxRuntimeMsPerTask"] = 300
for t in suite["tasks"]:
    t["budget"]["maxRuntimeMs"] = 300
json.dump(suite, open(f"{work}/suite.payload.json", "w"))
suite["maxRuntimeMsPerTask"] = 5000
json.dump(suite, open(f"{work}/suite-long.payload.json", "w"))
t = suite["tasks"][0]
t["id"] = t["variantGroup"] = "consumer-01-discovery-renamed"
json.dump(suite, open(f"{work}/renamed.payload.json", "w"))
plan = json.load(open(f"{fix}/run-plan-v1.json"))
obs = []
for i, run in enumerate(["x", "y", "x", "x"]):
    task = suite["tasks"][i + 1] if i else json.load(open(f"{fix}/task-suite-v1.json"))["tasks"][0]
    obs.append({"type": "controlled-study-observation", "schemaVersion": 1, "observationVersion": "v1",
        "observedAt": "2026-11-29T12:00:0%d.000Z" % i, "runId": run, "planHash": plan["contentHash"],
        "task": {"taskId": task["id"], "repositoryId": task["repositoryId"], "category": task["category"],
                 "scenarioId": "repository-only", "modelId": "low-cost-model", "replicate": 0,
                 "variantId": "variant-a", "difficulty": task["difficulty"]},
        "model": plan["models"][0], "scenario": plan["scenarios"][0],
        "execution": {"status": "completed", "exitCode": 0, "signal": None, "durationMs": 10 + i,
                      "responseBytes": 2, "stderrBytes": 0},
        "contextBytes": 100, "evidenceIds": ["entrypoint-evidence"], "measurements": {"acceptanceChecksPassed": 1},
        "adjudication": {"status": "pending"}})
    json.dump(obs[-1], open(f"{work}/obs{i}.payload.json", "w"))
def config(name, command, extra=None):
    adj = {"id": "judge-one", "modelId": "reference-model", "command": command, "providerNetwork": False,
           "maxInputBytes": 1000000, "maxOutputBytes": 10000,
           "pricing": {"currency": "USD", "inputPerMillionUsd": 2, "cachedInputPerMillionUsd": 1, "outputPerMillionUsd": 4}}
    adj.update(extra or {})
    json.dump({"type": "study-provider-cli-config", "schemaVersion": 1, "configVersion": "v1",
               "providers": [{"modelId": "low-cost-model", "scenarioIds": ["repository-only"], "command": "true",
                              "providerNetwork": False, "maxInputBytes": 1000, "maxOutputBytes": 1000}],
               "adjudicator": adj}, open(f"{work}/{name}.payload.json", "w"))
config("good", f"{work}/judge-good")
config("notjson", f"{work}/judge-notjson")
config("missing", f"{work}/judge-missing")
config("sleepy", f"{work}/judge-sleepy")
config("chatty", f"{work}/judge-chatty", {"maxOutputBytes": 2})
config("failing", f"{work}/judge-failing")
config("small", f"{work}/judge-good", {"maxInputBytes": 100})
config("slow", f"{work}/judge-slow")
cfg = json.load(open(f"{work}/good.payload.json"))
del cfg["adjudicator"]
json.dump(cfg, open(f"{work}/none.payload.json", "w"))
PY
"$STRATA" seal task-suite suite.payload.json -o suite.json
"$STRATA" seal task-suite renamed.payload.json -o renamed.json
"$STRATA" seal task-suite suite-long.payload.json -o suite-long.json
for i in 0 1 2 3; do "$STRATA" seal observation "obs$i.payload.json" -o "obs$i.json"; done
python3 -c "
import json
obs = [json.load(open('obs%d.json' % i)) for i in range(4)]
json.dump({'type': 'controlled-study-observation-ledger', 'schemaVersion': 1, 'ledgerVersion': 'v1', 'observations': obs}, open('ledger.payload.json', 'w'))"
"$STRATA" seal ledger ledger.payload.json -o ledger.json
for name in good notjson missing sleepy chatty failing small slow none; do
  "$STRATA" seal provider-config "$name.payload.json" -o "$name.json"
done
script() { printf '%s\n' "$2" >"$1"; chmod +x "$1"; }
script judge-good '#!/bin/sh
cat >>"'"$WORK"'/requests.log"; echo >>"'"$WORK"'/requests.log"
echo "{\"outcome\":\"success\",\"confidence\":0.9,\"reasonCodes\":[\"rubric-match\"],\"inputTokens\":100,\"outputTokens\":30,\"tokenMethod\":\"provider\",\"measurements\":{\"cachedInputTokens\":20}}"'
script judge-notjson '#!/bin/sh
cat >/dev/null; echo not-json'
script judge-missing '#!/bin/sh
cat >/dev/null; echo "{\"outcome\":\"success\"}"'
script judge-sleepy '#!/bin/sh
sleep 5'
script judge-chatty '#!/bin/sh
cat >/dev/null; printf 0123456789'
script judge-failing '#!/bin/sh
exit 1'
script judge-slow '#!/bin/sh
cat >/dev/null; sleep 0.5; echo x >>"'"$WORK"'/slow.calls"
echo "{\"outcome\":\"partial\",\"confidence\":0.5,\"reasonCodes\":[]}"'

adjudication() {  # adjudication <ledger> <index> -> compact JSON of that observation's adjudication
  python3 -c "import json,sys; print(json.dumps(json.load(open('$1'))['observations'][$2]['adjudication'], sort_keys=True))"
}

# --- 57: a successful judgement -------------------------------------------------------
run adjudicate ledger.json suite.json --adjudicator good.json --output out57.json --run-id x --limit 1
expect_code 0 "57 adjudicate"
cp "$WORK/stdout" out57.stdout
expect_true "python3 -c '
import json
o = json.load(open(\"out57.json\"))[\"observations\"][0]
a, m = o[\"adjudication\"], o[\"measurements\"]
cfg = json.load(open(\"good.json\"))[\"contentHash\"]
assert a == {\"status\": \"automated\", \"actor\": \"judge-one\", \"method\": \"independent-rubric-v1\", \"outcome\": \"success\", \"confidence\": 0.9, \"reasonCodes\": [\"rubric-match\"], \"tokenMethod\": \"provider\", \"configurationHash\": cfg, \"reason\": \"Independent adjudicator evaluated the anonymized bounded candidate record against the task rubric.\"}, a
assert (m[\"adjudicatorInputTokens\"], m[\"adjudicatorOutputTokens\"], m[\"adjudicatorTokenCostUnits\"], m[\"adjudicatorCostUsd\"]) == (100, 30, 130, 0.0003), m
assert m[\"cachedInputTokens\"] == 20 and \"adjudicatorLatencyMs\" in m
assert \"$WORK\" not in a[\"reason\"]
'" "57 adjudication and measurements"
expect_true "[ \"\$(python3 -c \"import json; print(json.load(open('out57.json'))['observations'][0]['observedAt'])\")\" = 2026-11-29T12:00:00.000Z ]" "57 observedAt untouched"
run verify out57.json
expect_code 0 "57 output verifies"
# The default output is JSON.stringify({ok, ledger}, null, 2): the ledger printed is the file written.
cat >printed_check.py <<'EOF'
import json, sys
printed, written = open(sys.argv[1]).read(), open(sys.argv[2]).read()
assert json.loads(printed) == {"ok": True, "ledger": json.loads(written)}
assert printed == '{\n  "ok": true,\n  "ledger": ' + written[:-1].replace("\n", "\n  ") + "\n}\n"
EOF
expect_true "python3 printed_check.py out57.stdout out57.json" "57 the JSON output holds the written ledger, in the printed layout"

# --- 64: the judge sees no run, model, scenario, variant or repository ------------------
expect_true "! grep -Eq '\"(runId|modelId|scenarioId|variantId|repositoryId)\"|low-cost-model|repository-only|variant-a|$WORK/repos' requests.log" "64 anonymised request"
expect_true "grep -q 'doc-bridge.study-adjudicator.v1' requests.log" "64 request was recorded"

# --- 58-60: failures become pending ---------------------------------------------------------
for case in "notjson:Independent adjudicator invalid-output." "missing:Independent adjudicator returned invalid output." \
            "sleepy:Independent adjudicator timed-out." "chatty:Independent adjudicator budget-exceeded." \
            "failing:Independent adjudicator unavailable."; do
  name=${case%%:*}
  reason=${case#*:}
  run adjudicate ledger.json suite.json --adjudicator "$name.json" --output "out-$name.json" --limit 1 --kill-grace-ms 100
  expect_code 0 "58-60 $name"
  expect_true "[ '$(printf '%s' '{"actor": "judge-one", "method": "independent-rubric-v1", "reason": "REASON", "status": "pending"}' | sed "s/REASON/$reason/")' = \"\$(adjudication out-$name.json 0)\" ]" "58-60 $name is pending: $reason"
done

# --- 61: selection by run id, offset and limit --------------------------------------------
run adjudicate ledger.json suite.json --adjudicator good.json --output out61.json --run-id x --offset 1 --limit 1 --text
expect_code 0 "61 adjudicate"
expect_out_has "Adjudicated observations: 4" "61 text"
expect_true "python3 -c '
import json
a = json.load(open(\"ledger.json\"))[\"observations\"]
b = json.load(open(\"out61.json\"))[\"observations\"]
assert [o[\"contentHash\"] for o in b][:2] == [o[\"contentHash\"] for o in a][:2]
assert b[3][\"contentHash\"] == a[3][\"contentHash\"]
assert b[2][\"contentHash\"] != a[2][\"contentHash\"] and b[2][\"adjudication\"][\"status\"] == \"automated\"
assert b[2][\"task\"] == a[2][\"task\"] and b[2][\"execution\"] == a[2][\"execution\"]
'" "61 only C is judged; A, B, D are byte-identical"
expect_true "cmp -s ledger.json <(\"$STRATA\" seal ledger ledger.payload.json)" "the input ledger is never modified"
# The unselected observations' text is carried over byte for byte (observations are separated by
# "\n    },\n    {" in the persisted layout; the last segment ends with the ledger's own seal).
expect_true "python3 -c '
import sys
a = open(\"ledger.json\").read().split(\"\n    },\n    {\")
b = open(\"out61.json\").read().split(\"\n    },\n    {\")
assert len(a) == len(b) == 4 and a[0] == b[0] and a[1] == b[1] and a[2] != b[2]
assert a[3].split(\"\n  ]\")[0] == b[3].split(\"\n  ]\")[0]
'" "61 A, B and D carried over as text"

# The input is read an observation at a time; a pipe, or a ledger whose version follows its
# observations, is read whole instead, with the same result.
python3 - <<'EOF'
import json
d = json.load(open("ledger.json"))
late = {k: d[k] for k in ["type", "schemaVersion", "observations", "ledgerVersion", "contentHash", "contentHashAlgo"]}
json.dump(late, open("ledger-late.json", "w"), indent=2)
EOF
for input in pipe late; do
  if [ $input = pipe ]; then
    run adjudicate <(cat ledger.json) suite.json --adjudicator good.json --output "out61-$input.json" --run-id x --offset 1 --limit 1
  else
    run adjudicate ledger-late.json suite.json --adjudicator good.json --output "out61-$input.json" --run-id x --offset 1 --limit 1
  fi
  expect_code 0 "61 from a $input"
  expect_true "python3 -c '
import json
a = json.load(open(\"out61.json\"))[\"observations\"]
b = json.load(open(\"out61-$input.json\"))[\"observations\"]
assert [o[\"contentHash\"] for i, o in enumerate(a) if i != 2] == [o[\"contentHash\"] for i, o in enumerate(b) if i != 2]
assert a[2][\"adjudication\"] == b[2][\"adjudication\"]
'" "61 from a $input: the same output"
done
# A bad input ledger is reported as a whole read reports it, and nothing is written.
python3 - <<'EOF'
import json
d = json.load(open("ledger.json"))
d["contentHash"] = "0" * 64
json.dump(d, open("ledger-badhash.json", "w"), indent=2)
d = json.load(open("ledger.json"))
d["observations"][1]["contextBytes"] = -1
json.dump(d, open("ledger-badshape.json", "w"), indent=2)
open("ledger-cut.json", "w").write(open("ledger.json").read()[:3000])
EOF
bad_input "bad ledger hash" "ledger-badhash.json: \$.contentHash: Invalid observation-ledger content hash." \
  adjudicate ledger-badhash.json suite.json --adjudicator good.json --output o.json
bad_input "bad ledger observation" "ledger-badshape.json: \$.observations[1].contextBytes:" \
  adjudicate ledger-badshape.json suite.json --adjudicator good.json --output o.json
bad_input "cut-short ledger" "ledger-cut.json:" \
  adjudicate ledger-cut.json suite.json --adjudicator good.json --output o.json

# --- 62, 63, 69 and other bad input ----------------------------------------------------------
bad_input "62 limit 0" "Adjudication limit must be a positive integer." \
  adjudicate ledger.json suite.json --adjudicator good.json --output o.json --limit 0
bad_input "62 offset=-1" "Adjudication offset must be a non-negative integer." \
  adjudicate ledger.json suite.json --adjudicator good.json --output o.json --offset=-1
bad_input "limit abc" "Adjudication limit must be a positive integer." \
  adjudicate ledger.json suite.json --adjudicator good.json --output o.json --limit abc
run adjudicate ledger.json suite.json --adjudicator good.json --output o1e1.json --limit 1e1
expect_code 0 "limit 1e1 is 10 (JavaScript Number)"
bad_input "63 task missing from the suite" "No task definition exists for consumer-01-discovery." \
  adjudicate ledger.json renamed.json --adjudicator good.json --output o.json
bad_input "69 no adjudicator" "Study provider config must declare an adjudicator." \
  adjudicate ledger.json suite.json --adjudicator none.json --output o.json
bad_input "missing --output" "Study adjudication requires a task suite, --adjudicator with an adjudicator, and --output." \
  adjudicate ledger.json suite.json --adjudicator good.json
bad_input "input limit" "Adjudicator input limit 100 bytes exceeded for consumer-01-discovery." \
  adjudicate ledger.json suite.json --adjudicator small.json --output o.json
expect_file_absent "$WORK/o.json" "no output on bad input"

# --- checkpoint: an interrupted batch continues without judging anything twice ---------------
"$STRATA" adjudicate ledger.json suite-long.json --adjudicator slow.json --output out-slow.json --jobs 1 >/dev/null 2>slow.err &
pid=$!
# SIGINT once the first judgement is in the checkpoint: observed progress, not a clock (a fixed
# 1.25 s came before the first judge call had ended on a loaded machine). At most 60 s.
for _ in $(seq 1200); do
  [ "$(cat out-slow.json.adjudication-journal 2>/dev/null | wc -l)" -ge 1 ] && break
  sleep 0.05
done
kill -INT $pid
wait $pid
CODE=$?
expect_code 130 "interrupted adjudication exits 130"
expect_file_absent "$WORK/out-slow.json" "no partial output ledger"
before=$(wc -l <slow.calls)
run adjudicate ledger.json suite-long.json --adjudicator slow.json --output out-slow.json --jobs 4
expect_code 0 "re-run completes"
expect_true "[ \$(wc -l <slow.calls) -eq 4 ] && [ $before -ge 1 ] && [ $before -lt 4 ]" "each observation judged exactly once ($before before the re-run)"
expect_true "python3 -c \"import json; assert all(o['adjudication']['outcome'] == 'partial' for o in json.load(open('out-slow.json'))['observations'])\"" "every observation judged"
run verify out-slow.json
expect_code 0 "checkpointed output verifies"

# --- the input ledger rewritten in place while it is judged ---------------------------------
# The input is read again when each observation is judged: bytes changed since the check stop the
# adjudication (exit 2, nothing written); the judgements made before stay in the checkpoint.
cp ledger.json ledger-changing.json
rm -f slow.calls
"$STRATA" adjudicate ledger-changing.json suite-long.json --adjudicator slow.json --output out-changed.json --jobs 1 \
  >/dev/null 2>changed.err &
pid=$!
# The checkpoint journal is opened after every observation was read for the pre-flight checks.
for _ in $(seq 200); do [ -e out-changed.json.adjudication-journal ] && break; sleep 0.02; done
python3 - <<'EOF'
with open("ledger-changing.json", "r+b") as f:  # in place: the same file, the same length
    text = f.read()
    at = text.rindex(b'"contextBytes": 100')
    f.seek(at)
    f.write(b'"contextBytes": 101')
EOF
wait "$pid"
CODE=$? ERR=$(cat changed.err)
expect_code 2 "changed input ledger stops the adjudication"
expect_true "grep -qF 'ledger-changing.json: the ledger changed while it was being read (observation 4 is no longer the one verified); run the command again' changed.err" "changed input ledger: the message names the file and the observation"
expect_file_absent "$WORK/out-changed.json" "changed input ledger: no output"
expect_true "[ \$(wc -l <out-changed.json.adjudication-journal) -eq 3 ] && [ \$(wc -l <slow.calls) -eq 3 ]" "changed input ledger: the three judgements before it stay durable"
# Regression: the checkpoint was read whole, so one above 256 MiB (a nearly complete batch of
# 100,000) could not be resumed ("file is larger than the 256 MiB limit"). A sparse tail of
# 300 MiB of zero bytes after the three valid lines stands in for it: now read a piece at a time,
# the tail dropped and said so.
valid=$(stat -c %s out-changed.json.adjudication-journal)
truncate -s +300M out-changed.json.adjudication-journal
cp ledger.json ledger-changing.json
run adjudicate ledger-changing.json suite-long.json --adjudicator slow.json --output out-changed.json --jobs 1
expect_code 0 "restored input ledger: the re-run completes"
expect_true "[ \$(wc -l <slow.calls) -eq 4 ]" "restored input ledger: only the fourth observation is judged again"
expect_err_has "out-changed.json.adjudication-journal: dropped an invalid line at byte $valid and 314572800 bytes after it" \
  "a 300 MiB checkpoint is read, its invalid tail dropped and reported"

finish
