#!/usr/bin/env bash
# strata report (docs/METRICS.md, "Report") on a real study run by the example provider, whose
# outcome depends on the scenario:
#   - the HTML file is self-contained (no script, no external reference) and carries the
#     provenance: ledger, plan, suite, provider and repository config hashes, the adjudicator,
#     Strata's version;
#   - its tables hold the numbers of strata metrics, and the success rates and Wilson intervals
#     computed here from the ledger;
#   - five plots, each an SVG with a title, a text alternative and a table of its numbers;
#   - opened in headless Chromium (tests/support/browser_check.py): no console error, every SVG
#     rendered with a non-zero size, no request leaving the file, printed to PDF; the findings
#     section first after the title (before Provenance), one li.finding per finding of strata
#     metrics for the same ledger and flags, its text the finding's sentence (and, without the
#     browser, the same with --cluster category --multiplicity bh);
#   - --format md: the Markdown (opening with "## Findings", one bullet per finding) and its SVG
#     files, each well-formed XML;
#   - bad input (all-pending adjudications, mixed rounds, an unknown run id, an arm without
#     observations, a target Strata does not compute, a missing directory): message, exit 2, no
#     file written, an existing report left as it was.
# Usage: report_test.sh <strata binary> <example provider binary> <fixtures dir>
STRATA=$(realpath "$1")
PROVIDER=$(realpath "$2")
FIX=$(realpath "$3")
. "$(dirname "$0")/lib.sh"
BROWSER_CHECK=$(realpath "$(dirname "$0")/../support/browser_check.py")

make_example_study "$PROVIDER" a b
L=$WORK/ledger.json
study_run a "$L"; expect_code 0 "the example study"
H=$WORK/report.html
run report "$L" -o "$H" --suite "$WORK/suite.json" --protocol "$FIX/protocol-v1.json" --text
expect_code 0 "strata report"
expect_out "Report: $H (16 observations, 4 arms)" "one line names the report"

# --- provenance and self-containment -------------------------------------------------------------
hash_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["contentHash"])' "$1"; }
for artifact in ledger.json plan-a.json suite.json providers.json repos.json; do
  expect_true "grep -q '$(hash_of "$WORK/$artifact")' '$H'" "the header carries the hash of $artifact"
done
expect_true "grep -q '$(hash_of "$FIX/protocol-v1.json")' '$H'" "the header carries the protocol's hash"
expect_true "grep -q 'deterministic-rubric-v1' '$H'" "the header names the adjudicator"
version=$("$STRATA" --version | cut -d' ' -f2)
expect_true "grep -q '<td>$version</td>' '$H'" "the header carries Strata's version ($version)"
expect_true "! grep -Eiq '<script|<link|<img|<iframe|src=|href=|url\\(|@import' '$H'" "no script, link, image or reference"
expect_true "grep -q \"default-src 'none'\" '$H'" "a Content-Security-Policy forbids loading anything"

# --- the numbers: tables against strata metrics and against the ledger ---------------------------------
"$STRATA" metrics "$L" >"$WORK/metrics.json"
cat >"$WORK/tables.py" <<'PY'
# tables.py <report.html>: {caption: [[cell, ...], ...]} of every table (header row included).
import html.parser, json, sys

class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.caption, self.rows, self.cell, self.text = {}, None, [], None, None
    def handle_starttag(self, tag, attrs):
        if tag == "table": self.rows = []
        elif tag == "caption": self.text = ""
        elif tag == "tr": self.rows.append([])
        elif tag in ("td", "th"): self.cell = ""
    def handle_endtag(self, tag):
        if tag == "caption": self.caption, self.text = self.text, None
        elif tag in ("td", "th") and self.cell is not None: self.rows[-1].append(self.cell); self.cell = None
        elif tag == "table": self.tables[self.caption] = self.rows
    def handle_data(self, data):
        if self.text is not None: self.text += data
        if self.cell is not None: self.cell += data

parser = Tables()
parser.feed(open(sys.argv[1], encoding="utf-8").read())
print(json.dumps(parser.tables))
PY
python3 "$WORK/tables.py" "$H" >"$WORK/tables.json"
cat >"$WORK/numbers.py" <<'PY'
# numbers.py <tables.json> <metrics.json> <ledger>: the success table against the ledger (Wilson
# computed here), and the arms and tokens tables against strata metrics.
import json, math, sys
tables = json.load(open(sys.argv[1]))
arms = {f'{a["modelId"]} / {a["scenarioId"]}': a for a in json.load(open(sys.argv[2]))["report"]["arms"]}
observations = json.load(open(sys.argv[3]))["observations"]

