#!/usr/bin/env bash
# The documentation's links resolve (issue 48): every relative link in README.md and docs/**/*.md
# names a file or directory that exists, and a link with #anchor names a heading of its target
# (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens). README's prose lines
# stay under 200 characters (its reference lives in docs/CLI.md).
# Usage: docs_links_test.sh <repository root>
ROOT=$(realpath "$1")
/usr/bin/python3 - "$ROOT" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))

def anchors(path):
    found, in_code = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"): in_code = not in_code
        if in_code or not line.startswith("#"): continue
        text = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        base, n = slug, 1
        while slug in found:
            slug, n = f"{base}-{n}", n + 1
        found.add(slug)
    return found

problems, checked = [], 0
for path in files:
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # links in code blocks are not links
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target): continue  # http:, https:, mailto:
        checked += 1
        file_part, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        where = os.path.relpath(path, root)
        if not os.path.exists(resolved):
            problems.append(f"{where}: {target}: no such file")
        elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
            problems.append(f"{where}: {target}: no such heading")
in_code = False
for number, line in enumerate(open(os.path.join(root, "README.md"), encoding="utf-8"), 1):
    if line.startswith("```"): in_code = not in_code
    if not in_code and not line.startswith("|") and len(line.rstrip("\n")) > 200:
        problems.append(f"README.md:{number}: a prose line of {len(line.rstrip())} characters (at most 200)")
for problem in problems: print("FAIL:", problem, file=sys.stderr)
print(f"{len(files)} files, {checked} links checked; {len(problems)} problems")
sys.exit(1 if problems else 0)
PY
