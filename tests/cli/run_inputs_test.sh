#!/usr/bin/env bash
# Changed inputs caught on resume (issue 14, part 3): <ledger>.inputs records, per run id, the
# plan, suite, provider config and repository config hashes and every provider program's path,
# size, modification time and SHA-256. A resume that finds the provider config, the repository
# config or a provider program changed stops before launching anything (exit 2, one line per
# change) unless --accept-changed-inputs; a ledger without the record is resumed with a note and
# gets one; the sealed ledger never holds any of it.
# Usage: run_inputs_test.sh <strata binary> <example provider binary>
STRATA=$(realpath "$1")
PROVIDER=$(realpath "$2")
. "$(dirname "$0")/lib.sh"

# A private copy of the provider, so it can be changed; the example study with plans a, b, c.
cp "$PROVIDER" "$WORK/provider"
make_example_study "$WORK/provider" a b c
LEDGER=$WORK/ledger.json
JOBS=4

# --- a fresh run records its inputs; the ledger itself is untouched by them ------------------------
study_run a "$LEDGER"
expect_code 0 "fresh run"
expect_true "[ -s '$LEDGER.inputs' ]" "fresh run: <ledger>.inputs written"
expect_true "python3 - '$LEDGER.inputs' '$WORK/plan-a.json' '$WORK/providers.json' '$WORK/repos.json' '$WORK/suite.json' '$WORK/provider' <<'PY'
import hashlib, json, os, sys
record, plan, providers, repos, suite, program = sys.argv[1:7]
entry = json.load(open(record))['runs']['append-a']
h = lambda p: json.load(open(p))['contentHash']
assert entry['planHash'] == h(plan) and entry['taskSuiteHash'] == h(suite), entry
assert entry['providerConfigHash'] == h(providers) and entry['repositoryConfigHash'] == h(repos), entry
[p] = entry['programs']
st = os.stat(program)
assert p['path'] == os.path.realpath(program) and p['size'] == st.st_size and p['modifiedNs'] == str(st.st_mtime_ns), p
assert p['sha256'] == hashlib.sha256(open(program, 'rb').read()).hexdigest(), p
PY" "fresh run: the record holds the four hashes and the program's path, size, mtime and SHA-256"
expect_true "! grep -q 'programs\|providerConfigHash\"' '$LEDGER'" "the sealed ledger holds none of it"
expect_true "! grep -q '^Inputs' '$WORK/stdout'" "fresh run: nothing to say about inputs"
run verify --text "$LEDGER"
expect_code 0 "fresh run: strata verify"

# Plan b starts with a budget below one execution: it records its inputs and launches nothing,
# so everything is left to resume.
study_run b "$LEDGER" --max-tokens 0
expect_code 4 "plan b: started, nothing launched"
expect_true "python3 -c 'import json; assert \"append-b\" in json.load(open(\"$LEDGER.inputs\"))[\"runs\"]'" \
  "plan b: its inputs recorded before anything was launched"
cp "$LEDGER" "$WORK/ledger.before"

# --- an unchanged resume goes on ---------------------------------------------------------------
cp "$LEDGER.inputs" "$WORK/inputs.before"
study_run a "$LEDGER"
expect_code 0 "unchanged resume"
expect_out_has "Executed: 0" "unchanged resume: nothing left"
expect_true "cmp -s '$LEDGER.inputs' '$WORK/inputs.before'" "unchanged resume: the record is left as it was"

# --- the provider config changed ---------------------------------------------------------------
OLD_PROVIDERS=$(python3 -c "import json; print(json.load(open('$WORK/providers.json'))['contentHash'])")
cp "$WORK/providers.json" "$WORK/providers.json.orig"
python3 - "$WORK/providers.payload.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for p in doc["providers"]:
    p["maxOutputBytes"] = p["maxOutputBytes"] - 1
json.dump(doc, open(sys.argv[1], "w"))
PY
"$STRATA" seal provider-config "$WORK/providers.payload.json" -o "$WORK/providers.json" >/dev/null
NEW_PROVIDERS=$(python3 -c "import json; print(json.load(open('$WORK/providers.json'))['contentHash'])")
study_run b "$LEDGER"
expect_code 2 "provider config changed: refused"
expect_err_has "inputs changed since run append-b started; nothing was launched" "provider config changed: the headline"
expect_err_has "provider config changed since run append-b started: $OLD_PROVIDERS -> $NEW_PROVIDERS" "provider config changed: the line"
expect_err_lines 2 "provider config changed: one line per change after the headline"
expect_out_empty "provider config changed: nothing on stdout"
expect_true "cmp -s '$LEDGER' '$WORK/ledger.before' && [ ! -s '$LEDGER.journal' ]" "provider config changed: nothing launched or written"
mv "$WORK/providers.json.orig" "$WORK/providers.json"