def pct(x):
    text = f"{x * 100:.1f}".rstrip("0").rstrip(".")
    return text + "%"

def wilson(s, n, z=1.959963984540054):
    p = s / n
    centre, half = (p + z * z / (2 * n)) / (1 + z * z / n), z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)

problems = []
success = tables["Success rate per arm"]
assert success[0] == ["Arm", "Executions", "Decided", "Successes", "Success rate", "95% interval (Wilson)"], success[0]
assert len(success) - 1 == len(arms), "one row per arm"
for row in success[1:]:
    label = row[0]
    mine = [o for o in observations if f'{o["task"]["modelId"]} / {o["task"]["scenarioId"]}' == label]
    results = [o["adjudication"].get("outcome") for o in mine if o["adjudication"]["status"] != "pending"]
    s, n = results.count("success"), len(results)
    low, high = wilson(s, n)
    want = [label, str(len(mine)), str(n), str(s), pct(s / n), f"{pct(low)} – {pct(high)}"]
    if row != want: problems.append(f"success row {row} != {want}")
tokens = tables["Tokens per execution (input + output)"]
for row in tokens[1:]:
    t = arms[row[0]]["totalTokens"]
    want = [f'{t["min"]:g}', f'{round(t["median"], 1):g}', f'{t["max"]:g}']
    if [row[2], row[4], row[6]] != want: problems.append(f"tokens row {row} != {want}")
arm_rows = tables["Arms (model × scenario)"]
for row in arm_rows[1:]:
    a = arms[row[0]]
    if row[1] != f'{a["executions"]:g}': problems.append(f"arms row {row[0]}: executions {row[1]}")
    if not row[4].startswith(pct(a["successRate"])): problems.append(f"arms row {row[0]}: success {row[4]}")
paired = tables["Paired comparison (same model, same tasks, two scenarios)"]
if len([r for r in paired[1:] if r[1] == "success rate"]) != 2: problems.append("one success row per model")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
expect_true "python3 '$WORK/numbers.py' '$WORK/tables.json' '$WORK/metrics.json' '$L'" "the tables hold the ledger's numbers"
expect_true "[ \$(grep -c '<svg ' '$H') = 5 ]" "five plots"
expect_true "[ \$(grep -c '<svg [^>]*role=\"img\" aria-labelledby=' '$H') = 5 ]" "each plot is an image labelled by its title and text"
expect_true "[ \$(grep -c '<desc id=' '$H') = 5 ]" "each plot has a text alternative"
for plot in "Success rate per arm" "Tokens per execution (input + output)" "Cost against success per arm" \
  "Paired effects (current scenario minus baseline scenario, same tasks)" "Outcomes per task and arm (successes of decided executions)"; do
  expect_true "python3 -c 'import json,sys; sys.exit(not json.load(open(sys.argv[1]))[sys.argv[2]][1:])' '$WORK/tables.json' '$plot'" \
    "the numbers of '$plot' are in a table"
done

# findings.py <html|browser|md> <report.html | browser.json | report.md> <metrics.json>: the
# report's findings against strata metrics' report.findings, in order; one line per problem.
cat >"$WORK/findings.py" <<'PY'
import html.parser, json, sys
kind, path, metrics = sys.argv[1:4]
want = json.load(open(metrics))["report"]["findings"]
problems = []
if not want:
    problems.append("strata metrics reports no finding")

def items_match(items):
    if len(items) != len(want):
        problems.append(f"{len(items)} findings in the report, {len(want)} from strata metrics")
    for i, (got, f) in enumerate(zip(items, want)):
        expected = {"model": f["modelId"], "baseline": f["baselineScenarioId"], "current": f["currentScenarioId"],
                    "measure": f["measure"], "verdict": f["verdict"], "text": f["sentence"]}
        if got != expected:
            problems.append(f"finding {i}: {got} != {expected}")

class Findings(html.parser.HTMLParser):
    """li.finding of section#findings: their data attributes and text (textContent)."""
    def __init__(self):
        super().__init__()
        self.depth, self.items, self.text, self.h2s = 0, [], None, []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.depth:
            self.depth += tag == "section"
        elif tag == "section" and a.get("id") == "findings":
            self.depth = 1
            self.h2s.append("findings")
        if tag == "h2" and not self.depth:
            self.h2s.append(a.get("id"))
        if self.depth and tag == "li" and "finding" in (a.get("class") or "").split():
            self.text = ""
            self.items.append({k[5:]: v for k, v in a.items() if k.startswith("data-")})
    def handle_endtag(self, tag):
        if self.depth and tag == "section":
            self.depth -= 1
        if tag == "li" and self.text is not None:
            self.items[-1]["text"], self.text = self.text, None
    def handle_data(self, data):
        if self.text is not None:
            self.text += data

