#!/usr/bin/env bash
# Every source file of every target of the default build (the libraries, the programs, the tests
# and their support) compiles on its own: each includes and declares what it uses. The scripts
# build with unity batches (scripts/build.sh), where a file that forgets an include can lean on a
# neighbour's; a packager, an IDE or a plain `cmake --build` builds without them (issues 28 and
# 35, part 0). This parses each file alone (g++ -fsyntax-only, the flags of a plain non-unity
# configure), two at a time, and prints every file that does not compile. It proves what a plain
# build would, for a parse instead of a full optimised compile of every file (docs/TESTING.md);
# the test command runs it in the lane with slack.
# Usage: scripts/check-includes.sh [build-dir=build-includes] [path-filter]
#   path-filter: only the sources whose path contains it (e.g. /tests/)
#   STRATA_INCLUDES_PROVEN_BY=<unity build tree>: skip the sources that tree's unity batches start
#     with. A CMake unity source is only `#include "<source>"` lines: the first source of a batch
#     sees nothing before it, so that tree's build compiled it exactly as a plain build would (the
#     test command passes the release tree once it has built; it proves about one file in six).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-includes}
filter=${2:-/}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
python3 - "$dir/compile_commands.json" "$PWD" "$filter" "${STRATA_INCLUDES_PROVEN_BY:-}" >"$dir/syntax-commands" <<'PY'
import glob, json, os, re, shlex, sys
proven = set()
if sys.argv[4]:
    for unity in glob.glob(os.path.join(sys.argv[4], "**", "Unity", "unity_*.cxx"), recursive=True):
        first = re.search(r'^#include "([^"]+)"', open(unity).read(), re.M)
        if first: proven.add(os.path.realpath(first.group(1)))
    print(f"# {len(proven)} sources proven by the unity batches of {sys.argv[4]}", file=sys.stderr)
for entry in json.load(open(sys.argv[1])):
    source = entry["file"]
    if not source.startswith(sys.argv[2] + "/") or sys.argv[3] not in source:
        continue  # CMake's own sources (the precompiled header) are not ours
    if os.path.realpath(source) in proven:
        continue
    words, skip, command = shlex.split(entry["command"]), False, []
    for word in words:
        if skip:
            skip = False
        elif word in ("-o", "-MF", "-MT"):
            skip = True
        elif word not in ("-c", "-MD"):
            command.append(word)
    command.insert(1, "-fsyntax-only")
    print(f"cd {shlex.quote(entry['directory'])} && {shlex.join(command)}")
PY
total=$(wc -l <"$dir/syntax-commands")
failed=$(xargs -P "$(nproc)" -d '\n' -I{} bash -c '{} >/dev/null 2>&1 || echo "{}"' <"$dir/syntax-commands" |
  grep -o '[^ ]*\.cpp$' || true)
if [ -n "$failed" ]; then
  echo "check-includes: these files do not compile on their own (build one with: cmake --build $dir --target <its library>):" >&2
  printf '  %s\n' $failed >&2
  exit 1
fi
echo "check-includes: all $total source files compile on their own"
