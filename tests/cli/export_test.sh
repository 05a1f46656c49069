#!/usr/bin/env bash
# strata export (docs/METRICS.md): every observation of a real run as one CSV (RFC 4180) or JSON
# Lines row. The expected rows are computed here, in Python, from the ledger itself; the column
# list is read from docs/METRICS.md, so the documentation and the program cannot drift apart.
#   - CSV: the documented header, then measurements.<name> columns in byte order; CRLF; fields
#     with commas, quotes and line breaks quoted (a provider reports such a measurement name);
#     every value equal to the ledger's; absent values empty;
#   - JSON Lines: the same values, null when absent, and the measurement map;
#   - --run-id selects runs; a pipe (the ledger held whole) gives the same bytes;
#   - bad input: unknown run id, a tampered ledger, an unknown format: message, exit code, no
#     output file, an earlier file at the -o path untouched.
# Usage: export_test.sh <strata binary> <example provider binary>
STRATA=$(realpath "$1")
PROVIDER=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
DOCS=$(realpath "$(dirname "$0")/../../docs/METRICS.md")

make_example_study "$PROVIDER" a b c
L=$WORK/ledger.json
study_run a "$L"; expect_code 0 "run a"
study_run b "$L"; expect_code 0 "run b"

# Run c: a provider whose measurement names need quoting in CSV, with an unpriced answer.
cat >"$WORK/odd-provider" <<'SH'
#!/usr/bin/env bash
cat >/dev/null
printf '%s\n' '{"inputTokens": 100, "outputTokens": 7, "tokenMethod": "provider", "taskOutcome": "success",
 "measurements": {"odd, \"quoted\"\nname": 2, "plain": 1.5, "tiny": 1e-7}}'
SH
chmod +x "$WORK/odd-provider"
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
config = json.load(open(f"{work}/providers.payload.json"))
for p in config["providers"]:
    p["command"] = f"{work}/odd-provider"
    p["args"] = []
    p.pop("pricing", None)
json.dump(config, open(f"{work}/odd.payload.json", "w"))
PY
"$STRATA" seal provider-config "$WORK/odd.payload.json" -o "$WORK/odd.json" >/dev/null
run run "$WORK/plan-c.json" "$WORK/suite.json" --providers "$WORK/odd.json" --repositories "$WORK/repos.json" \
  --ledger "$L" --text
expect_code 0 "run c (odd measurement names)"

# check_export <format> <export file> [run ids...]: the export against the ledger, computed here.
cat >"$WORK/check_export.py" <<'PY'
import csv, io, json, re, sys
from study_payloads import execution_key
docs, ledger_path, fmt, path, *run_ids = sys.argv[1:]
# The export's column table: the first table after the heading "## Columns".
columns = re.findall(r"^\| `([A-Za-z]+)` \|", open(docs).read().split("\n## Columns\n", 1)[1].split("\n## ", 1)[0], re.M)
observations = [o for o in json.load(open(ledger_path))["observations"] if not run_ids or o["runId"] in run_ids]

def agreement(m):
    """docs/METRICS.md: the claim that every check passed against the verifier's counts."""
    if "verifiedChecksTotal" not in m:
        return None
    passed = m["verifiedChecksTotal"] > 0 and m["verifiedChecksPassed"] == m["verifiedChecksTotal"]
    if "acceptanceChecksPassed" not in m or "acceptanceChecksTotal" not in m:
        return "no-claim"
    claim = m["acceptanceChecksPassed"] == m["acceptanceChecksTotal"] == m["verifiedChecksTotal"]
    return ("confirmed" if passed else "claimed-but-failed") if claim else ("not-claimed-but-passed" if passed else "neither")