if kind == "html":
    parser = Findings()
    parser.feed(open(path, encoding="utf-8").read())
    if parser.h2s[:2] != ["findings", "provenance"]:
        problems.append(f"the sections in order: {parser.h2s} (findings first, then provenance)")
    items_match(parser.items)
elif kind == "browser":
    facts = json.load(open(path))["findings"]
    if not facts:
        problems.append("Chromium finds no section#findings")
    else:
        place = {k: facts.get(k) for k in ("heading", "afterTitle", "beforeProvenance", "firstHeadingAfterTitle",
                                           "firstSection", "renderedAboveProvenance")}
        if place != {"heading": "Findings", "afterTitle": True, "beforeProvenance": True, "firstHeadingAfterTitle": True,
                     "firstSection": True, "renderedAboveProvenance": True}:
            problems.append(f"the findings section is not the first after the title, before Provenance: {place}")
        items_match(facts["items"])
else:
    lines = open(path, encoding="utf-8").read().split("\n")
    headings = [l for l in lines if l.startswith("## ")]
    if headings[:2] != ["## Findings", "## Provenance"]:
        problems.append(f"the Markdown's sections: {headings[:3]} (## Findings first, then ## Provenance)")
    else:
        start, end = lines.index("## Findings"), lines.index("## Provenance")
        section = [l for l in lines[start + 1:end] if l.strip()]
        bullets = [l for l in section if l.startswith("- ")]
        if bullets != ["- " + f["sentence"] for f in want] or section[:len(bullets)] != bullets:
            problems.append(f"the Findings section {section} does not open with one '- sentence' line per finding "
                            f"{[f['sentence'] for f in want]}")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
findings_check() {  # findings_check <html|browser|md> <file> <metrics.json> <what>
  python3 "$WORK/findings.py" "$1" "$2" "$3" >"$WORK/findings.out" 2>&1
  expect_true "[ $? = 0 ]" "$4: $(cat "$WORK/findings.out")"
}
"$STRATA" metrics "$L" --protocol "$FIX/protocol-v1.json" >"$WORK/findings.json"
findings_check html "$H" "$WORK/findings.json" \
  "the findings section first, one li.finding per finding of strata metrics"
run report "$L" -o "$WORK/flags.html" --cluster category --multiplicity bh
expect_code 0 "--cluster category --multiplicity bh"
"$STRATA" metrics "$L" --cluster category --multiplicity bh >"$WORK/flags.json"
findings_check html "$WORK/flags.html" "$WORK/flags.json" \
  "the findings of --cluster category --multiplicity bh are strata metrics' with the same flags"

# --- a real browser ----------------------------------------------------------------------------
python3 "$BROWSER_CHECK" "$H" --pdf "$WORK/report.pdf" --screenshot "$WORK/report.png" >"$WORK/browser.json" 2>"$WORK/browser.err"
browser_code=$?
expect_true "[ $browser_code = 0 ]" "Chromium opens the report: no console error, no request leaving the file ($(head -c 600 "$WORK/browser.err"))"
expect_true "python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); sys.exit(not (b[\"svgCount\"] == 5 and all(s[\"width\"] > 0 and s[\"height\"] > 0 and s[\"hasTitle\"] and s[\"hasLabel\"] for s in b[\"svgs\"])))' '$WORK/browser.json'" \
  "every SVG rendered with a non-zero size, titled and labelled"
expect_true "python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); sys.exit(bool(b[\"externalRequests\"] or b[\"consoleErrors\"] or b[\"exceptions\"]))' '$WORK/browser.json'" \
  "no request, console error or exception"
expect_true "[ \"\$(head -c 5 '$WORK/report.pdf')\" = '%PDF-' ]" "printed to PDF"
expect_true "[ \"\$(head -c 4 '$WORK/report.png' | tail -c 3)\" = 'PNG' ]" "a screenshot"
findings_check browser "$WORK/browser.json" "$WORK/findings.json" \
  "in Chromium, the findings come first after the title, each li's text the finding's sentence"