# --- the repository config changed -------------------------------------------------------------
cp "$WORK/repos.json" "$WORK/repos.json.orig"
mkdir -p "$WORK/other-root"
cp -R "$(python3 -c "import json; print(json.load(open('$WORK/repos.json'))['repositories'][0]['root'])")/." "$WORK/other-root/"
python3 - "$WORK/repos.payload.json" "$WORK/other-root" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["repositories"]:
    r["root"] = sys.argv[2]
json.dump(doc, open(sys.argv[1], "w"))
PY
"$STRATA" seal repository-config "$WORK/repos.payload.json" -o "$WORK/repos.json" >/dev/null
study_run b "$LEDGER"
expect_code 2 "repository config changed: refused"
expect_err_has "repository config changed since run append-b started: " "repository config changed: the line"
expect_true "cmp -s '$LEDGER' '$WORK/ledger.before'" "repository config changed: ledger untouched"
mv "$WORK/repos.json.orig" "$WORK/repos.json"

# --- the provider program changed (same path) ----------------------------------------------------
OLD_SHA=$(sha256sum "$WORK/provider" | cut -d' ' -f1)
printf '\n# changed\n' >>"$WORK/provider"
NEW_SHA=$(sha256sum "$WORK/provider" | cut -d' ' -f1)
study_run b "$LEDGER"
expect_code 2 "program changed: refused"
expect_err_has "provider program changed: $(realpath "$WORK/provider") (sha256 $OLD_SHA -> $NEW_SHA)" "program changed: the line"
expect_true "cmp -s '$LEDGER' '$WORK/ledger.before'" "program changed: ledger untouched"

# Accepted: the run goes on, the summary lists the change, the record takes the new program.
study_run b "$LEDGER" --accept-changed-inputs
expect_code 0 "program changed, accepted: the run goes on"
expect_out_has "Inputs changed (accepted): provider program changed: $(realpath "$WORK/provider") (sha256 $OLD_SHA -> $NEW_SHA)" \
  "program changed, accepted: listed in the summary"
expect_true "python3 -c 'import json; e=json.load(open(\"$LEDGER.inputs\"))[\"runs\"][\"append-b\"]; assert e[\"programs\"][0][\"sha256\"] == \"$NEW_SHA\"'" \
  "program changed, accepted: the record now holds the new program"
study_run b "$LEDGER"
expect_code 0 "after accepting: a resume with the same inputs goes on"
run verify --text "$LEDGER"
expect_code 0 "after accepting: strata verify"
run run "$WORK/plan-b.json" "$WORK/suite.json" --providers "$WORK/providers.json" --repositories "$WORK/repos.json" \
  --ledger "$LEDGER" --accept-changed-inputs
expect_code 0 "JSON summary, nothing changed"
expect_true "python3 -c 'import json,sys; assert \"inputs\" not in json.load(sys.stdin)[\"summary\"]' <'$WORK/stdout'" \
  "JSON summary: no inputs member when nothing changed"

# --- a ledger without a record (the reference, an older Strata) ----------------------------------
study_run c "$LEDGER"
expect_code 0 "plan c"
rm "$LEDGER.inputs"
study_run c "$LEDGER"
expect_code 0 "no record: resumed"
expect_out_has "Inputs: not checked: the ledger has no record of what run append-c started with (written by the reference or an older Strata); recorded now" \
  "no record: the summary says it cannot check"
expect_err_empty "no record: nothing on stderr"
expect_true "python3 -c 'import json; r=json.load(open(\"$LEDGER.inputs\"))[\"runs\"]; assert list(r) == [\"append-c\"]'" \
  "no record: a record written for the resumed run"

# --- a record that is not one --------------------------------------------------------------------
echo '{"format": "something-else"}' >"$LEDGER.inputs"
study_run c "$LEDGER"
expect_code 2 "a foreign record: refused"
expect_err_has "$LEDGER.inputs: not a Strata run-inputs record (remove it to record the inputs again)" "a foreign record: named"

finish