def expected(o):
    t, e, m, a = o["task"], o["execution"], o.get("measurements", {}), o["adjudication"]
    decided = a["status"] != "pending" and "outcome" in a
    source = {"independent-rubric-v1": "independent", "deterministic-rubric-v1": "deterministic"}.get(a.get("method"), a.get("method"))
    row = {"runId": o["runId"], "round": o.get("round"), "observedAt": o["observedAt"],
           **{k: t.get(k) for k in ("taskId", "repositoryId", "category", "scenarioId", "modelId", "replicate", "variantId", "difficulty")},
           "status": e["status"], "errorCode": e.get("errorCode"), "exitCode": e.get("exitCode"), "signal": e.get("signal"),
           "durationMs": e["durationMs"], "responseBytes": e["responseBytes"], "stderrBytes": e["stderrBytes"],
           "inputTokens": e.get("inputTokens"), "cachedInputTokens": m.get("cachedInputTokens"),
           "outputTokens": e.get("outputTokens"), "reasoningOutputTokens": m.get("reasoningOutputTokens"),
           "tokenMethod": e.get("tokenMethod"), "costUsd": m.get("agentCostUsd"),
           "reportedCostUsd": m.get("agentReportedCostUsd"), "toolCalls": e.get("toolCalls"),
           "contextBytes": o["contextBytes"], "contextTokens": o.get("contextTokens"), "evidenceCount": len(o["evidenceIds"]),
           "taskOutcome": o.get("taskOutcome"), "evidenceQuality": o.get("evidenceQuality"), "safetyOutcome": o.get("safetyOutcome"),
           "acceptanceChecksPassed": m.get("acceptanceChecksPassed"), "acceptanceChecksTotal": m.get("acceptanceChecksTotal"),
           "verifiedChecksPassed": m.get("verifiedChecksPassed"), "verifiedChecksTotal": m.get("verifiedChecksTotal"),
           "claimAgreement": agreement(m),
           "adjudicationStatus": a["status"], "adjudicationActor": a.get("actor"), "adjudicationMethod": a.get("method"),
           "adjudicationOutcome": a.get("outcome"), "adjudicationConfidence": a.get("confidence"),
           "adjudicationReasonCodes": ";".join(a["reasonCodes"]) if "reasonCodes" in a else None,
           "result": a["outcome"] if decided else "pending", "resultSource": source if decided else "pending",
           "planHash": o["planHash"], "observationHash": o["contentHash"], "executionKey": execution_key(t)}
    assert list(row) == columns, "the check's columns differ from docs/METRICS.md"
    return row

def same(got, want, where):
    if want is None:
        ok = got in ("", None)
    elif isinstance(want, bool) or isinstance(want, str):
        ok = got == want
    else:
        ok = float(got) == float(want)
    if not ok:
        sys.exit(f"{where}: got {got!r}, expected {want!r}")

raw = open(path, "rb").read()
if fmt == "csv":
    lines = raw.split(b"\r\n")
    assert lines[-1] == b"", "the last line ends with CRLF"
    rows = list(csv.reader(io.StringIO(raw.decode(), newline="")))
    names = sorted({n for o in observations for n in o.get("measurements", {})}, key=lambda n: n.encode())
    header = columns + [f"measurements.{n}" for n in names]
    assert rows[0] == header, f"header {rows[0]} != {header}"
    assert len(rows) == len(observations) + 1, f"{len(rows) - 1} rows for {len(observations)} observations"
    for i, (row, o) in enumerate(zip(rows[1:], observations)):
        assert len(row) == len(header), f"row {i}: {len(row)} fields"
        for name, value in expected(o).items():
            same(row[header.index(name)], value, f"row {i} {name}")
        for n in names:
            same(row[header.index(f"measurements.{n}")], o.get("measurements", {}).get(n), f"row {i} measurements.{n}")
    # Every line break in the file is a row end except those inside quoted fields.
    assert raw.count(b"\r\n") == len(observations) + 1, "one CRLF per row"
else:
    lines = raw.decode().split("\n")
    assert lines[-1] == "" and len(lines) == len(observations) + 1, "one LF-terminated line per observation"
    for i, (line, o) in enumerate(zip(lines, observations)):
        row = json.loads(line)
        assert list(row) == columns + ["measurements"], f"row {i}: members {list(row)}"
        for name, value in expected(o).items():
            if value is None:
                assert row[name] is None, f"row {i} {name}: {row[name]!r} for an absent value"
            else:
                same(row[name], value, f"row {i} {name}")
        assert row["measurements"] == o.get("measurements", {}), f"row {i}: measurements"