# --- Markdown --------------------------------------------------------------------------------
mkdir -p "$WORK/md"
run report "$L" -o "$WORK/md/study.md" --format md
expect_code 0 "--format md"
expect_true "[ \$(ls '$WORK/md' | grep -c '^study-.*\\.svg$') = 5 ]" "five SVG files beside the Markdown"
for svg in "$WORK"/md/*.svg; do
  name=$(basename "$svg")
  expect_true "grep -qF '($name)' '$WORK/md/study.md'" "the Markdown links $name"
  expect_true "python3 -c 'import sys, xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); sys.exit(r.tag != \"{http://www.w3.org/2000/svg}svg\")' '$svg'" \
    "$name is a well-formed SVG document"
done
expect_true "grep -q '^| low-cost-model / deterministic-doc-bridge |' '$WORK/md/study.md'" "the Markdown has the arms table"
findings_check md "$WORK/md/study.md" "$WORK/metrics.json" \
  "the Markdown opens with ## Findings, one bullet per finding, then ## Provenance"

# --- bad input: message, exit 2, nothing written, an existing report kept -----------------------------
echo "an earlier report" >"$WORK/kept.html"
refused() {  # refused <name> <stderr fragment> <report args...>
  local name=$1 fragment=$2
  shift 2
  bad_input "$name" "$fragment" report "$@" -o "$WORK/refused.html"
  expect_file_absent "$WORK/refused.html" "$name: no report"
  run report "$@" -o "$WORK/kept.html"
  expect_true "[ \"\$(cat '$WORK/kept.html')\" = 'an earlier report' ]" "$name: an existing report is left as it was"
}
failing_providers
run adjudicate "$L" "$WORK/suite.json" --adjudicator "$WORK/judge.json" --output "$WORK/pending.json"
expect_code 0 "adjudication by a judge that always fails"
refused "all-pending adjudications" "Every adjudication of the 16 observations selected in $WORK/pending.json is pending" "$WORK/pending.json"

cp "$L" "$WORK/two-rounds.json"
study_run b "$WORK/two-rounds.json" --round round-2; expect_code 0 "a second round in the same ledger"
refused "mixed rounds" "mixes rounds" "$WORK/two-rounds.json"
run report "$WORK/two-rounds.json" -o "$WORK/rounds.html" --baseline-round none --current-round round-2
expect_code 0 "two rounds compared"
expect_true "grep -q 'Targets: round none → round round-2' '$WORK/rounds.html'" "the comparison's targets table"
refused "an unknown run id" "has no observations of run nope" "$L" --run-id nope

python3 - "$L" "$WORK/no-arm.payload.json" <<'PY'
import json, sys
ledger = json.load(open(sys.argv[1]))
ledger["observations"] = [o for o in ledger["observations"]
                          if (o["task"]["modelId"], o["task"]["scenarioId"]) != ("low-cost-model", "repository-only")]
del ledger["contentHash"], ledger["contentHashAlgo"]
json.dump(ledger, open(sys.argv[2], "w"))
PY
"$STRATA" seal ledger "$WORK/no-arm.payload.json" -o "$WORK/no-arm.json" >/dev/null
refused "an arm without observations" "has no observations for arm low-cost-model / repository-only" "$WORK/no-arm.json"
run report "$WORK/no-arm.json" -o "$WORK/no-arm.html" --allow-missing-arms
expect_code 0 "--allow-missing-arms"
expect_true "grep -q 'Arms with no observation' '$WORK/no-arm.html'" "the missing arm is listed"

python3 - "$FIX/protocol-v1.json" "$WORK/runtime-protocol.payload.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["stopping"]["targets"].append({"metricId": "docbridge-runtime", "direction": "decrease", "threshold": 0.1})
del p["contentHash"], p["contentHashAlgo"]
json.dump(p, open(sys.argv[2], "w"))
PY
"$STRATA" seal protocol "$WORK/runtime-protocol.payload.json" -o "$WORK/runtime-protocol.json" >/dev/null
refused "a target Strata does not compute" "Protocol target docbridge-runtime names a metric" "$L" --protocol "$WORK/runtime-protocol.json"

python3 - "$WORK/suite.json" "$WORK/other-suite.payload.json" <<'PY'
import json, sys
suite = json.load(open(sys.argv[1]))
suite["title"] = "Another suite"
del suite["contentHash"], suite["contentHashAlgo"]
json.dump(suite, open(sys.argv[2], "w"))
PY
"$STRATA" seal task-suite "$WORK/other-suite.payload.json" -o "$WORK/other-suite.json" >/dev/null
refused "another task suite" "is not the suite run append-a was started with" "$L" --suite "$WORK/other-suite.json"
bad_input "a missing directory" "the directory of the report does not exist" report "$L" -o "$WORK/nowhere/report.html"

finish