print(len(observations))
PY
check() { python3 "$WORK/check_export.py" "$DOCS" "$L" "$@" 2>&1; }

# --- CSV and JSON Lines of the whole ledger ------------------------------------------------
run export "$L" -o "$WORK/all.csv" --text; expect_code 0 "export csv"
expect_out_has "Exported: 48 observation(s)" "the summary counts the rows"
expect_true "[ \"\$(check csv '$WORK/all.csv')\" = 48 ]" "CSV rows equal the ledger's observations ($(check csv "$WORK/all.csv" | tail -1))"
expect_true "grep -qF '\"measurements.odd, \"\"quoted\"\"' '$WORK/all.csv'" "a measurement name with a comma and quotes is quoted"
expect_true "grep -qF ',1e-7,' '$WORK/all.csv' || grep -qF ',1e-7' '$WORK/all.csv'" "numbers as ECMAScript prints them"
run export "$L" --format jsonl; expect_code 0 "export jsonl to stdout"
cp "$WORK/stdout" "$WORK/all.jsonl"
expect_true "[ \"\$(check jsonl '$WORK/all.jsonl')\" = 48 ]" "JSON Lines rows equal the ledger's observations ($(check jsonl "$WORK/all.jsonl" | tail -1))"
expect_err_empty "nothing on stderr"
run export "$L"; expect_code 0 "export csv to stdout"
expect_true "cmp -s '$WORK/stdout' '$WORK/all.csv'" "stdout and -o give the same bytes"

# --- selection and a ledger held whole ---------------------------------------------------
run export "$L" --run-id append-b -o "$WORK/b.csv"; expect_code 0 "export one run"
expect_true "[ \"\$(check csv '$WORK/b.csv' append-b)\" = 16 ]" "--run-id exports that run only"
run export "$L" --run-id append-c --run-id append-a --format jsonl -o "$WORK/ac.jsonl"; expect_code 0 "export two runs"
expect_true "[ \"\$(check jsonl '$WORK/ac.jsonl' append-a append-c)\" = 32 ]" "repeated --run-id, in ledger order"
"$STRATA" export /dev/stdin <"$L" >"$WORK/piped.csv" 2>"$WORK/stderr"
expect_true "cmp -s '$WORK/piped.csv' '$WORK/all.csv'" "a ledger from a pipe (held whole) gives the same bytes"

# --- bad input ------------------------------------------------------------------------------
echo "earlier export" >"$WORK/kept.csv"
run export "$L" --run-id nope -o "$WORK/kept.csv"; expect_code 2 "unknown run id"
expect_err_has "Ledger $L has no observations of run nope." "the message names the ledger and the run"
expect_true "[ \"\$(cat '$WORK/kept.csv')\" = 'earlier export' ]" "an earlier file at the -o path is untouched"
run export "$L" --run-id nope -o "$WORK/none.csv"; expect_code 2 "unknown run id, new file"
expect_file_absent "$WORK/none.csv" "no output file"
cp "$L" "$WORK/tampered.json"
tamper_in_place "$WORK/tampered.json" '"append-b"' '"append-x"'
run export "$WORK/tampered.json" -o "$WORK/tampered.csv"; expect_code 2 "tampered ledger"
expect_err_has "content hash" "the hash failure is named"
expect_file_absent "$WORK/tampered.csv" "nothing written for a tampered ledger"
run export "$L" --format xml -o "$WORK/x.out"; expect_code 1 "unknown format"
expect_err_has "xml not in {csv,jsonl}" "the formats are named"
expect_file_absent "$WORK/x.out" "nothing written for an unknown format"
run export "$WORK/missing.json"; expect_code 2 "missing ledger"
expect_err_has "missing.json" "the missing file is named"

finish
